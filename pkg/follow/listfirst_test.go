package follow

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// A --timeout that runs out while the first list of --rv list is still
// paging has started no watch: the run fails as a request without an
// answer in time (NoAnswer), never "timeout" with 0 streams as if all were
// well. The server is slow: each page (the three recorded from the real
// v1.37.2 server) takes 600 ms, and the time is 1 s.
func TestTimeoutBeforeTheFirstListCompletesIsAFailure(t *testing.T) {
	var pages [][]byte
	for _, name := range []string{"page1.json", "page2.json", "page3.json"} {
		b, err := os.ReadFile(filepath.Join("..", "listing", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	var watches, lists atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			watches.Add(1)
			return
		}
		select {
		case <-time.After(600 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(pages[int(lists.Add(1)-1)%len(pages)])
	}))
	defer srv.Close()
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{Client: c, Target: cmTarget(), ListFirst: true, Options: watchstream.Options{},
		OnEvent: func(watchstream.Event, Observation) error { return nil }}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err = s.Run(ctx)
	var incomplete *ListIncompleteError
	if !errors.As(err, &incomplete) || s.End() != EndError || s.Stats().Streams != 0 || watches.Load() != 0 {
		t.Fatalf("Run = %v, End %q, %d streams, %d watches sent; want a ListIncompleteError, End error, no watch", err, s.End(), s.Stats().Streams, watches.Load())
	}
	if f := diagnose.ClassifyFailure(err); f != diagnose.FailureNoAnswer {
		t.Fatalf("class %s, want NoAnswer", f)
	}
}
