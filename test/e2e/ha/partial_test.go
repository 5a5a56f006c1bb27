//go:build e2e

package ha

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The one rule for partial failure (docs/exit-codes.md): every server
// answered, 0; some failed, 12, with the verdict over those that answered;
// none answered, the failure's own code. Here with a server whose TLS
// certificate is not from the kubeconfig's CA (issue 16 item 11: exit 0
// with one of two failing TLS, 5 with all), and one that refuses.
func TestServersPartialFailureRule(t *testing.T) {
	h := shared
	good := net.JoinHostPort("127.0.0.1", strconv.Itoa(h.Port))
	// A TLS server on loopback with a certificate of another CA.
	foreign := httptest.NewTLSServer(http.NotFoundHandler())
	defer foreign.Close()
	u, _ := url.Parse(foreign.URL)
	badTLS := u.Host
	kc := h.DirectKubeconfig(0)
	cases := []struct {
		name      string
		endpoints string
		code      int
		words     string
	}{
		{"every server answers", good, 0, ""},
		{"one of two fails TLS", good + "," + badTLS, 12, "1 of 2 API servers failed (server " + badTLS + ": TLS"},
		{"one of two refuses", "127.0.0.1:1," + good, 12, "1 of 2 API servers failed (server 127.0.0.1:1: Unreachable"},
		{"every server fails TLS", badTLS, 5, "the only API server could not be measured ("},
		{"every server refuses", "127.0.0.1:1,127.0.0.1:2", 4, "none of the 2 API servers could be measured"},
	}
	for _, c := range cases {
		for _, cmd := range []string{"list", "probe"} {
			t.Run(c.name+"/"+cmd, func(t *testing.T) {
				r := framework.Run(t, kc, time.Minute, "--request-timeout", "5s", cmd, "configmaps", "-n", "default", "--endpoints", c.endpoints)
				lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
				if r.Code != c.code || (c.words != "" && !strings.Contains(lines[len(lines)-1], c.words)) {
					t.Fatalf("exit %d, want %d with %q last on stderr:\n%s\n%s", r.Code, c.code, c.words, r.Stdout, r.Stderr)
				}
				if c.code == 12 && strings.Contains(r.Stdout, "served at once by every server") {
					t.Errorf("one server failed, yet the verdict speaks for every server:\n%s", r.Stdout)
				}
				// Another CA is no name mismatch (fresh user try 35 F5).
				if strings.Contains(c.endpoints, badTLS) && (!strings.Contains(r.Stdout+r.Stderr, "signed by an authority that the certificate-authority in use (the kubeconfig's, or --certificate-authority) does not hold") || strings.Contains(r.Stdout+r.Stderr, "must name the kubeconfig's server")) {
					t.Errorf("the TLS hint does not say the certificate's authority is unknown:\n%s\n%s", r.Stdout, r.Stderr)
				}
			})
		}
	}
	// explain-error --check --servers follows the same rule.
	msg := "Error from server (Timeout): Timeout: Too large resource version: 99999999, current: 10"
	for _, c := range []struct {
		endpoints string
		code      int
	}{{good, 0}, {good + ",127.0.0.1:1", 12}, {"127.0.0.1:1", 4}} {
		r := framework.Run(t, kc, time.Minute, "-n", "default", "explain-error", "--check", "--endpoints", c.endpoints, msg)
		if r.Code != c.code || !strings.Contains(r.Stdout, "TooLarge") {
			t.Errorf("explain-error --check --endpoints %s: exit %d, want %d:\n%s\n%s", c.endpoints, r.Code, c.code, r.Stdout, r.Stderr)
		}
	}
	// The TLS row says TLS, and the verdict counts one answering server.
	r := framework.Run(t, kc, time.Minute, "list", "configmaps", "-n", "default", "--endpoints", good+","+badTLS, "-o", "json")
	rep := decodeServers(t, r)
	if rep.Servers[1].Reason != "TLS" || rep.Verdict.Answered != 1 || len(rep.Verdict.NewestUnknown) != 1 || rep.Verdict.NewestUnknown[0] != badTLS {
		t.Fatalf("verdict %+v, TLS row %+v", rep.Verdict, rep.Servers[1])
	}
}

