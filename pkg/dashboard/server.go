package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Bounds of a connection to the page: headers must arrive within
// readHeaderTimeout and stay under maxHeaderBytes; a response (but a live
// stream, which extends its own deadline) must be written within
// writeTimeout.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 32 << 10
	shutdownTimeout   = 5 * time.Second
)

// Serve serves handler on listener until ctx ends, with bounded request
// sizes and timeouts.
func Serve(ctx context.Context, listener net.Listener, handler http.Handler) error {
	server := &http.Server{
		Handler: handler, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- server.Serve(listener) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving the dashboard: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	err := server.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = server.Close()
	}
	return err
}

// Runnable serves a handler on an address while a controller-runtime
// manager runs: mgr.Add(dashboard.Server(addr, handler)). It runs on every
// replica, leader or not: the page only reads.
type Runnable struct {
	Addr    string
	Handler http.Handler
}

// Server returns the Runnable of handler on addr.
func Server(addr string, handler http.Handler) *Runnable {
	return &Runnable{Addr: addr, Handler: handler}
}

// Start listens on the address and serves until ctx ends.
func (s *Runnable) Start(ctx context.Context) error {
	listener, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("dashboard: listening on %s: %w", s.Addr, err)
	}
	return Serve(ctx, listener, s.Handler)
}

// NeedLeaderElection is false: every replica serves the page.
func (s *Runnable) NeedLeaderElection() bool { return false }
