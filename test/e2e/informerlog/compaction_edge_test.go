//go:build e2e

package informerlog

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestInformerCompactionEdgeAtDefaultVerbosity: the one compaction case that
// a v0.37.2 informer logs at klog's default verbosity. Watch cache off; the
// informer's last RV is X; the very next etcd revision R = X+1 is a change
// of one of its configmaps; etcd is compacted at R. Its rewatch from X asks
// etcd for the events from R on, which etcd still has, but without the
// previous state of the object (compacted): the API server sends a 500
// "etcd event received with PrevKv=nil (... modRevision=R ...)", client-go
// logs "Warning: watch ended with error" at V(0), and relists. The change at
// R is lost as an event: explain-error must say so (Other /
// WatchEventLostAtCompaction), with R as the oldest RV a watch can start
// from, rather than "not an RV error".
func TestInformerCompactionEdgeAtDefaultVerbosity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := startProxied(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"}, "informer-compaction-edge")
	p := s.p

	// R must directly follow X in etcd: the API server's own writes (its
	// identity lease, every 10 s) may fall in between; then try again.
	var x, r string
	var lastSynced map[string]string
	for try := 0; ; try++ {
		x, lastSynced = s.cutOff()
		r = s.w.Modify("b").ResourceVersion
		if rvNum(t, r) == rvNum(t, x)+1 {
			break
		}
		if try == 4 {
			t.Fatalf("five tries, and another write always fell between X and R (last: X=%s R=%s)", x, r)
		}
		s.reconnect()
		p.waitSeen("b", r)
	}
	for _, in := range p.both() {
		if got := lastSynced[in.Name]; got != x {
			t.Fatalf("%s: last synced RV %s, want X=%s", in.Name, got, x)
		}
	}
	rev, _ := strconv.ParseInt(r, 10, 64)
	if err := s.c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	t.Logf("X=%s, R=%s changed b, etcd compacted at R", x, r)
	s.reconnect()
	p.waitRelistPast(r, 90*time.Second)
	for _, in := range p.both() {
		// The relist still brought b's change at R, lost as an event.
		p.waitFor(in, 30*time.Second, "b@"+r, func(rec framework.InformerRecord) bool {
			return rec.Type == "update" && rec.Name == "b" && rec.ResourceVersion == r
		})
	}
	st := rawWatchError(t, s.cs, s.ns, x)
	t.Logf("raw watch from X=%s: %d %s %q", x, st.Code, st.Reason, st.Message)
	wantMod := fmt.Sprintf("modRevision=%s,", r)
	if st.Code != 500 || !strings.Contains(st.Message, "PrevKv=nil") || !strings.Contains(st.Message, wantMod) {
		t.Fatalf("a raw watch from X=%s: want the 500 PrevKv=nil at %s, got %d %s", x, wantMod, st.Code, st.Message)
	}
	p.stop()

	for _, in := range p.both() {
		fs := scanLog(t, in)
		var edge []finding
		for _, f := range fs {
			if strings.Contains(f.Text, "PrevKv=nil") {
				edge = append(edge, f)
			}
		}
		if len(edge) == 0 {
			t.Fatalf("%s: no PrevKv=nil line in its log (explain-error found: %d):\n%s", in.Name, len(fs), readFile(in.LogPath))
		}
		for _, f := range edge {
			if !strings.Contains(f.Text, "Warning: watch ended with error") || !strings.Contains(f.Text, wantMod) {
				t.Errorf("%s line %d: want client-go's V(0) \"Warning: watch ended with error\" with %s: %s", in.Name, f.Line, wantMod, f.Text)
			}
			if f.Own.Class != "Other" || f.Own.Kind != "WatchEventLostAtCompaction" || f.Own.Oldest != r {
				t.Errorf("%s line %d: explain-error says %s/%s oldest=%q; want Other/WatchEventLostAtCompaction oldest=R=%s: a 500 caused by compaction at R, the change at R lost as an event, not a watch that merely ended:\n%s",
					in.Name, f.Line, f.Own.Class, f.Own.Kind, f.Own.Oldest, r, f.Text)
			}
		}
	}
	keepForTestdata(t, p.quiet.LogPath, "compaction-edge-prevkv-nil-v0.log")
}
