//go:build e2e

package informerlog

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestInformerEtcdCompactionWithWatchCacheOff: with the watch cache off for
// configmaps, a watch goes to etcd itself. The informer's connection is cut
// (it is frozen meanwhile), five changes are made and etcd is compacted at
// its current revision; reconnected, the informer rewatches from its last
// RV X, below the compaction point: etcd's 410 "The resourceVersion for the
// provided watch is too old." (no numbers in it), then a relist.
func TestInformerEtcdCompactionWithWatchCacheOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := startProxied(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"}, "informer-compacted")
	_, x := s.cutOff()
	var last string
	for i := 0; i < 5; i++ {
		last = s.w.Modify("b").ResourceVersion
	}
	rev, err := s.c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	t.Logf("X=%v, five changes up to RV %s, etcd compacted at revision %d", x, last, rev)
	s.reconnect()
	s.p.waitRelistPast(last, 90*time.Second)

	st := rawExpired(t, s.cs, s.ns, x["informer-v4"])
	rawWatchStarts(t, s.cs, s.ns, strconv.FormatInt(rev, 10), func() string { return s.w.Modify("a").ResourceVersion })
	s.p.stop()

	checkLogs(t, s.p, x, "EtcdCompactedWatch", "etcd-compacted-cache-off-v4.log", func(f finding) {
		if !strings.Contains(f.Text, st.Message) {
			t.Errorf("line %d: the informer's error must be the server's own message %q: %s", f.Line, st.Message, f.Text)
		}
		// The message names no RV: explain-error must not invent one.
		if f.Own.Class != "Expired" || (f.Own.Requested != "" && f.Own.Requested != x["informer-v4"]) || f.Own.Oldest != "" {
			t.Errorf("line %d: explain-error says %s/%s requested=%q oldest=%q; want Expired/EtcdCompactedWatch with no RV it cannot know (or X=%s)", f.Line, f.Own.Class, f.Own.Kind, f.Own.Requested, f.Own.Oldest, x["informer-v4"])
		}
	})
}
