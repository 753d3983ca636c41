package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/pkg/localcloud"
)

// runningCloud is the simulated cloud running in this process.
type runningCloud struct {
	cancel context.CancelFunc
	done   chan error
	log    *os.File // nil when the options had a logger
}

// startCloud creates the StorageClass and runs the simulated cloud of opts
// against the cluster of cfg in this process, until stop, logging into
// localcloud.log of logDir unless opts has a logger.
func startCloud(ctx context.Context, cfg *rest.Config, opts localcloud.Options, logDir string) (*runningCloud, error) {
	if opts.NoStorage && opts.NoLoadBalancers {
		return nil, nil
	}
	var log *os.File
	if opts.Logger.GetSink() == nil {
		var err error
		if log, err = os.Create(filepath.Join(logDir, "localcloud.log")); err != nil {
			return nil, fmt.Errorf("creating the simulated cloud's log: %w", err)
		}
		opts.Logger = zap.New(zap.WriteTo(log))
	}
	cloud, err := localcloud.New(ctx, cfg, opts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting the simulated cloud: %w", err), closeLog(log))
	}
	runCtx, cancel := context.WithCancel(context.Background())
	r := &runningCloud{cancel: cancel, done: make(chan error, 1), log: log}
	go func() { r.done <- cloud.Start(runCtx) }()
	return r, nil
}

// stop stops the simulated cloud and waits until it has.
func (r *runningCloud) stop() error {
	r.cancel()
	return errors.Join(<-r.done, closeLog(r.log))
}

func closeLog(f *os.File) error {
	if f == nil {
		return nil
	}
	return f.Close()
}
