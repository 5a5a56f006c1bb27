//go:build e2e

package aggregated

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// event is one watch event as it arrives on the wire.
type event struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name            string            `json:"name"`
			ResourceVersion string            `json:"resourceVersion"`
			Annotations     map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

func (e event) initialEventsEnd() bool {
	return e.Type == "BOOKMARK" && e.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true"
}

// streamingQuery is what a client-go >= 1.35 informer sends for its
// initial list (a streaming list).
const streamingQuery = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion="

// collectWatch opens a watch on path?query through the API server of cfg
// and returns the events received until the initial-events-end bookmark
// (ended=true) or until wait passes (stillOpen=true: the server had not
// ended the stream).
func collectWatch(t *testing.T, cfg *rest.Config, path, query string, wait time.Duration) (events []event, ended, stillOpen bool) {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path+"?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("watch %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: HTTP %d", path, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("watch %s: undecodable event %q: %v", path, sc.Text(), err)
		}
		events = append(events, e)
		if e.initialEventsEnd() {
			return events, true, true
		}
	}
	return events, false, ctx.Err() != nil
}
