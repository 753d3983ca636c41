package faultproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Proxy forwards the connections made to Addr to its target.
type Proxy struct {
	target   string
	listener net.Listener
	now      func() time.Time

	mu         sync.Mutex
	conns      map[net.Conn]struct{}
	cutUntil   time.Time
	delayUntil time.Time
	latency    time.Duration
	wg         sync.WaitGroup
}

// Start listens on a free port of 127.0.0.1 and forwards every connection
// to target (host:port) until Close.
func Start(target string) (*Proxy, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the proxy to %s: %w", target, err)
	}
	p := &Proxy{target: target, listener: listener, now: time.Now, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients connect to (host:port).
func (p *Proxy) Addr() string { return p.listener.Addr().String() }

// Cut closes every open connection and, for d, closes each new one at once.
func (p *Proxy) Cut(d time.Duration) {
	p.mu.Lock()
	p.cutUntil = p.now().Add(d)
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
}

// Delay holds every chunk forwarded, either way, for latency, during d.
func (p *Proxy) Delay(latency, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency, p.delayUntil = latency, p.now().Add(d)
}

// Close stops accepting, closes every connection and waits for the
// forwarding to end.
func (p *Proxy) Close() error {
	err := p.listener.Close()
	p.Cut(0)
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return // closed
		}
		if !p.track(client) {
			_ = client.Close() // cut: refused
			continue
		}
		p.wg.Add(1)
		go p.forward(client)
	}
}

// track records c unless connections are cut now.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.now().Before(p.cutUntil) {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// forward copies between client and a new connection to the target until
// either side ends or a cut closes them.
func (p *Proxy) forward(client net.Conn) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil || !p.track(server) {
		p.closeAll(client, server)
		return
	}
	done := make(chan struct{}, 2)
	go func() { _ = p.copy(server, client); done <- struct{}{} }()
	go func() { _ = p.copy(client, server); done <- struct{}{} }()
	<-done
	p.closeAll(client, server)
	<-done
}

func (p *Proxy) closeAll(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		if c != nil {
			delete(p.conns, c)
			_ = c.Close()
		}
	}
}

// copy forwards from src to dst, holding each chunk while a delay lasts.
func (p *Proxy) copy(dst, src net.Conn) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if wait := p.currentLatency(); wait > 0 {
				time.Sleep(wait) // the injected latency itself
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (p *Proxy) currentLatency() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.now().Before(p.delayUntil) {
		return p.latency
	}
	return 0
}
