//go:build e2e

package watch

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// update rewrites pkg/watchstream/testdata from this run's real streams:
//
//	WATCHRV_CLUSTER_BIN=$(bash test/cluster/build.sh) go test -tags e2e -run Capture ./test/e2e/watch/ -update
var update = flag.Bool("update", false, "rewrite pkg/watchstream/testdata with streams captured from the real API server")

// acceptMetadata is the Accept header the plugin's watches send.
const acceptMetadata = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"

// captureStream reads up to n events of a raw watch exactly as the server
// sent them (one JSON event per line), or until the server ends the stream.
func captureStream(t *testing.T, cfg *rest.Config, path string, n int) []string {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path, nil)
	req.Header.Set("Accept", acceptMetadata)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	dec := json.NewDecoder(resp.Body)
	var lines []string
	for len(lines) < n {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		lines = append(lines, string(raw))
	}
	return lines
}

// eventTypes is the sequence of types of a captured stream.
func eventTypes(t *testing.T, lines []string) string {
	t.Helper()
	var types []string
	for _, l := range lines {
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("captured line is not an event: %v: %s", err, l)
		}
		types = append(types, ev.Type)
	}
	return strings.Join(types, ",")
}

// TestCaptureWatchStreams records the real streams the unit tests and the
// benchmark decode. Without -update it checks that the stored files still
// have the shape the server sends today.
func TestCaptureWatchStreams(t *testing.T) {
	t.Parallel()
	c := framework.StartT(t, framework.APIServerOptions{})
	cs, ns := newNamespace(t, c, "capture")
	w := cmWriter{t: t, cs: cs, ns: ns}
	w.create("a", map[string]string{"app": "on"})
	createB := w.create("b", map[string]string{"app": "on"}).ResourceVersion
	w.modify("a")
	w.remove("b")
	w.create("c", map[string]string{"app": "on"})
	w.modify("c")
	w.update("a", func(cm *corev1.ConfigMap) { cm.Labels["app"] = "off" })
	w.update("a", func(cm *corev1.ConfigMap) { cm.Labels["app"] = "on" })
	w.remove("c")
	w.create("c", map[string]string{"app": "on"})
	cfg := c.RESTConfig(0)
	base := "/api/v1/namespaces/" + ns + "/configmaps?watch=1"

	got := map[string][]string{
		"seed.jsonl":      captureStream(t, cfg, base+"&resourceVersion="+createB+"&timeoutSeconds=2", 100),
		"selector.jsonl":  captureStream(t, cfg, base+"&labelSelector=app%3Don&resourceVersion="+createB+"&timeoutSeconds=2", 100),
		"streaming.jsonl": captureStream(t, cfg, base+"&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=", 3),
		// A watch with RV unset (or 0) that asks for bookmarks: the state,
		// then the initial-events-end bookmark (v1.35 and later: the
		// matrix's checkStateEndMarker); without bookmarks, the state and
		// no marker.
		"unset-bookmarks.jsonl": captureStream(t, cfg, base+"&labelSelector=app%3Don&allowWatchBookmarks=true", 3),
		"zero-bookmarks.jsonl":  captureStream(t, cfg, base+"&labelSelector=app%3Don&allowWatchBookmarks=true&resourceVersion=0", 3),
		"unset.jsonl":           captureStream(t, cfg, base+"&labelSelector=app%3Don&timeoutSeconds=1", 100),
		"toolarge.jsonl": captureStream(t, cfg, fmt.Sprintf("%s&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=%d",
			base, rvNum(t, createB)+1000000), 1),
	}
	if err := c.RestartAPIServer(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	got["expired.jsonl"] = captureStream(t, cfg, base+"&resourceVersion="+createB, 1)

	want := map[string]string{
		"seed.jsonl":            "MODIFIED,DELETED,ADDED,MODIFIED,MODIFIED,MODIFIED,DELETED,ADDED",
		"selector.jsonl":        "MODIFIED,DELETED,ADDED,MODIFIED,DELETED,ADDED,DELETED,ADDED",
		"streaming.jsonl":       "ADDED,ADDED,BOOKMARK",
		"unset-bookmarks.jsonl": "ADDED,ADDED,BOOKMARK",
		"zero-bookmarks.jsonl":  "ADDED,ADDED,BOOKMARK",
		"unset.jsonl":           "ADDED,ADDED",
		"toolarge.jsonl":        "ERROR",
		"expired.jsonl":         "ERROR",
	}
	dir := filepath.Join(framework.RepoRoot(), "pkg", "watchstream", "testdata")
	for name, lines := range got {
		if types := eventTypes(t, lines); types != want[name] {
			t.Fatalf("%s: the server sent %s, want %s", name, types, want[name])
		}
		if strings.HasSuffix(want[name], "BOOKMARK") && !strings.Contains(lines[len(lines)-1], `"k8s.io/initial-events-end":"true"`) {
			t.Fatalf("%s: the last bookmark is not the initial-events-end one: %s", name, lines[len(lines)-1])
		}
		path := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		stored, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v: run this test with -update to capture it", err)
		}
		if types := eventTypes(t, strings.Split(strings.TrimSpace(string(stored)), "\n")); types != want[name] {
			t.Fatalf("stored %s has %s, the server sends %s now: run with -update", name, types, want[name])
		}
	}
}
