package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// protobufMagic starts every Kubernetes protobuf body (k8s.io/apimachinery
// runtime/serializer/protobuf).
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// errorMessageLimit bounds the message made of an error body that is not
// a Status: enough for a proxy's sentence, not a page of HTML.
const errorMessageLimit = 512

// asStatus makes every error answer (HTTP 4xx and 5xx) a JSON Status whose
// code is the HTTP status and whose message is the server's own words.
// client-go classifies an error answer by its decoded Status alone
// (rest.Result.Error: errors.FromObject), so a 404 whose Status has no
// code (or code 200) is no NotFound and a 422 no Invalid; and for an
// answer that is not a Status (a proxy's HTML or text) it invents a
// reason and a message of its own (a 502 is "InternalError", a 503 "the
// server is currently unable to handle the request"), dropping what the
// server said. Every command would misname the failure, exit with the
// wrong code, or hide the server's words. The meter calls asStatus on
// every answer, under every client and discovery, so no caller can meet
// such an answer.
//
// A Status keeps all it says but its code, which is the HTTP status (the
// one a real API server writes into both). Any other body becomes the
// message of a Status without a reason (the error line then names the
// code by HTTP's words: "502 Bad Gateway"), one line, at most
// errorMessageLimit bytes.
//
// The body is rewritten as the caller reads it, not here: the answer's
// head returns at once, and a body that trickles is read under the
// caller's context and timeouts, as any body is (adversary try 10: read
// here, a 410 whose body trickled was "no answer", its code lost), and
// within its own bound (within): a watch's client has no whole-request
// timeout, and a 410 whose body never ended held a watch until its stall
// timeout (adversary try 11). resp.Body is already capped (error bodies
// are capped small): a body past the cap fails the caller's read with the
// cap's error; one cut or timed out is read as a Status of the answer's
// code saying so.
func asStatus(resp *http.Response, within time.Duration, en *entry) *http.Response {
	if resp.StatusCode < 400 {
		return resp
	}
	code := resp.StatusCode
	var rewrite func([]byte) []byte
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/vnd.kubernetes.protobuf":
		// client-go decodes a protobuf Status itself (the plugin asks
		// for JSON, so only a server that ignored it sends one); a body
		// without protobuf's envelope is text under a wrong type.
		rewrite = func(body []byte) []byte {
			if bytes.HasPrefix(body, protobufMagic) {
				return body
			}
			// client-go reads the type after the body (transformResponse).
			resp.Header.Set("Content-Type", "application/json")
			return statusOf(code, body)
		}
	case "application/json":
		rewrite = func(body []byte) []byte {
			if filled, isStatus := withStatusCode(body, code); isStatus {
				return filled
			}
			return statusOf(code, body)
		}
	default:
		rewrite = func(body []byte) []byte { return statusOf(code, body) }
		if code == http.StatusTooManyRequests && shedByAPF(resp.Header) {
			rewrite = func(body []byte) []byte { return withAPFMark(statusOf(code, body)) }
		}
		resp.Header.Set("Content-Type", "application/json")
	}
	if seconds := retryAfterHeader(resp.Header); seconds > 0 {
		coded := rewrite
		rewrite = func(body []byte) []byte { return withRetryAfter(coded(body), seconds) }
	}
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	resp.Body = &rewrittenBody{orig: resp.Body, rewrite: rewrite, code: code, within: within, en: en}
	return resp
}

// errorBodyWithin is how long an error answer's body may take after its
// head: a real API server writes a Status with its head, so the bound is
// short whatever the request's own timeout; a --request-timeout below it
// is the bound.
func errorBodyWithin(requestTimeout time.Duration) time.Duration {
	const most = 10 * time.Second
	if requestTimeout > 0 && requestTimeout < most {
		return requestTimeout
	}
	return most
}

// rewrittenBody reads all of orig at its first Read, then serves
// rewrite's result.
type rewrittenBody struct {
	orig    io.ReadCloser
	rewrite func([]byte) []byte
	code    int
	within  time.Duration
	en      *entry // told the Status read (the ledger's Answer)
	out     io.Reader
}

