package chartserve

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// DefaultPort is where `wavekit cluster create --charts` serves charts:
// the port `helm serve` used.
const DefaultPort = 8879

// Server is a Helm repository on 127.0.0.1.
type Server struct {
	// URL of the repository, http://127.0.0.1:PORT: URL/index.yaml is its
	// index.
	URL string

	dir    string
	server *http.Server
	served chan error
	close  sync.Once
	closed error
}

// Start packages the charts of dirs (see Package) into a directory of its
// own and serves them on 127.0.0.1:port (a free port when 0). A port that
// another program listens on is an error that names it.
func Start(port int, dirs ...string) (*Server, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("serving charts: port %d on 127.0.0.1 is taken by another program: %w", port, err)
	}
	if err != nil {
		return nil, fmt.Errorf("serving charts on %s: %w", addr, err)
	}
	dir, err := os.MkdirTemp("", "wavekit-charts-")
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("serving charts: %w", err)
	}
	if err := Package(dir, dirs...); err != nil {
		return nil, errors.Join(err, l.Close(), os.RemoveAll(dir))
	}
	s := &Server{
		URL:    "http://" + l.Addr().String(),
		dir:    dir,
		server: &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second},
		served: make(chan error, 1),
	}
	go func() { s.served <- s.server.Serve(l) }()
	return s, nil
}

// Close stops serving and removes the packaged charts; a second Close
// returns what the first did.
func (s *Server) Close() error {
	s.close.Do(func() {
		err := s.server.Close()
		<-s.served
		s.closed = errors.Join(err, os.RemoveAll(s.dir))
	})
	return s.closed
}
