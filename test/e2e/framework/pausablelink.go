package framework

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// PausableLink is a TCP forwarder on loopback whose traffic a test can
// freeze. An API server that reaches etcd through one falls behind on
// demand: while paused, no byte moves either way, but no connection is
// closed, so the server sees a slow etcd, not a dead one (its gRPC keepalive,
// 30 s + 10 s, only gives up on a longer pause).
type PausableLink struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	resumed chan struct{} // closed while not paused
	conns   map[net.Conn]struct{}
	// inflight is held (read side) by every write in progress, so that
	// Pause returns only when no byte is still on its way.
	inflight sync.RWMutex
	// triggers pause or cut the link after a number of bytes to the
	// client (linktriggers.go).
	triggers linkTriggers
}

// StartPausableLink forwards 127.0.0.1:<free port> to target, a loopback
// host:port.
func StartPausableLink(target string) (*PausableLink, error) {
	if !isLoopbackHostPort(target) {
		return nil, fmt.Errorf("pausable link target %q is not a loopback address", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &PausableLink{ln: ln, target: target, resumed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	close(l.resumed)
	go l.serve()
	return l, nil
}

// Addr is the link's listening host:port.
func (l *PausableLink) Addr() string { return l.ln.Addr().String() }

// URL is http://Addr (what --etcd-servers takes).
func (l *PausableLink) URL() string { return "http://" + l.Addr() }

// Pause stops forwarding; when it returns, nothing more gets through until
// Resume. Connections stay open.
func (l *PausableLink) Pause() {
	l.mu.Lock()
	select {
	case <-l.resumed:
		l.resumed = make(chan struct{})
	default: // already paused
	}
	l.mu.Unlock()
	l.inflight.Lock() // waits for writes that started before the pause
	l.inflight.Unlock()
}

// Resume forwards again, starting with the bytes held back.
func (l *PausableLink) Resume() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.resumed:
	default:
		close(l.resumed)
	}
}

// Paused reports whether the link is paused.
func (l *PausableLink) Paused() bool {
	select {
	case <-l.gate():
		return false
	default:
		return true
	}
}

// Close stops listening and closes every connection.
func (l *PausableLink) Close() error {
	err := l.ln.Close()
	l.mu.Lock()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.Resume()
	return err
}

// Cut closes every open connection now (a connection lost, as a client
// sees it); the link keeps listening, and new connections go to its
// current target.
func (l *PausableLink) Cut() {
	l.mu.Lock()
	conns := make([]net.Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

func (l *PausableLink) gate() chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.resumed
}

func (l *PausableLink) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		go l.handle(c)
	}
}

// Retarget sends the connections accepted from now on to target (a
// loopback host:port): another server at the same address, as a client
// sees it. Open connections keep their server.
func (l *PausableLink) Retarget(target string) error {
	if !isLoopbackHostPort(target) {
		return fmt.Errorf("pausable link target %q is not a loopback address", target)
	}
	l.mu.Lock()
	l.target = target
	l.mu.Unlock()
	return nil
}

func (l *PausableLink) handle(c net.Conn) {
	l.mu.Lock()
	target := l.target
	l.mu.Unlock()
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	l.mu.Lock()
	l.conns[c], l.conns[up] = struct{}{}, struct{}{}
	l.mu.Unlock()
	l.triggers.accepted()
	done := make(chan struct{}, 2)
	go func() { l.forward(up, c, false); done <- struct{}{} }()
	go func() { l.forward(c, up, true); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	<-done
	l.mu.Lock()
	delete(l.conns, c)
	delete(l.conns, up)
	l.mu.Unlock()
}

// forward copies src to dst, holding every chunk while the link is paused;
// toClient counts the bytes for the triggers.
func (l *PausableLink) forward(dst io.Writer, src io.Reader, toClient bool) {
	buf := make([]byte, 32<<10)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			l.inflight.RLock()
			for g := l.gate(); !isClosed(g); g = l.gate() {
				l.inflight.RUnlock()
				<-g
				l.inflight.RLock()
			}
			_, werr := dst.Write(buf[:n])
			l.inflight.RUnlock()
			if werr != nil {
				return
			}
			if toClient {
				l.triggers.sent(l, n)
			}
		}
		if rerr != nil {
			return
		}
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
