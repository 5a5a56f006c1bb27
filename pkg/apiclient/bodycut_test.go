package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Every break of a body after its head is one *BodyCutError, whatever
// broke it: the request named once, the bytes read, the cause in words
// (adversary try 49 F4-F6); what is no break (the body's end, a read the
// plugin ended itself, a bound, a refused answer) is kept as it was.
func TestBodyCutIsOneWordingOfEveryBreak(t *testing.T) {
	req, _ := http.NewRequest("GET", "https://admin:secret@h:6443/api/v1/configmaps?limit=500&timeout=32s", nil)
	metrics, _ := http.NewRequest("GET", "https://h/metrics?name%5B%5D=a&name%5B%5D=b", nil)
	watch, _ := http.NewRequest("GET", "https://h/api/v1/configmaps?watch=1&resourceVersion=100", nil)
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, c := range []struct {
		name string
		req  *http.Request
		kind BodyKind
		err  error
		want string
	}{
		{"short", req, KindList, io.ErrUnexpectedEOF, "the answer to GET /api/v1/configmaps?limit=500 broke off after 2,000 bytes: the connection closed before the answer's end"},
		{"reset", req, KindList, reset, "the answer to GET /api/v1/configmaps?limit=500 broke off after 2,000 bytes: the connection was reset"},
		{"reset, metrics", metrics, KindMetrics, reset, "the answer to GET /metrics (2 families) broke off after 2,000 bytes: the connection was reset"},
		{"short, watch", watch, KindWatch, fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF), "the watch stream of GET /api/v1/configmaps?resourceVersion=100&watch=1 broke off after 2,000 bytes: the connection closed before the answer's end"},
		{"http2 lost", req, KindList, errors.New("http2: client connection lost"), "broke off after 2,000 bytes: the connection was lost (HTTP/2's health check"},
		{"http2 stream reset", req, KindList, http2Lost(errors.New("stream error: stream ID 3; INTERNAL_ERROR; received from peer")), "broke off after 2,000 bytes: the server reset the request's HTTP/2 stream (RST_STREAM INTERNAL_ERROR)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := bodyCut(c.req, c.kind, 2000, c.err)
			var cut *BodyCutError
			if !errors.As(err, &cut) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a *BodyCutError saying %q", err, c.want)
			}
			for _, goWords := range []string{"EOF", "read tcp", "connection reset by peer", "secret", "timeout=", "GET GET", "http2:"} {
				if strings.Contains(err.Error(), goWords) {
					t.Errorf("%q says %q", err, goWords)
				}
			}
			if diagnose.ClassifyFailure(err) != diagnose.FailureConnectionBroken || !errors.Is(err, c.err) {
				t.Errorf("%q: class %v, or it does not unwrap to net/http's error", err, diagnose.ClassifyFailure(err))
			}
		})
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	done := req.WithContext(cancelled)
	for _, c := range []struct {
		name string
		req  *http.Request
		err  error
	}{
		{"the body's end", req, io.EOF},
		{"a read the plugin ended (its context done)", done, io.ErrUnexpectedEOF},
		{"a reset under a done context", done, reset},
		{"the request's time bound", req, &DeadlineError{Err: io.ErrUnexpectedEOF, Within: time.Second, Body: true}},
		{"the cap", req, &BodyTooLargeError{Kind: KindList}},
		{"a refused answer", req, &UnreadableAnswerError{What: "a chunked body whose framing is broken", Err: io.ErrUnexpectedEOF}},
		{"a body closed by the plugin", req, errors.New("http: read on closed response body")},
	} {
		t.Run("kept: "+c.name, func(t *testing.T) {
			if got := bodyCut(c.req, KindList, 2000, c.err); got != c.err {
				t.Errorf("got %v, want %v kept", got, c.err)
			}
		})
	}
}
