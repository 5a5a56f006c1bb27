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
// command does, and renders its event lines and summary for a person.
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
	var out bytes.Buffer
	p := NewPrinter(&out, io.Discard, "", true)
	s := &follow.Session{
		Client: c, Options: o,
		Target: apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "capture"},
		OnEvent: func(ev watchstream.Event, obs follow.Observation) error {
			r := NewWatchEventRecord(ev, obs, o.ResourceVersion)
			sum.Count(r)
			return p.WatchEvent(r)
		},
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sum.SetSession(s.Stats(), s.Streak())
	if err := p.WatchSummary(sum); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// The summary's last RV is a resume point, labelled: never the RV of the
// last synthetic ADDED of an unset-RV watch (220 in unset.jsonl), which
// comes in key order and says nothing about the objects not sent; the
// initial-events-end bookmark wherever the server sent one (a streaming
// list, or RV unset or 0 with bookmarks, as v1.35 and later send it).
func TestWatchSummaryLastIsAResumePoint(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		opts         watchstream.Options
		want         string
	}{
		{"RV unset, no marker", "unset.jsonl", watchstream.Options{}, "first 218, last - (no resume point: the state came in key order, not RV order, and no initial-events-end bookmark marked its end before the stream or the run ended (v1.35 and later send one on a watch that asks for bookmarks: --bookmarks or --follow); --rv list gives one)"},
		{"RV unset, initial-events-end", "unset-bookmarks.jsonl", watchstream.Options{AllowBookmarks: true}, "first 218, last 220 (resume point: the initial-events-end bookmark)"},
		{"RV 0, initial-events-end", "zero-bookmarks.jsonl", watchstream.Options{ResourceVersion: "0", RVSet: true, AllowBookmarks: true}, "start 0, first 218, last 220 (resume point: the initial-events-end bookmark)"},
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

// The initial-events-end bookmark is noted wherever the server sends it,
// on any watch that sends a state (fresh user try: a watch with RV unset
// and --bookmarks on v1.37.2 showed it with no note): the recorded
// streams of RV unset and 0 with bookmarks, and a streaming list's; a
// state with no marker has no such line.
func TestWatchNotesTheInitialEventsEndOfEveryState(t *testing.T) {
	for _, c := range []struct {
		name, stream, want string
		opts               watchstream.Options
	}{
		{"RV unset", "unset-bookmarks.jsonl", "initial state complete at RV 220: 2 objects", watchstream.Options{AllowBookmarks: true}},
		{"RV 0", "zero-bookmarks.jsonl", "initial state complete at RV 220: 2 objects", watchstream.Options{ResourceVersion: "0", RVSet: true, AllowBookmarks: true}},
		{"streaming list", "streaming.jsonl", "initial state complete at RV 221: 2 objects", watchstream.Options{SendInitialEvents: true}},
		{"RV unset, no marker", "unset.jsonl", "", watchstream.Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := summaryOf(t, c.stream, c.opts)
			if c.want == "" {
				if strings.Contains(got, "initial state complete") {
					t.Fatalf("no marker came, yet:\n%s", got)
				}
				return
			}
			var line string
			for _, l := range strings.Split(got, "\n") {
				if strings.Contains(l, "BOOKMARK") && !strings.Contains(l, "Events:") {
					line = l
				}
			}
			if !strings.HasSuffix(line, c.want) {
				t.Fatalf("want the bookmark's line to end %q, got %q in\n%s", c.want, line, got)
			}
		})
	}
}
