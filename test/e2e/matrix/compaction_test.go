//go:build e2e

package matrix

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// kineMinRetain is kine's --compact-min-retain default: it never compacts
// closer than this to the current RV, whoever asks.
const kineMinRetain = 1000

// factCompaction (watch cache off, so that lists and watches reach
// storage): a compaction at the current RV is in force at once on etcd; on
// kine it stops kineMinRetain short. An object whose previous version is
// below the compaction point, modified afterwards, is delivered by etcd to
// a watch from just below the change; kine sends that event without PrevKv
// and the API server ends the watch with a 500.
func factCompaction(t *testing.T, s *server, cell framework.Cell) {
	ctx := context.Background()
	cs, ns := framework.Namespace(t, s.c, "compaction")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("old", nil)
	filler := 3
	if cell.Storage == "kine" {
		filler = kineMinRetain + 50
	}
	if err := framework.CreateConfigMaps(ctx, cs, ns, "fill", filler, 8, 8); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	cur, _ := s.list(path, nil)
	if err := s.c.Compact(ctx, int64(cur)); err != nil {
		t.Fatalf("compact at %d: %v", cur, err)
	}
	exact := func(rv uint64) int {
		code, _ := s.get(path, url.Values{"resourceVersion": {strconv.FormatUint(rv, 10)}, "resourceVersionMatch": {"Exact"}, "limit": {"1"}})
		return code
	}
	below := exact(cur - 1)
	t.Logf("compacted at %d: exact list at %d -> %d", cur, cur-1, below)
	if cell.Storage == "kine" {
		farBelow := exact(cur - kineMinRetain - 10)
		t.Logf("kine: exact list at %d -> %d", cur-kineMinRetain-10, farBelow)
		if below != http.StatusOK || farBelow != http.StatusGone {
			t.Errorf("kine: want the compaction clamped to current-%d (exact list at current-1 200, at current-%d 410), got %d and %d", kineMinRetain, kineMinRetain+10, below, farBelow)
		}
	} else if below != http.StatusGone {
		t.Errorf("etcd: want the compaction in force at once (exact list at current-1 410), got %d", below)
	}

	m := framework.RVNum(t, w.Modify("old").ResourceVersion)
	got := s.watch(path, url.Values{"resourceVersion": {strconv.FormatUint(m-1, 10)}, "timeoutSeconds": {"10"}}, 20*time.Second,
		func(e event) bool { return e.Type != "" })
	if got.Code != http.StatusOK || len(got.Events) == 0 {
		t.Fatalf("watch from %d: %d, %d events %s", m-1, got.Code, len(got.Events), got.Body)
	}
	first := got.Events[0]
	t.Logf("old modified at %d; watch from %d: first event %s %s %d %q", m, m-1, first.Type, first.Object.Metadata.Name, first.Object.Code, first.Object.Message)
	if cell.Storage == "kine" {
		if first.Type != "ERROR" || first.Object.Code != 500 || !strings.Contains(first.Object.Message, "PrevKv=nil") {
			t.Fatalf("kine: want ERROR 500 'PrevKv=nil' for an object whose previous version is compacted, got %s %d %q", first.Type, first.Object.Code, first.Object.Message)
		}
		// ... and the server closes the stream right after it.
		rest := s.watch(path, url.Values{"resourceVersion": {strconv.FormatUint(m-1, 10)}, "timeoutSeconds": {"10"}}, 20*time.Second, nil)
		if !rest.Ended || rest.Took > 5*time.Second || len(rest.Events) != 1 {
			t.Fatalf("kine: want the stream closed right after the PrevKv=nil error, got %d events, ended=%v after %s", len(rest.Events), rest.Ended, rest.Took)
		}
		return
	}
	if first.Type != "MODIFIED" || first.Object.Metadata.Name != "old" {
		t.Fatalf("etcd: want MODIFIED old, got %s %s %q", first.Type, first.Object.Metadata.Name, first.Object.Message)
	}
}
