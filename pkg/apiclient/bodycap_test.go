package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// endless is a body that never ends: its head, then chunk again and again.
type endless struct {
	head, chunk []byte
	read        int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	if e.read < int64(len(e.head)) {
		n = copy(p, e.head[e.read:])
	}
	for n < len(p) {
		n += copy(p[n:], e.chunk)
	}
	e.read += int64(n)
	return n, nil
}

func (e *endless) Close() error { return nil }

// A whole body may be exactly as long as its cap; one byte more is a
// BodyTooLargeError that names the request, the limit and the fix, and
// the cap stops reading right there.
func TestCapBodyWholeBodyLimit(t *testing.T) {
	tmpl := &BodyTooLargeError{Kind: KindVersion, Method: "GET", URL: "https://127.0.0.1:6443/version"}
	exact := newCapBody(io.NopCloser(bytes.NewReader(make([]byte, LimitVersion))), tmpl, nil)
	if b, err := io.ReadAll(exact); err != nil || len(b) != LimitVersion {
		t.Fatalf("a body of exactly the limit: %d bytes, %v", len(b), err)
	}
	src := &endless{head: []byte(`{"gitVersion":"`), chunk: []byte("v1.37.2")}
	over := newCapBody(src, tmpl, nil)
	b, err := io.ReadAll(over)
	var big *BodyTooLargeError
	if !errors.As(err, &big) || len(b) != LimitVersion {
		t.Fatalf("an endless body: %d bytes, %v; want %d bytes and a BodyTooLargeError", len(b), err, LimitVersion)
	}
	if src.read > LimitVersion+1 {
		t.Fatalf("the cap read %d bytes of the source, more than the limit + 1", src.read)
	}
	msg := err.Error()
	for _, want := range []string{"GET https://127.0.0.1:6443/version", "the answer to GET https://127.0.0.1:6443/version went past 64 KiB, the limit of a /version answer", "check the kubeconfig's server address"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("the error is not one line: %q", msg)
	}
	if _, err := over.Read(make([]byte, 10)); !errors.As(err, &big) {
		t.Fatalf("a read after the error: %v, want the same error", err)
	}
}

// A watch is capped per frame: a stream of small events goes on past the
// limit, a single event that never ends stops at the limit. The decoder
// drives it as watchstream does (StartFrame at each InputOffset).
func TestCapBodyFramesAreCappedOneByOne(t *testing.T) {
	decodeAll := func(r io.ReadCloser, limit int64) (int, error) {
		b := newCapBody(r, &BodyTooLargeError{Kind: KindWatch, Method: "GET", URL: "/api/v1/configmaps?watch=1"}, nil)
		b.limit = limit
		dec := json.NewDecoder(b)
		for n := 0; ; n++ {
			b.StartFrame(dec.InputOffset())
			var v map[string]any
			if err := dec.Decode(&v); err != nil {
				if err == io.EOF {
					return n, nil
				}
				return n, err
			}
		}
	}
	event := `{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}` + "\n"
	many := strings.Repeat(event, 1000) // 1000 frames, 77 KB, far past a 1 KiB limit
	if n, err := decodeAll(io.NopCloser(strings.NewReader(many)), 1024); err != nil || n != 1000 {
		t.Fatalf("small frames past the limit in total: %d events, %v", n, err)
	}
	// A frame exactly at the limit passes.
	exact := event[:len(event)-1]
	if n, err := decodeAll(io.NopCloser(strings.NewReader(exact)), int64(len(exact))); err != nil || n != 1 {
		t.Fatalf("a frame of exactly the limit: %d events, %v", n, err)
	}
	big := `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 2000) + `"}}}`
	var tooLarge *BodyTooLargeError
	if n, err := decodeAll(io.NopCloser(strings.NewReader(event+big+event)), 1024); !errors.As(err, &tooLarge) || n != 1 {
		t.Fatalf("a frame over the limit: %d events, %v; want 1 and a BodyTooLargeError", n, err)
	}
	// An event that never ends, without a newline: at the real limit,
	// the decoder has read no more than it.
	src := &endless{head: []byte(`{"type":"ADDED","object":{"metadata":{"name":"`), chunk: []byte(strings.Repeat("y", 4000))}
	if _, err := decodeAll(src, LimitWatchFrame); !errors.As(err, &tooLarge) || src.read > LimitWatchFrame+1 {
		t.Fatalf("an endless frame: %v after %d bytes; want a BodyTooLargeError within %d bytes", err, src.read, LimitWatchFrame)
	}
	if msg := tooLarge.Error(); !strings.Contains(msg, "16 MiB") || !strings.Contains(msg, "one watch event") || !strings.Contains(msg, "client-go refuses") {
		t.Fatalf("the frame error: %s", msg)
	}
}

// Every client built from a config gets the cap, through Wrap or not, and
// client-go's own reads (an error body, Do().Raw()) keep the error in the
// chain, so its class and exit code hold whoever read the body.
func TestEveryClientReadsThroughTheCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("z", 32<<10))
		switch r.URL.Path {
		case "/version":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"gitVersion":"`))
		case "/api/v1/configmaps":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
		default:
			w.WriteHeader(http.StatusOK)
		}
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	for name, cfg := range map[string]*rest.Config{
		"NewClient alone": {Host: srv.URL},
		"Wrap":            Wrap(&rest.Config{Host: srv.URL}, NewLedger()),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var big *BodyTooLargeError
			if _, err := c.ServerVersion(ctx); !errors.As(err, &big) || big.Kind != KindVersion {
				t.Errorf("endless /version: %v", err)
			}
			if _, err := c.Get(ctx, "/api/v1/configmaps", url.Values{}, AcceptMetadataList); !errors.As(err, &big) || big.Kind != KindError || big.Status != 500 || !strings.Contains(err.Error(), "500 Internal Server Error") {
				t.Errorf("endless error body: %v", err)
			}
			body, err := c.GetMetrics(ctx, "apiserver_request_total")
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, body)
			body.Close()
			if !errors.As(err, &big) || big.Kind != KindMetrics || n != LimitMetrics {
				t.Errorf("endless /metrics: %d bytes, %v", n, err)
			}
			if !strings.Contains(big.URL, "name%5B%5D=apiserver_request_total") {
				t.Errorf("GetMetrics did not ask for the family by name[]: %s", big.URL)
			}
		})
	}
	// cli-runtime's discovery builds its own client from the wrapped config.
	hc, err := rest.HTTPClientFor(Wrap(&rest.Config{Host: srv.URL}, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(srv.URL + "/apis")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	var big *BodyTooLargeError
	if !errors.As(err, &big) || big.Kind != KindDiscovery || n != LimitDiscovery {
		t.Fatalf("endless discovery through a plain client of a wrapped config: %d bytes, %v", n, err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 16 << 20: "16 MiB", 3 << 30: "3 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
