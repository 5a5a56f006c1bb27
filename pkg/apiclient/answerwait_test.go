package apiclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// A get or list with no time bound of its own ends as "no answer" once
// AnswerWait passed with no answer begun, and its error says which bound
// it was; an answer that began in time is read to its end however long
// its body takes; a watch is never bounded by it.
func TestAnAnswerThatNeverBeginsEndsAtAnswerWait(t *testing.T) {
	defer func(d time.Duration) { answerWait = d }(answerWait)
	answerWait = 300 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow-body":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			time.Sleep(2 * answerWait) // the body is slow, the answer began
			io.WriteString(w, `{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[]}`)
		default:
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	}))
	defer srv.Close()
	c, err := NewClient(Wrap(&rest.Config{Host: srv.URL}, nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	_, err = c.Get(ctx, "/api/v1/configmaps", nil, "application/json")
	var d *DeadlineError
	if !errors.As(err, &d) || !d.Unbounded || !AnswerWaitPassed(err) || !strings.Contains(err.Error(), "no answer began within 300ms, the plugin's bound for an answer to begin") {
		t.Fatalf("a list that never answers: %v", err)
	}
	// What happened, only that (adversary try 20 #3): no 504 the server
	// never sent.
	if strings.Contains(err.Error(), "504") {
		t.Fatalf("the error claims a 504: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("it took %s", took)
	}
	body, err := c.Get(ctx, "/slow-body", nil, "application/json")
	if err != nil {
		t.Fatalf("an answer that began in time: %v", err)
	}
	if b, err := io.ReadAll(body); err != nil || !strings.Contains(string(b), "ConfigMapList") {
		t.Fatalf("its body, slower than AnswerWait, was cut: %q, %v", b, err)
	}
	body.Close()
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start = time.Now()
	_, err = c.Get(wctx, "/api/v1/configmaps", map[string][]string{"watch": {"1"}}, "application/json")
	if took := time.Since(start); err == nil || took < time.Second {
		t.Fatalf("a watch ended after %s (%v): AnswerWait is not a watch's bound", took, err)
	}
}

// A --request-timeout given by the user is the bound of an answer that has
// not begun, not AnswerWait (adversary try 20 #3: a server configured with
// a longer request timeout answered at 90 s; the plugin cut it at 75 s).
func TestARequestTimeoutIsTheBoundOfAnAnswerToBegin(t *testing.T) {
	defer func(d time.Duration) { answerWait = d }(answerWait)
	answerWait = 300 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * answerWait)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[]}`)
	}))
	defer srv.Close()
	c, err := NewClient(Wrap(&rest.Config{Host: srv.URL, Timeout: 5 * time.Second}, nil))
	if err != nil {
		t.Fatal(err)
	}
	body, err := c.Get(context.Background(), "/api/v1/configmaps", nil, "application/json")
	if err != nil {
		t.Fatalf("an answer that began within --request-timeout, after AnswerWait: %v", err)
	}
	if b, err := io.ReadAll(body); err != nil || !strings.Contains(string(b), "ConfigMapList") {
		t.Fatalf("its body: %q, %v", b, err)
	}
	body.Close()
	short, err := NewClient(Wrap(&rest.Config{Host: srv.URL, Timeout: 100 * time.Millisecond}, nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = short.Get(context.Background(), "/api/v1/configmaps", nil, "application/json")
	if err == nil || AnswerWaitPassed(err) || !strings.Contains(err.Error(), "no answer within 100ms, the request's time bound") {
		t.Fatalf("a --request-timeout below AnswerWait ends the wait as itself: %v", err)
	}
}
