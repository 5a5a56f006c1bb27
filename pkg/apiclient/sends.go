package apiclient

import (
	"context"
	"fmt"
	"net/http/httptrace"
	"sync"
	"sync/atomic"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Sent is how many times net/http sent one request, and over which
// protocol. net/http sends a request again by itself, below every wrapper
// of the plugin (the meter, the ledger, -v), over both protocols:
//
//   - HTTP/1: a GET (any idempotent request) that went out on a kept-alive
//     connection the server (or a proxy) closed or reset before any answer
//     is sent again on another connection, and again, until it is answered
//     or fails on a fresh connection (persistConn.shouldRetryRequest): a
//     server that resets every request of a path got it 2 to 4 times.
//   - HTTP/2: a request whose stream the server refused (RST_STREAM
//     REFUSED_STREAM, or a GOAWAY that left its stream out) is sent again,
//     up to 7 times, a minute of backoff.
//
// Each send gets a connection first (httptrace's GotConn, once per send
// in both protocols): Times counts those (SendCounter).
type Sent struct {
	// Times is how many times it was sent (0: no connection was got for
	// it, or not known).
	Times int
	// HTTP2: every send went over HTTP/2.
	HTTP2 bool
}

// Again is the words for a request net/http sent more than once by itself
// ("" for once or not known), with the reason its protocol has.
func (s Sent) Again() string {
	if s.Times < 2 {
		return ""
	}
	if s.HTTP2 {
		return fmt.Sprintf("it was sent %s: the server refused its HTTP/2 stream each time, with REFUSED_STREAM or a GOAWAY before taking it, and net/http sent it again by itself", text.Count(s.Times, "time"))
	}
	closed := "1 was"
	if s.Times > 2 {
		closed = fmt.Sprintf("%d were", s.Times-1)
	}
	return fmt.Sprintf("it was sent %s: net/http sends a GET again by itself, on another connection, when the kept-alive connection it went out on is closed or reset before any answer, and %s", text.Count(s.Times, "time"), closed)
}

// SendCounter counts the sends of one request (Sent) through net/http's
// client trace: the meter's account of every request (the ledger, -v,
// cost, its errors) and a watch's own (follow) are the one count. It is
// safe for concurrent use.
type SendCounter struct {
	n, h2 atomic.Int32
}

// Trace is ctx with a client trace that counts every send of a request
// made with it in c, and calls onSend (may be nil) after each with the
// count so far. Other traces of ctx still see every event.
func (c *SendCounter) Trace(ctx context.Context, onSend func(Sent)) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if IsHTTP2(info.Conn) {
			c.h2.Add(1)
		}
		c.n.Add(1)
		if onSend != nil {
			onSend(c.Sent())
		}
	}})
}

// Sent is the count so far.
func (c *SendCounter) Sent() Sent {
	// n first: a send counts in h2 before n, so that a send under way
	// never makes an HTTP/2 request look like HTTP/1.
	n := c.n.Load()
	h2 := c.h2.Load()
	return Sent{Times: int(n), HTTP2: n > 0 && h2 >= n}
}

// Connected is ctx with a client trace that closes the channel returned
// once the first request made with it has its connection. A request that
// waits for it before it goes out shares that connection (HTTP/2): two
// requests begun at once each dial one, two TLS handshakes for what one
// does (issue 23: `list` made 2 connections where `kubectl get --raw`
// makes 1).
func Connected(ctx context.Context) (context.Context, <-chan struct{}) {
	up := make(chan struct{})
	var once sync.Once
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
		once.Do(func() { close(up) })
	}}), up
}
