//go:build e2e

package informerlog

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// cutProxy forwards TCP from a loopback port to an API server and can cut
// every connection through it and refuse new ones (as a network partition
// that the client notices: its next dial is refused), then let them through
// again on the same port. TLS passes through untouched: the API server's
// certificate names 127.0.0.1, whatever the port.
type cutProxy struct {
	t        *testing.T
	addr     string
	upstream string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	// resetting: accept, then close at once (the client's dial works and
	// its TLS handshake meets EOF: an error client-go does not retry as a
	// watch, unlike a refused connection).
	resetting bool
	// lifetime, when set, closes every new connection that long after it
	// was made: a watch through it ends within a second with no event,
	// which client-go's reflector does not take as a normal end.
	lifetime time.Duration
}

func newCutProxy(t *testing.T, upstream string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{t: t, addr: ln.Addr().String(), upstream: upstream, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		resetting, upstream, lifetime := p.resetting, p.upstream, p.lifetime
		p.mu.Unlock()
		if resetting {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		if lifetime > 0 {
			time.AfterFunc(lifetime, func() { c.Close(); up.Close() })
		}
		go p.pipe(c, up)
	}
}

func (p *cutProxy) pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	go func() { _, _ = io.Copy(b, a); done <- struct{}{} }()
	<-done
	a.Close()
	b.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, a)
	delete(p.conns, b)
	p.mu.Unlock()
}

// cut closes the listener (new dials are refused) and every open connection.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// cutAndReset closes every open connection and then accepts new ones only
// to close them, until restore.
func (p *cutProxy) cutAndReset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetting = true
	for c := range p.conns {
		c.Close()
	}
}

// cutAndShorten closes every open connection and lets new ones live only
// for d, until restore.
func (p *cutProxy) cutAndShorten(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lifetime = d
	for c := range p.conns {
		c.Close()
	}
}

// retarget sends the connections made from now on to upstream.
func (p *cutProxy) retarget(upstream string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.upstream = upstream
}

// restore listens again on the same port.
func (p *cutProxy) restore() {
	p.t.Helper()
	p.mu.Lock()
	wasResetting := (p.resetting || p.lifetime > 0) && p.ln != nil
	p.resetting, p.lifetime = false, 0
	p.mu.Unlock()
	if wasResetting {
		return // still listening
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("re-listening on %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go p.serve(ln)
}
