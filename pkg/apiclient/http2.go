package apiclient

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// ConnectionLostError is a request, or its answer's body, that the server
// ended at the HTTP/2 level: a GOAWAY (a server that shuts down sends
// one with NO_ERROR, and kube-apiserver's --goaway-chance sends them at
// random) or a RST_STREAM of the request's stream. It is a connection
// lost (exit 4, and --follow reconnects), said in words, where net/http
// gives no more than its frame ("http2: server sent GOAWAY and closed the
// connection; LastStreamID=...", "stream error: stream ID 7;
// PROTOCOL_ERROR; received from peer"; adversary try 14: exit 1, raw).
type ConnectionLostError struct {
	What string
	Err  error
	// Sent is how many times net/http sent the request (Sent.Again).
	Sent Sent
}

func (e *ConnectionLostError) Error() string {
	if again := e.Sent.Again(); again != "" {
		return e.What + " (" + again + ")"
	}
	return e.What
}

// Unwrap is net/http's error, except for a connection closed or reset
// before the answer (Err nil): client-go's rest client would retry such a
// GET by itself, ten times a second apart, past the time bound (adversary
// try 15: "context deadline exceeded - error from a previous attempt:
// connection reset by peer"); the plugin's own layers send it no more.
// net/http itself may have sent it more than once, below the plugin: a GET
// whose kept-alive HTTP/1 connection was closed or reset before any answer
// goes out again on another connection (Sent counts every send, and the
// words say so).
func (e *ConnectionLostError) Unwrap() error { return e.Err }

// FailureClass: a connection that broke.
func (e *ConnectionLostError) FailureClass() diagnose.Failure {
	return diagnose.FailureConnectionBroken
}

// http2Lost is err as a *ConnectionLostError when it is net/http's HTTP/2
// client saying the server ended the connection or the stream (its errors
// have no exported type: they are known by their text); any other err is
// kept.
func http2Lost(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "http2: server sent GOAWAY and closed the connection"):
		return &ConnectionLostError{What: fmt.Sprintf("the server closed the HTTP/2 connection (GOAWAY %s): a server that shuts down, or spreads its clients, sends it", field(msg, "ErrCode=", ",")), Err: err}
	case strings.Contains(msg, "http2: Transport received GOAWAY from server ErrCode:"):
		return &ConnectionLostError{What: fmt.Sprintf("the server ended the HTTP/2 connection (GOAWAY %s)", field(msg, "ErrCode:", " ")), Err: err}
	case strings.Contains(msg, "stream error: stream ID ") && strings.Contains(msg, "received from peer"):
		code := "?"
		if parts := strings.Split(msg[strings.Index(msg, "stream error: stream ID "):], "; "); len(parts) >= 2 {
			code = parts[1]
		}
		return &ConnectionLostError{What: fmt.Sprintf("the server reset the request's HTTP/2 stream (RST_STREAM %s)", code), Err: err}
	}
	return err
}

// closedBeforeAnswer is err, a request that got no answer because the
// server closed or reset the connection, as a *ConnectionLostError that
// neither unwraps to nor says the words client-go retries on (a reset,
// EOF); any other err is kept.
func closedBeforeAnswer(err error) error {
	var lost *ConnectionLostError
	if err == nil || errors.As(err, &lost) {
		return err
	}
	switch msg := err.Error(); {
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(msg, "connection reset by peer"):
		return &ConnectionLostError{What: "the server reset the connection before its answer came"}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || msg == "http: server closed idle connection" || strings.HasSuffix(msg, ": EOF"):
		return &ConnectionLostError{What: "the server closed the connection before its answer came"}
	}
	return err
}

// ClosedBeforeAnswer: err is a request whose connection the server
// closed or reset before any answer (closedBeforeAnswer).
func ClosedBeforeAnswer(err error) bool {
	var lost *ConnectionLostError
	return errors.As(err, &lost) && lost.Err == nil
}

// field is the text of msg after key up to end (or the end of msg).
func field(msg, key, end string) string {
	_, rest, ok := strings.Cut(msg, key)
	if !ok {
		return "?"
	}
	if i := strings.Index(rest, end); i >= 0 {
		rest = rest[:i]
	}
	return rest
}
