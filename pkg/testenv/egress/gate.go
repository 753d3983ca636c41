package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
)

// requestTimeout bounds how long a client of the gate may take to send its
// CONNECT request.
const requestTimeout = 10 * time.Second

// dialTimeout bounds a connection to a loopback target.
const dialTimeout = 10 * time.Second

// Gate answers kube-apiserver's HTTP CONNECT requests on a Unix socket: it
// tunnels to loopback targets and refuses every other target at once.
type Gate struct {
	// Socket is the path the gate listens on.
	Socket string

	listener net.Listener
	owners   atomic.Pointer[Owners]
	log      logr.Logger
	watch    *ClusterOwners

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Listen creates the Unix socket at path (replacing a socket a gate that
// ended left there) and serves on it until Close. Until SetOwners or
// WatchCluster, a refusal names no owner. log receives each refusal.
func Listen(path string, log logr.Logger) (*Gate, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode().Type() == fs.ModeSocket {
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing the egress gate's old socket %s: %w", path, err)
		}
	}
	listener, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on the egress gate's socket %s: %w", path, err)
	}
	if log.GetSink() == nil {
		log = logr.Discard()
	}
	g := &Gate{Socket: path, listener: listener, log: log, conns: map[net.Conn]struct{}{}}
	g.wg.Go(g.serve)
	return g, nil
}

// SetOwners makes the gate name what owns a refused address by o.
func (g *Gate) SetOwners(o Owners) { g.owners.Store(&o) }

// WatchCluster makes the gate name what owns a refused address by the
// Services, pods and Nodes of the cluster of cfg (see WatchOwners); Close
// stops the watch.
func (g *Gate) WatchCluster(cfg *rest.Config) error {
	watch, err := WatchOwners(cfg)
	if err != nil {
		return err
	}
	g.mu.Lock()
	previous := g.watch
	g.watch = watch
	g.mu.Unlock()
	if previous != nil {
		previous.Stop()
	}
	g.SetOwners(watch)
	return nil
}

// Close stops serving, ends the open tunnels, stops the cluster watch and
// removes the socket.
func (g *Gate) Close() error {
	err := g.listener.Close()
	g.mu.Lock()
	g.closed = true
	for conn := range g.conns {
		_ = conn.Close()
	}
	watch := g.watch
	g.mu.Unlock()
	g.wg.Wait()
	if watch != nil {
		watch.Stop()
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("closing the egress gate's socket %s: %w", g.Socket, err)
	}
	return nil
}

func (g *Gate) serve() {
	for {
		conn, err := g.listener.Accept()
		if err != nil {
			return // closed
		}
		if !g.track(conn) {
			return
		}
		g.wg.Go(func() {
			defer g.untrack(conn)
			g.handle(conn)
		})
	}
}

// track records an open connection for Close; it closes conn and returns
// false once the gate is closed.
func (g *Gate) track(conn net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		_ = conn.Close()
		return false
	}
	g.conns[conn] = struct{}{}
	return true
}

func (g *Gate) untrack(conn net.Conn) {
	_ = conn.Close()
	g.mu.Lock()
	delete(g.conns, conn)
	g.mu.Unlock()
}

// handle reads one CONNECT request and tunnels or refuses it.
func (g *Gate) handle(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(requestTimeout))
	request := bufio.NewReader(conn)
	req, err := http.ReadRequest(request)
	if err != nil {
		g.log.Info("reading a CONNECT request", "error", err.Error())
		return
	}
	if req.Method != http.MethodConnect {
		reply(conn, http.StatusMethodNotAllowed, "the local cluster's egress gate takes CONNECT requests only")
		return
	}
	// The authority of the request line, never the Host header, which
	// kube-apiserver sets to 127.0.0.1 whatever the target.
	target := req.URL.Host
	pass, reason := Decide(target, g.currentOwners())
	if !pass {
		g.log.Info("refused", "target", target, "reason", reason)
		reply(conn, http.StatusBadGateway, reason)
		return
	}
	upstream, err := loopbackDialer.Dial("tcp", target)
	if err != nil {
		reply(conn, http.StatusBadGateway, fmt.Sprintf("nothing answers on %s on this machine: %v", target, err))
		return
	}
	if !g.track(upstream) {
		return
	}
	defer g.untrack(upstream)
	_ = conn.SetReadDeadline(time.Time{})
	if reply(conn, http.StatusOK, "Connection established") {
		splice(conn, request, upstream)
	}
}

func (g *Gate) currentOwners() Owners {
	if o := g.owners.Load(); o != nil {
		return *o
	}
	return noOwners{}
}

// loopbackDialer connects only to loopback addresses, whatever a name
// resolves to.
var loopbackDialer = &net.Dialer{
	Timeout: dialTimeout,
	Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil || !IsLoopback(host) {
			return fmt.Errorf("the local cluster's egress gate connects to loopback addresses only, not %s", address)
		}
		return nil
	},
}

// reply writes a response line whose reason phrase kube-apiserver puts into
// its error for any status but 200; it reports whether the write worked.
func reply(conn net.Conn, code int, reason string) bool {
	reason = strings.NewReplacer("\r", " ", "\n", " ").Replace(reason)
	response := fmt.Sprintf("HTTP/1.1 %d %s\r\n", code, reason)
	if code != http.StatusOK {
		response += "Content-Length: 0\r\nConnection: close\r\n"
	}
	_, err := io.WriteString(conn, response+"\r\n")
	return err == nil
}

// splice copies both ways between the client (through what its reader has
// buffered) and upstream until both directions have ended.
func splice(client net.Conn, fromClient *bufio.Reader, upstream net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(upstream, fromClient)
		closeWrite(upstream)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(client, upstream)
		closeWrite(client)
		done <- struct{}{}
	}()
	<-done
	<-done
}

// closeWrite ends the writing half of conn, or all of it where there are no
// halves.
func closeWrite(conn net.Conn) {
	if half, ok := conn.(interface{ CloseWrite() error }); ok {
		_ = half.CloseWrite()
		return
	}
	_ = conn.Close()
}
