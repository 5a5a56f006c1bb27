//go:build e2e

package informerlog

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestInformerMeetsALaggingServer: two API servers on one etcd; the
// informer lists and watches through a proxy on the first. The second is
// cut off from etcd, writes go on through the first, and the informer's
// connection is moved to the second, the way a balancer moves a reconnect.
// Its streaming list from its last RV X, which the second server has not
// seen, gets "Too large resource version: X, current: C" (the plugin's own
// streaming watch from X on that server shows it, exit 10). client-go
// v0.37.2 takes it without a word, even at -v=8 (the Status arrives inside
// a 200 stream, whose events are not logged): it resets to a streaming list
// from no RV (a consistent read, which waits for the server to reach etcd
// again) and syncs once the link is back. So explain-error finds no RV
// error in that log, and the docs say so.
func TestInformerMeetsALaggingServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := framework.StartHAT(t, framework.HAOptions{Servers: 2})
	cs, err := h.Cluster.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "informer-toolarge"
	if err := framework.CreateNamespace(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("a", nil)
	fresh, lagging := fmt.Sprintf("127.0.0.1:%d", h.Port), fmt.Sprintf("127.0.0.2:%d", h.Port)
	proxy := newCutProxy(t, fresh)
	kc, err := h.Cluster.WriteKubeconfigFor("informer-toolarge.kubeconfig", "https://"+proxy.addr, h.CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	in, err := framework.StartInformer(kc, ns, artefactDir(t), "informer-v8", "-v=8")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Stop(5 * time.Second) })
	p := &informerPair{t: t, quiet: in, verbose: in}
	p.waitFor(in, time.Minute, "synced", func(r framework.InformerRecord) bool { return r.Type == "synced" })

	link := h.EtcdLink(1)
	link.Pause()
	defer link.Resume()
	current, err := h.ConfigMapCacheRV(ctx, 1, ns)
	if err != nil {
		t.Fatal(err)
	}
	var x string
	for i := 0; i < 5; i++ {
		x = w.Modify("a").ResourceVersion
	}
	p.waitFor(in, 30*time.Second, "the last write", func(r framework.InformerRecord) bool { return r.Type == "lastSync" && r.ResourceVersion == x })

	// Move the informer to the lagging server. Meanwhile its connections
	// live 300 ms: its watch from X ends within a second with no event,
	// which the reflector does not take as a normal end, and it comes back
	// with a streaming list from X (a plain watch from X would be held
	// silently by the lagging server).
	proxy.retarget(lagging)
	proxy.cutAndShorten(300 * time.Millisecond)
	p.waitFor(in, 45*time.Second, "a streaming list from X", func(r framework.InformerRecord) bool {
		return r.Type == "request" && r.SendInitialEvents && r.ResourceVersion == x
	})
	proxy.restore()
	p.waitFor(in, 45*time.Second, "the streaming list from X answered by the lagging server", func(r framework.InformerRecord) bool {
		return r.Type == "request" && r.SendInitialEvents && r.ResourceVersion == x && r.Status == 200
	})
	reset := p.waitFor(in, 45*time.Second, "the reset to a consistent streaming list", func(r framework.InformerRecord) bool {
		return r.Type == "request" && r.SendInitialEvents && r.ResourceVersion == "(unset)" && r.Time > ""
	})
	// What that server answered a streaming list from X, as the plugin shows it.
	direct := framework.Run(t, h.DirectKubeconfig(1), time.Minute, "watch", "configmaps", "-n", ns, "--send-initial-events", "--rv", x, "--timeout", "10s", "-o", "json")
	want := fmt.Sprintf("Too large resource version: %s, current: %d", x, current)
	if direct.Code != 10 || !strings.Contains(direct.Stdout, want) {
		t.Fatalf("a streaming list from %s on the lagging server: exit %d, want 10 and %q:\n%s%s", x, direct.Code, want, direct.Stdout, direct.Stderr)
	}
	link.Resume()
	p.waitFor(in, time.Minute, "the sync on the caught-up server", func(r framework.InformerRecord) bool {
		return r.Type == "lastSync" && rvNum(t, r.ResourceVersion) > rvNum(t, x)
	})
	if err := in.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("the informer reset at %s after the lagging server answered its streaming list from %s (%s)", reset.Time, x, want)

	// scanLog also fails on any line naming an RV error that explain-error
	// did not report; here there is none to report.
	if found := scanLog(t, in); len(ofKind(found, "ResourceVersionTooLarge")) != 0 {
		t.Fatalf("client-go v0.37.2 was expected to log nothing of the TooLarge; explain-error found %d lines", len(found))
	}
	if strings.Contains(readFile(in.LogPath), "Too large resource version") {
		t.Fatalf("the informer's log names the TooLarge: update the docs (client-go now logs it)")
	}
	keepForTestdata(t, in.LogPath, "toolarge-v8.log")
}
