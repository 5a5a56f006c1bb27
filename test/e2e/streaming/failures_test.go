//go:build e2e

package streaming

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/streaming"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A request that fails for a reason of its own is that failure, with the
// exit code every other command gives it, never "refused the streaming
// list: informers fall back" (issue 16 item 8: a 401 exited 1 so). The
// discovery cache is warm, as a user's is when a token expires: the
// streaming watch is then the first request refused.
func TestStreamingRequestFailureKeepsItsCode(t *testing.T) {
	a := cluster.APIServers[0]
	badToken, err := cluster.WriteKubeconfigFor("bad-token.kubeconfig", a.URL, a.CAFile, "not-a-token")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if r := framework.Run(t, cluster.Kubeconfig, time.Minute, "--cache-dir", cache, "streaming", "configmaps", "-n", "default"); r.Code != 0 {
		t.Fatalf("warming the discovery cache: exit %d: %s", r.Code, r.Stderr)
	}
	cases := []struct {
		name, kubeconfig string
		code             int
		words            string
	}{
		{"401 rejected credentials", badToken, 6, "rejected the credentials (401 Unauthorized)"},
		{"403 no grants", cluster.UserKubeconfig, 7, "forbidden"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, out := range [][]string{nil, {"-o", "json"}} {
				args := append([]string{"--cache-dir", cache, "streaming", "configmaps", "-n", "default"}, out...)
				r := framework.Run(t, c.kubeconfig, time.Minute, args...)
				if r.Code != c.code || !strings.Contains(r.Stderr, c.words) || strings.Contains(r.Stderr, "refused the streaming list") {
					t.Fatalf("%v: exit %d, want %d with %q; stderr %q", out, r.Code, c.code, c.words, r.Stderr)
				}
				if strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
					t.Errorf("want one error line, got %q", r.Stderr)
				}
			}
		})
	}
	// The 401 row says what happened: nothing about streaming was checked.
	r := framework.Run(t, badToken, time.Minute, "--cache-dir", cache, "streaming", "configmaps", "-n", "default", "-o", "json")
	var rep render.StreamingReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("exit %d, stdout not JSON: %v\n%s", r.Code, err, r.Stdout)
	}
	row := only(t, rep)
	if row.Code != 401 || row.Status != streaming.StatusError || row.Informer != streaming.InformerUnknown || strings.Contains(row.Explanation, "falls back") {
		t.Errorf("401 row: %+v", row)
	}
}

// streaming --all interrupted by Ctrl-C prints the checks already made,
// marked interrupted, and exits 130 (issue 16 item 7: it printed nothing).
func TestStreamingAllInterruptedPrintsTheChecksMade(t *testing.T) {
	before := len(framework.ReadAudit(t, cluster.APIServers[0].AuditLog))
	p := framework.StartPlugin(t, cluster.Kubeconfig, "streaming", "--all", "--qps", "4", "-o", "json")
	// Wait for the third resource's streaming watch: two checks are done.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		paths := map[string]bool{}
		for _, e := range framework.ReadAudit(t, cluster.APIServers[0].AuditLog)[before:] {
			if strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") && e.Verb == "watch" {
				paths[strings.SplitN(e.RequestURI, "?", 2)[0]] = true
			}
		}
		if len(paths) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin opened %d streaming watches in 2 minutes; stderr:\n%s", len(paths), p.Stderr())
		}
	}
	if code := p.Interrupt(30 * time.Second); code != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, p.Stderr())
	}
	var rep render.StreamingReport
	if err := json.Unmarshal([]byte(p.Stdout()), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, p.Stdout())
	}
	in := rep.Interrupted
	if in == nil || in.Done < 2 || in.Done != len(rep.Resources) || in.Of <= in.Done {
		t.Fatalf("interrupted %+v with %d rows: want the (at least 2) checks made before the signal", in, len(rep.Resources))
	}
	for _, row := range rep.Resources {
		if row.Status == streaming.StatusError {
			t.Errorf("row %s: %+v: a row is a finished check", row.Resource, row)
		}
	}
	if !strings.HasSuffix(p.Stderr(), "interrupted\n") {
		t.Errorf("stderr %q", p.Stderr())
	}
	t.Logf("interrupted after %d of %d resources: %s", in.Done, in.Of, rep.Verdict.Summary)
}