func (b *rewrittenBody) Read(p []byte) (int, error) {
	if b.out == nil {
		// Closing a body aborts a read in progress (net/http).
		var late atomic.Bool
		timer := time.AfterFunc(b.within, func() { late.Store(true); b.orig.Close() })
		body, err := io.ReadAll(b.orig)
		timer.Stop()
		var d *DeadlineError
		var cut *BodyCutError
		switch {
		case err != nil && late.Load():
			err = fmt.Errorf("it did not end within %s", b.within)
		case errors.As(err, &d):
			// The request's own time bound came first (the cap's
			// body said so): the same words (adversary try 14: "net/http:
			// request canceled" on a list, "did not end" on a watch).
			err = fmt.Errorf("it did not end within %s", roundBound(d.Within))
		case errors.As(err, &cut):
			// The status names the answer: the break's cause says the
			// rest ("the connection was reset").
			err = errors.New(cut.Cause)
		}
		var big *BodyTooLargeError
		var out []byte
		switch {
		case err != nil && errors.As(err, &big):
			b.out = errAfter{err} // the cap's own error names the request
			return b.out.Read(p)
		case err != nil:
			// The status came, its body did not (cut, or a timeout): the
			// answer is read as a Status of that code saying so, so its
			// class (a 410 is Expired) and exit code hold. Not an error
			// of the read: http.Client's timeout turns a body's error
			// into a string, and the status would be lost with it.
			out = statusOf(b.code, []byte(fmt.Sprintf(statusWithoutBody+" (%s read): %v", text.Count(len(body), "byte"), err)))
		default:
			out = b.rewrite(body)
		}
		var st metav1.Status
		if json.Unmarshal(out, &st) == nil && st.Code != 0 {
			b.en.answer(&st) // the ledger's Answer: the server's words
		}
		b.out = bytes.NewReader(out)
	}
	return b.out.Read(p)
}

func (b *rewrittenBody) Close() error { return b.orig.Close() }

// withStatusCode is body, with "code" set to status where it says
// another (0, missing, 200, -1, 999), if body is a JSON Status object;
// isStatus is false for any other body.
func withStatusCode(body []byte, status int) (out []byte, isStatus bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return nil, false
	}
	var kind, st, msg string
	if raw, has := obj["kind"]; has && json.Unmarshal(raw, &kind) != nil {
		return nil, false
	}
	_ = json.Unmarshal(obj["status"], &st)
	if _, hasItems := obj["items"]; !diagnose.IsStatusObject(kind, st, hasItems) {
		return nil, false
	}
	_ = json.Unmarshal(obj["message"], &msg)
	if kind == "" {
		// client-go decodes no object without its kind: a Status
		// without one (the API server's own 504 of its timeout filter)
		// gets the type it has, so that its reason and words are read.
		obj["kind"], obj["apiVersion"] = json.RawMessage(`"Status"`), json.RawMessage(`"v1"`)
	} else if raw, has := obj["code"]; has && st == "Failure" && strings.TrimSpace(msg) != "" {
		var code float64
		if json.Unmarshal(raw, &code) == nil && code == float64(status) {
			return body, true
		}
	}
	if strings.TrimSpace(msg) == "" {
		// client-go's error of a Status is its message alone: without one,
		// every line that quotes the error said nothing ("server X: )",
		// "Failed: NotFound: "; try 16). The Status says so instead.
		obj["message"], _ = json.Marshal(noMessage)
	}
	// An error answer is a failure: client-go reads a Status without
	// "status": "Failure" as no error of its own and drops its message.
	obj["code"], _ = json.Marshal(status)
	obj["status"] = json.RawMessage(`"Failure"`)
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	return out, true
}

// noMessage is the message of an error answer's Status that had none.
// Not in parentheses: the lines that quote a message put it in theirs
// (adversary try 20 #15: "/metrics not read ((the server's Status has no
// message))").
const noMessage = "the server's Status has no message"

// statusOf is the Status of an error answer of status whose body was not
// a Status: the body, one line and bounded, is its message.
func statusOf(status int, body []byte) []byte {
	msg := text.Shorten(text.OneLine(string(body)), errorMessageLimit)
	if strings.TrimSpace(msg) == "" {
		msg = "the answer has no body"
	}
	out, _ := json.Marshal(map[string]any{
		"kind":       "Status",
		"apiVersion": "v1",
		"metadata":   map[string]any{},
		"status":     "Failure",
		"code":       status,
		"message":    msg,
	})
	return out
}

// mediaType is contentType without its parameters, "" when unreadable.
func mediaType(contentType string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt
}

// errAfter is a reader that fails with err (io.EOF when nil): the read
// error of the original body, handed to the caller where it came.
type errAfter struct{ err error }

func (e errAfter) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

// statusWithoutBody begins the message of an answer whose status came and
// whose body did not (cut, or its time bound ended it).
const statusWithoutBody = "the answer's status came, its body did not"

// StatusWithoutBody: err is an answer whose status came and whose body
// did not: its code is the server's, its reason and message are not known.
func StatusWithoutBody(err error) bool {
	st, ok := diagnose.StatusOf(err)
	return ok && strings.HasPrefix(st.Message, statusWithoutBody)
}
