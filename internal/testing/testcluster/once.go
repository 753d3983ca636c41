package testcluster

import (
	"sync"
	"testing"
)

// Once starts one control plane on first use and shares it, for benchmarks
// (which cannot use Ginkgo's suite set-up). Stop it from TestMain.
type Once struct {
	Options Options

	once sync.Once
	env  *Env
	err  error
}

// Get starts the control plane the first time and returns it; it fails tb
// when the control plane cannot start.
func (o *Once) Get(tb testing.TB) *Env {
	o.once.Do(func() { o.env, o.err = Start(o.Options) })
	if o.err != nil {
		tb.Fatalf("starting control plane: %v", o.err)
	}
	return o.env
}

// Stop stops the control plane if it was started.
func (o *Once) Stop() error {
	if o.env == nil {
		return nil
	}
	return o.env.Stop()
}
