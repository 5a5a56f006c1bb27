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
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	cs, ns := framework.Namespace(t, c, "informer-compacted")
	w := writer{t: t, cs: cs, ns: ns}
	w.create("a")
	w.create("b")

	proxy := newCutProxy(t, strings.TrimPrefix(c.APIServers[0].URL, "https://"))
	kc, err := c.WriteKubeconfigFor("informer-via-proxy.kubeconfig", "https://"+proxy.addr, c.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	dir := artefactDir(t)
	p := startInformers(t, kc, ns, dir)
	seen := w.modify("a").ResourceVersion
	p.waitSeen("a", seen)

	p.pause()
	proxy.cut()
	x := map[string]string{}
	for _, in := range p.both() {
		x[in.Name] = lastSync(t, in)
	}
	var last string
	for i := 0; i < 5; i++ {
		last = w.modify("b").ResourceVersion
	}
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	t.Logf("X=%v, five changes up to RV %s, etcd compacted at revision %d", x, last, rev)
	proxy.restore()
	p.resume()
	for _, in := range p.both() {
		p.waitFor(in, 90*time.Second, "the relist past "+last, func(r framework.InformerRecord) bool {
			return r.Type == "lastSync" && rvNum(t, r.ResourceVersion) >= rvNum(t, last)
		})
	}

	st := rawWatchError(t, cs, ns, x["informer-v4"])
	t.Logf("raw watch from X=%s: %d %s %q", x["informer-v4"], st.Code, st.Reason, st.Message)
	if st.Code != 410 || st.Reason != "Expired" {
		t.Fatalf("a raw watch from %s: want 410 Expired, got %d %s: %s", x["informer-v4"], st.Code, st.Reason, st.Message)
	}
	rawWatchStarts(t, cs, ns, strconv.FormatInt(rev, 10), func() string { return w.modify("a").ResourceVersion })
	p.stop()

	for _, in := range p.both() {
		checkRewatchThenRelist(t, in, x[in.Name])
	}
	verbose := scanLog(t, p.verbose)
	compacted := ofKind(verbose, "EtcdCompactedWatch")
	if len(compacted) == 0 {
		t.Fatalf("informer-v4: no etcd compaction line in its log:\n%s", readFile(p.verbose.LogPath))
	}
	for _, f := range compacted {
		if !strings.Contains(f.Text, st.Message) {
			t.Errorf("line %d: the informer's error must be the server's own message %q: %s", f.Line, st.Message, f.Text)
		}
		// The message names no RV: explain-error must not invent one.
		if f.Own.Class != "Expired" || (f.Own.Requested != "" && f.Own.Requested != x["informer-v4"]) || f.Own.Oldest != "" {
			t.Errorf("line %d: explain-error says %s/%s requested=%q oldest=%q; want Expired/EtcdCompactedWatch with no RV it cannot know (or X=%s)", f.Line, f.Own.Class, f.Own.Kind, f.Own.Requested, f.Own.Oldest, x["informer-v4"])
		}
	}
	onlyRVErrorKind(t, p.verbose, verbose, "EtcdCompactedWatch")
	checkQuietLog(t, p.quiet, scanLog(t, p.quiet))
	keepForTestdata(t, p.verbose.LogPath, "etcd-compacted-cache-off-v4.log")
}