// probe --servers with one server's etcd link paused: that server answers
// its cache RV but not its consistent list, so its window is unknown. The
// verdict counts it as answering only partly, claims the common range
// only for the servers measured and says the paused one is not known
// (issue 16 item 14: "Answered: 3 of 3" and "nothing has expired on any
// server"), and the run exits 12.
func TestServersPausedLinkClaimsOnlyWhatAnswered(t *testing.T) {
	h := shared
	ns := "srv-partial"
	prepareNamespace(t, ns, 3)
	pauseLagging(t, ns, 3)
	r := framework.Run(t, h.Kubeconfig, time.Minute, "--request-timeout", "2s", "probe", "configmaps", "-n", ns, "--servers", "-o", "json")
	human := framework.Run(t, h.Kubeconfig, time.Minute, "--request-timeout", "2s", "probe", "configmaps", "-n", ns, "--servers")
	shared.EtcdLink(lagging).Resume()
	paused := h.EndpointAddr(lagging)
	if r.Code != 12 || human.Code != 12 {
		t.Fatalf("exit %d and %d, want 12 (one server failed a read): %s", r.Code, human.Code, r.Stderr)
	}
	rep := decodeServers(t, r)
	v := rep.Verdict
	if v.Answered != 2 || v.AnsweredPartly != 1 || len(v.OldestUnknown) != 1 || v.OldestUnknown[0] != paused || len(v.NewestUnknown) != 0 {
		t.Fatalf("verdict %+v: want 2 answered, 1 partly, the paused server's oldest RV unknown", v)
	}
	if !v.CommonFromKnown || v.CommonToServer != paused {
		t.Errorf("the range's bounds: %+v", v)
	}
	out := human.Stdout
	for _, want := range []string{
		"Answered:               2 of 3 servers; only partly: " + paused + " (NoAnswer)",
		"is served at once by " + h.EndpointAddr(0) + ", " + h.EndpointAddr(1) + " (the servers whose window and cache RV were measured)",
		"not known for " + paused + ": its oldest RV was not measured",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, wrong := range []string{"3 of 3", "served at once by every server", "nothing has expired on any server"} {
		if strings.Contains(out, wrong) {
			t.Errorf("output claims %q with one server's window unknown:\n%s", wrong, out)
		}
	}
	if !strings.Contains(human.Stderr, "1 of 3 API servers failed (server "+paused+": NoAnswer") {
		t.Errorf("stderr: %s", human.Stderr)
	}
}

// list --servers searches no window: below which RV a server answers 410
// is unknown, and the verdict says so instead of "[0, N] served at once by
// every server" (issue 16 item 13). A raw watch from below a server's
// oldest RV does get 410, so "from 0" was never true.
func TestListServersLeavesThe410SideUnknown(t *testing.T) {
	h := shared
	ns := "srv-list-410"
	prepareNamespace(t, ns, 2)
	r := framework.Run(t, h.Kubeconfig, time.Minute, "list", "configmaps", "-n", ns, "--servers")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stdout, "[0, ") || strings.Contains(r.Stdout, "served at once by every server") || strings.Contains(r.Stdout, "every server serves it") {
		t.Errorf("list --servers claims the 410 side it did not measure:\n%s", r.Stdout)
	}
	for _, want := range []string{"gets no 504 from any server", "whether it gets 410 is unknown: no window was searched", "no server answers 504 (the RV is at most the one its rv=0 list returned, from its watch cache or, where it has none, from storage); 410 not known (no window searched)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Stdout)
		}
	}
	j := framework.Run(t, h.Kubeconfig, time.Minute, "list", "configmaps", "-n", ns, "--servers", "-o", "json")
	rep := decodeServers(t, j)
	if rep.Verdict.CommonFromKnown || rep.Verdict.CommonFrom != 0 || len(rep.Verdict.OldestUnknown) != 3 {
		t.Errorf("verdict %+v: want the oldest RV unknown on all 3 servers", rep.Verdict)
	}
	// A watch from RV 1 on a server whose oldest RV is above 1 gets 410:
	// "[0, N] served at once" was false wherever anything had expired.
	p := framework.Run(t, h.DirectKubeconfig(0), time.Minute, "probe", "configmaps", "-n", ns, "-o", "json")
	var pr render.ProbeReport
	if err := json.Unmarshal([]byte(p.Stdout), &pr); err == nil && pr.Found {
		if old, _ := strconv.ParseUint(pr.OldestResourceVersion, 10, 64); old > 1 {
			if got := rawWatchFirst(t, 0, ns, old-1); !strings.Contains(got, `"code":410`) {
				t.Errorf("a raw watch from %d (below the oldest %d) did not get 410: %s", old-1, old, got)
			}
		}
	}
}

