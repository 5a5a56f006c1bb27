package framework

import (
	"sync"
)

// linkTriggers let a test break a PausableLink at a point of a response
// rather than at a moment: after a number of bytes sent to the clients
// (from the API server to the plugin), pause the link (a body that stalls
// mid-way, the connection kept open) or cut it once (every open connection
// closed mid-body; new connections go through). TLS is untouched, so the
// point is a byte count, not a place in the protocol; the trigger acts at
// the end of the forwarded chunk (at most 32 KiB) that reaches it.
type linkTriggers struct {
	mu       sync.Mutex
	total    int64 // bytes sent to clients since the link started
	armedAt  int64 // total when the trigger was armed
	after    int64 // bytes after armedAt at which it fires (0: none armed)
	cut      bool  // cut, else pause
	fired    chan struct{}
	accepts  int
	acceptCh chan struct{} // closed and renewed at every accepted connection
}

// PauseAfter pauses the link once n more bytes have been sent to clients;
// the channel is closed when it has.
func (l *PausableLink) PauseAfter(n int64) <-chan struct{} { return l.triggers.arm(n, false) }

// CutAfter closes every open connection once n more bytes have been sent to
// clients, and only once: the connections made after go through. The
// channel is closed when it has.
func (l *PausableLink) CutAfter(n int64) <-chan struct{} { return l.triggers.arm(n, true) }

// BytesToClients is the number of bytes sent to clients since the link started.
func (l *PausableLink) BytesToClients() int64 {
	l.triggers.mu.Lock()
	defer l.triggers.mu.Unlock()
	return l.triggers.total
}

// Accepted is the number of connections accepted so far, and a channel
// closed at the next one.
func (l *PausableLink) Accepted() (int, <-chan struct{}) {
	t := &l.triggers
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.acceptCh == nil {
		t.acceptCh = make(chan struct{})
	}
	return t.accepts, t.acceptCh
}

func (t *linkTriggers) arm(n int64, cut bool) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.armedAt, t.after, t.cut, t.fired = t.total, max(n, 1), cut, make(chan struct{})
	return t.fired
}

func (t *linkTriggers) accepted() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.accepts++
	if t.acceptCh != nil {
		close(t.acceptCh)
	}
	t.acceptCh = make(chan struct{})
}

// sent counts n bytes just sent to a client and fires an armed trigger
// they reach.
func (t *linkTriggers) sent(l *PausableLink, n int) {
	t.mu.Lock()
	t.total += int64(n)
	fire := t.after > 0 && t.total-t.armedAt >= t.after
	cut, fired := t.cut, t.fired
	if fire {
		t.after = 0
	}
	t.mu.Unlock()
	if !fire {
		return
	}
	if cut {
		l.Cut()
	} else {
		// Not Pause: this goroutine holds no write in flight now, but Pause
		// would wait for the others, which may be this very connection's
		// other direction; closing the gate is enough to hold every next
		// chunk.
		l.mu.Lock()
		select {
		case <-l.resumed:
			l.resumed = make(chan struct{})
		default:
		}
		l.mu.Unlock()
	}
	close(fired)
}
