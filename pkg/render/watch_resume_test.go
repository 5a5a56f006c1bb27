package render

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// summaryOf runs a session over a recorded real stream, as the watch
// command does, and renders its summary for a person.
func summaryOf(t *testing.T, stream string, o watchstream.Options) string {
	t.Helper()
	body := recordedStream(t, stream)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	sum := NewWatchSummary(o.ResourceVersion)
	s := &follow.Session{
		Client: c, Options: o,
		Target: apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "capture"},
		OnEvent: func(ev watchstream.Event, obs follow.Observation) error {
			sum.Count(NewWatchEventRecord(ev, obs, o.ResourceVersion))
			return nil
		},
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sum.SetSession(s.Stats(), s.Streak())
	var out bytes.Buffer
	if err := NewPrinter(&out, io.Discard, "", true).WatchSummary(sum); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// The summary's last RV is a resume point, labelled: never the RV of the
// last synthetic ADDED of an unset-RV watch (221 here), which comes in key
// order and says nothing about the objects not sent.
func TestWatchSummaryLastIsAResumePoint(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		opts         watchstream.Options
		want         string
	}{
		{"RV unset", "streaming.jsonl", watchstream.Options{}, "first 219, last - (no resume point: the state came in key order, not RV order, with no end marker; --rv list gives one)"},
		{"streaming list", "streaming.jsonl", watchstream.Options{SendInitialEvents: true}, "last 221 (resume point: the initial-events-end bookmark)"},
		{"exact RV", "seed.jsonl", watchstream.Options{ResourceVersion: "213", RVSet: true}, "start 213, first 214, last 221 (resume point: the last event)"},
		{"Expired", "expired.jsonl", watchstream.Options{ResourceVersion: "213", RVSet: true}, "last - (no resume point: the last RV was answered Expired or TooLarge; list again)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := summaryOf(t, c.stream, c.opts); !strings.Contains(got, c.want) {
				t.Fatalf("want %q in\n%s", c.want, got)
			}
		})
	}
}