// probe --all interrupted by Ctrl-C prints the rows already measured,
// marked interrupted, and exits 130 (issue 16 item 7: it printed nothing).
func TestProbeAllInterruptedPrintsTheRowsMeasured(t *testing.T) {
	h := shared
	before := auditLengths(t)
	p := framework.StartPlugin(t, h.DirectKubeconfig(0), "probe", "--all", "--qps", "4", "-o", "json")
	waitProbedResources(t, p, before, 3)
	if code := p.Interrupt(30 * time.Second); code != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, p.Stderr())
	}
	var rep render.ProbeAllReport
	if err := json.Unmarshal([]byte(p.Stdout()), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, p.Stdout())
	}
	in := rep.Interrupted
	if in == nil || in.Done < 2 || in.Done != len(rep.Resources) || in.Of <= in.Done {
		t.Fatalf("interrupted %+v with %d rows: want the (at least 2) rows measured before the signal", in, len(rep.Resources))
	}
	for _, row := range rep.Resources {
		if !row.Found || row.Error != "" {
			t.Errorf("row %s: %+v: a row is a finished measure", row.Resource, row)
		}
	}
	if !strings.HasSuffix(p.Stderr(), "interrupted\n") {
		t.Errorf("stderr %q", p.Stderr())
	}
	t.Logf("interrupted after %d of %d resources, %d requests", in.Done, in.Of, rep.Requests)

	// The table too, with the line that says it is partial.
	p = framework.StartPlugin(t, h.DirectKubeconfig(0), "probe", "--all", "--qps", "4")
	waitProbedResources(t, p, auditLengths(t), 3)
	if code := p.Interrupt(30 * time.Second); code != 130 {
		t.Fatalf("table: exit %d, want 130; stderr:\n%s", code, p.Stderr())
	}
	if out := p.Stdout(); !strings.HasPrefix(out, "RESOURCE") || !strings.Contains(out, "Interrupted: ") || !strings.Contains(out, "resources measured before the signal; the others were not") {
		t.Errorf("table output:\n%s", out)
	}
}

// auditLengths is how many audit events each server has logged so far.
func auditLengths(t *testing.T) []int {
	t.Helper()
	out := make([]int, len(shared.Cluster.APIServers))
	for i, a := range shared.Cluster.APIServers {
		out[i] = len(framework.ReadAudit(t, a.AuditLog))
	}
	return out
}

// waitProbedResources waits until the plugin's watches since before cover
// n collections: the probes of the first n-1 are then finished.
func waitProbedResources(t *testing.T, p *framework.BackgroundPlugin, before []int, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		paths := map[string]bool{}
		for i, a := range shared.Cluster.APIServers {
			for _, e := range framework.ReadAudit(t, a.AuditLog)[before[i]:] {
				if e.UserAgent == pluginUA && e.Verb == "watch" {
					paths[strings.SplitN(e.RequestURI, "?", 2)[0]] = true
				}
			}
		}
		if len(paths) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin watched %d collections in 2 minutes; stderr:\n%s", len(paths), p.Stderr())
		}
	}
}
