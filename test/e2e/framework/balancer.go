package framework

import (
	"net"
	"sync"
)

// Balancer is a round-robin TCP load balancer on loopback, like the one in
// front of a real HA control plane: each new connection goes to the next
// backend, and a connection stays with its backend for its whole life
// (HTTP/2 multiplexes many requests over it).
type Balancer struct {
	ln       net.Listener
	backends []string

	mu     sync.Mutex
	next   int
	counts []int
}

// StartBalancer listens on 127.0.0.1:<free port> and spreads connections
// over backends (loopback host:ports).
func StartBalancer(backends []string) (*Balancer, error) {
	for _, b := range backends {
		if !isLoopbackHostPort(b) {
			return nil, &net.AddrError{Err: "balancer backend is not a loopback address", Addr: b}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &Balancer{ln: ln, backends: backends, counts: make([]int, len(backends))}
	go b.serve()
	return b, nil
}

// Addr is the balancer's host:port.
func (b *Balancer) Addr() string { return b.ln.Addr().String() }

// URL is https://Addr: TLS passes through to the API servers.
func (b *Balancer) URL() string { return "https://" + b.Addr() }

// Backends are the addresses connections go to, in round-robin order.
func (b *Balancer) Backends() []string { return append([]string(nil), b.backends...) }

// Counts returns how many connections went to each backend so far.
func (b *Balancer) Counts() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.counts...)
}

// Close stops accepting; open connections end with their peers.
func (b *Balancer) Close() error { return b.ln.Close() }

func (b *Balancer) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		i := b.next
		b.next = (b.next + 1) % len(b.backends)
		b.counts[i]++
		b.mu.Unlock()
		go func() {
			up, err := net.Dial("tcp", b.backends[i])
			if err != nil {
				c.Close()
				return
			}
			splice(c, c, up)
		}()
	}
}
