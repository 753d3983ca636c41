package helm_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/demo"
)

// controllers plays the Job and Deployment controllers and the kubelet in
// one namespace, which envtest does not run. A Job completes only while the
// ServiceAccount its pods run as exists: the API server refuses the pods of
// a missing account, so the real Job would never finish. It records every
// Job it saw (each run is a new UID) and every Job that had no account.
type controllers struct {
	c         client.Client
	namespace string

	mu      sync.Mutex
	runs    map[string]map[types.UID]bool // Job name → UIDs seen
	order   []string                      // Job names, in the order their runs appeared
	missing map[string]string             // Job name → the account it lacked
}

// playControllers runs the controllers of namespace until the spec ends.
func playControllers(ctx context.Context, namespace string) *controllers {
	ctx, cancel := context.WithCancel(ctx)
	p := &controllers{c: env.Client, namespace: namespace, runs: map[string]map[types.UID]bool{}, missing: map[string]string{}}
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				p.jobs(ctx)
				demo.CompleteDeployments(ctx, p.c, p.namespace)
			}
		}
	}()
	DeferCleanup(func() { cancel(); <-done })
	return p
}

// Runs returns how many Jobs of that name the controllers saw.
func (p *controllers) Runs(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.runs[p.namespace+"/"+name])
}

// Order returns the names of the Jobs in the order their runs appeared.
func (p *controllers) Order() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.order...)
}

// Missing returns the Jobs that ran without their ServiceAccount.
func (p *controllers) Missing() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]string{}
	for k, v := range p.missing {
		out[k] = v
	}
	return out
}

func (p *controllers) jobs(ctx context.Context) {
	var list batchv1.JobList
	if p.c.List(ctx, &list, client.InNamespace(p.namespace)) != nil {
		return
	}
	for i := range list.Items {
		j := &list.Items[i]
		p.saw(j)
		if j.Status.CompletionTime != nil || j.DeletionTimestamp != nil {
			continue
		}
		account := j.Spec.Template.Spec.ServiceAccountName
		if account == "" {
			account = "default"
		}
		err := p.c.Get(ctx, client.ObjectKey{Namespace: j.Namespace, Name: account}, &corev1.ServiceAccount{})
		if apierrors.IsNotFound(err) {
			p.mu.Lock()
			p.missing[j.Name] = account
			p.mu.Unlock()
			continue
		}
		if err != nil {
			continue
		}
		j.Status = demo.CompletedStatus()
		_ = p.c.Status().Update(ctx, j)
	}
}

func (p *controllers) saw(j *batchv1.Job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := j.Namespace + "/" + j.Name
	if p.runs[key] == nil {
		p.runs[key] = map[types.UID]bool{}
	}
	if !p.runs[key][j.UID] {
		p.runs[key][j.UID] = true
		p.order = append(p.order, j.Name)
	}
}
