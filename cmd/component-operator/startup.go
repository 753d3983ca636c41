package main

import (
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/rewatch"
)

// Waiting for an API server that does not answer when the operator starts.
const (
	startWait     = 5 * time.Minute
	startTry      = 5 * time.Second        // one try's bound
	startTryPause = 500 * time.Millisecond // between tries
	// forbiddenWait: a kube-apiserver that has just started refuses every
	// service account (403) until its RBAC authorizer has read the roles;
	// past this, a 403 is the operator's RBAC.
	forbiddenWait = 30 * time.Second
)

// checkServed is operator.CheckCRDServed, tried again while the API server
// does not answer, for up to startWait, and while it refuses the operator
// for up to forbiddenWait: a replica that starts while kube-apiserver is
// away, or has just started (it lost its Lease to the outage and exited), is
// ready the moment the server serves it, instead of exiting again and being
// restarted a CrashLoopBackOff later.
func checkServed(cfg *rest.Config) error {
	try := rest.CopyConfig(cfg)
	try.Timeout = startTry
	start := time.Now()
	logged := false
	for {
		err := operator.CheckCRDServed(try)
		waited := time.Since(start)
		switch {
		case err == nil:
			return nil
		case apierrors.IsForbidden(err) && waited < forbiddenWait:
		case !rewatch.ServerAway(err) || waited > startWait:
			return err
		}
		if !logged {
			ctrl.Log.Info("the API server does not answer yet: waiting for it", "host", cfg.Host, "error", err.Error())
			logged = true
		}
		time.Sleep(startTryPause)
	}
}
