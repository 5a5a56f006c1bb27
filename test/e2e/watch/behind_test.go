//go:build e2e

package watch

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 23 #1: watch --follow through an address whose server
// changed (a forwarder switched from one cluster to another, the
// connection cut) reconnected from its resume point to a storage that had
// not reached it: the watch was held silently (etcd and the watch cache
// alike), a change made there was never shown, 90 s later the stall was
// put on a bookmark "from the watch cache" of a server that has none, the
// summary kept the other storage's RV as the resume point, exit 0.
//
// Here the plugin follows the shared cluster (watch cache on) through a
// link, which is then pointed at a cluster of this test's own (watch cache
// off, its RVs far below) and cut. The reconnect must find the server
// behind the resume point, say so, relist from it, show the change made
// there, count it in the summary, take the facts of the server now
// answering (no claim of a watch cache it does not have, even when its
// silence outlasts --stall-timeout), and end with that storage's resume
// point.
func TestWatchFollowNoticesAServerBehindTheResumePoint(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	on := shared
	off := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	link, err := framework.StartPausableLink(hostPort(t, on.APIServers[0].URL))
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	bundle := filepath.Join(t.TempDir(), "both.crt")
	var certs []byte
	for _, f := range []string{on.APIServers[0].CAFile, off.APIServers[0].CAFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, b...)
	}
	if err := os.WriteFile(bundle, certs, 0o600); err != nil {
		t.Fatal(err)
	}
	kc, err := on.WriteKubeconfigFor("behind-link.kubeconfig", "https://"+link.Addr(), bundle, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	csOn, ns := newNamespace(t, on, "watch-behind")
	csOff, _ := framework.Namespace(t, off, ns)
	onW, offW := cmWriter{t: t, cs: csOn, ns: ns}, cmWriter{t: t, cs: csOff, ns: ns}
	onW.create("seen-before", nil)
	offW.create("there", nil)
	for i := 0; ; i++ {
		hi, err1 := on.EtcdRevision(ctx)
		lo, err2 := off.EtcdRevision(ctx)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if hi > lo+100 {
			break
		}
		if i > 100 {
			t.Fatalf("the shared cluster's revision %d is still not above %d", hi, lo)
		}
		for j := 0; j < 50; j++ {
			if _, err := csOn.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "rv-"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}

	// --stall-timeout above the watch cache's bookmark period: silence
	// is a hang only where bookmarks are due, which the facts of the
	// server answering must decide.
	p := framework.StartPlugin(t, kc, "watch", "cm", "-n", ns, "--rv", "list", "--follow", "-o", "json", "--stall-timeout", "80s", "--timeout", "110s")
	p.WaitFor(`"record":"listed"`, 30*time.Second)
	if err := link.Retarget(hostPort(t, off.APIServers[0].URL)); err != nil {
		t.Fatal(err)
	}
	link.Cut()
	p.WaitFor(`"record":"relist"`, 60*time.Second)
	changed := offW.modify("there").ResourceVersion
	p.WaitFor(`"resourceVersion":"`+changed+`"`, 30*time.Second)
	code := p.Wait(3 * time.Minute)

	var out watchOutput
	type extra struct {
		Record       string          `json:"record"`
		Reason       string          `json:"reason"`
		ServerBehind json.RawMessage `json:"serverBehindResumePoint"`
		Server       *struct {
			WatchCache string `json:"watchCache"`
		} `json:"server"`
	}
	var extras []extra
	for _, line := range strings.Split(strings.TrimSpace(p.Stdout()), "\n") {
		var r record
		var e extra
		if json.Unmarshal([]byte(line), &r) != nil || json.Unmarshal([]byte(line), &e) != nil {
			t.Fatalf("not JSON: %q", line)
		}
		out.Records = append(out.Records, r)
		extras = append(extras, e)
	}
	all := p.Stdout() + p.Stderr()
	t.Logf("exit %d:\n%s", code, all)
	if code != 0 {
		t.Errorf("the run recovered by a relist and watched on: exit %d, want 0:\n%s", code, all)
	}
	relists := out.of("relist")
	if len(relists) != 1 {
		t.Fatalf("want one relist, after the server behind the resume point, got %d:\n%s", len(relists), all)
	}
	var relist, summary extra
	for _, e := range extras {
		switch e.Record {
		case "relist":
			relist = e
		case "summary":
			summary = e
		}
	}
	if !strings.Contains(relist.Reason, "behind the resume point") || string(relist.ServerBehind) != "true" {
		t.Errorf("the relist must say the server answering is behind the resume point: %+v", relist)
	}
	if rl := relists[0]; len(rl.Tried) != 1 || rl.Tried[0] != "" || rl.Gap == nil || len(rl.Gap.Added) != 1 || rl.Gap.Added[0].Name != "there" {
		t.Errorf("the relist must be one consistent list of the storage answering, its gap naming what it holds (there): %+v", rl)
	}
	seen := false
	for _, e := range out.events() {
		seen = seen || e.ResourceVersion == changed
	}
	s := out.summary(t)
	if !seen || string(summary.ServerBehind) != "1" || s.Relists != 1 || rvNum(t, s.LastResourceVersion) < rvNum(t, changed) {
		t.Errorf("the change made on the server answering (RV %s) must be shown, the summary count 1 server behind and 1 relist, and resume at that storage's RV: shown %v, summary %+v, serverBehindResumePoint %s", changed, seen, s, summary.ServerBehind)
	}
	if summary.Server == nil || summary.Server.WatchCache != "no" {
		t.Errorf("the summary's server facts must be of the server answering (no watch cache of configmaps): %+v", summary.Server)
	}
	for _, wrong := range []string{"a bookmark was due", "has a watch cache on the server answering"} {
		if strings.Contains(all, wrong) {
			t.Errorf("the server answering has no watch cache of configmaps; the run said %q:\n%s", wrong, all)
		}
	}
	if !strings.Contains(all, "configmaps has no watch cache on this server") {
		t.Errorf("the silence on the server answering must be put on its facts (no watch cache):\n%s", all)
	}
}

func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
