package faultproxy_test

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/wavekit-dev/wavekit/internal/testing/faultproxy"
)

// echoServer answers each line with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// proxied starts a proxy to an echo server and connects to it.
func proxied(t *testing.T) (*faultproxy.Proxy, net.Conn, *bufio.Reader) {
	t.Helper()
	p, err := faultproxy.Start(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	return p, c, bufio.NewReader(c)
}

func roundTrip(c net.Conn, r *bufio.Reader) (string, error) {
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return "", err
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	return r.ReadString('\n')
}

// TestForwardCutAndRefuse: bytes pass both ways; a cut ends the open
// connection and refuses new ones until it is over.
func TestForwardCutAndRefuse(t *testing.T) {
	p, c, r := proxied(t)
	if got, err := roundTrip(c, r); err != nil || got != "ping\n" {
		t.Fatalf("through the proxy: %q, %v", got, err)
	}
	p.Cut(time.Hour)
	if _, err := roundTrip(c, r); err == nil {
		t.Fatal("a cut connection still answers")
	}
	refused, err := net.Dial("tcp", p.Addr())
	if err == nil {
		if _, err := roundTrip(refused, bufio.NewReader(refused)); err == nil {
			t.Fatal("a new connection answers during a cut")
		}
	}
	p.Cut(0)
	again, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := roundTrip(again, bufio.NewReader(again)); err != nil || got != "ping\n" {
		t.Fatalf("after the cut: %q, %v", got, err)
	}
}

// TestDelay: a delay holds the answer at least its latency, and ends.
func TestDelay(t *testing.T) {
	p, c, r := proxied(t)
	p.Delay(200*time.Millisecond, time.Hour)
	start := time.Now()
	if _, err := roundTrip(c, r); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 400*time.Millisecond { // once each way
		t.Fatalf("a delayed round trip took %s", took)
	}
	p.Delay(0, 0)
	if _, err := roundTrip(c, r); err != nil {
		t.Fatal(err)
	}
}
