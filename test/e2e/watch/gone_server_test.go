//go:build e2e

package watch

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAServerThatAnsweredAndWentAwayIsNotASettingsProblem: fresh user try
// 51 F5. The API server answered the list and the watch of a --follow
// session, then stopped listening: the run said "no watch of this session
// succeeded ... check --server, --context or --kubeconfig". A server this
// run reached is reached by its settings: the error says it answered
// before and went away, and no line blames the settings.
func TestAServerThatAnsweredAndWentAwayIsNotASettingsProblem(t *testing.T) {
	t.Parallel()
	_, ns := newNamespace(t, shared, "watch-gone-server")
	link, err := framework.StartPausableLink(strings.TrimPrefix(shared.APIServers[0].URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { link.Close() })
	kc, err := shared.WriteKubeconfigFor("gone-"+ns, "https://"+link.Addr(), shared.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	audit := shared.APIServers[0].AuditLog
	before := len(framework.ReadAudit(t, audit))
	p := framework.StartPlugin(t, kc, "watch", "cm", "-n", ns, "--rv", "list", "--follow", "--timeout", "12s")
	deadline := time.Now().Add(30 * time.Second)
	for watching := false; !watching; {
		for _, e := range framework.ReadAudit(t, audit)[before:] {
			u, err := url.Parse(e.RequestURI)
			watching = watching || (err == nil && e.Verb == "watch" && strings.Contains(u.Path, "/namespaces/"+ns+"/") && strings.HasPrefix(e.UserAgent, "kubectl-watchrv/"))
		}
		if time.Now().After(deadline) {
			t.Fatalf("no watch reached the server in 30 s:\n%s", p.Stderr())
		}
		time.Sleep(200 * time.Millisecond)
	}
	link.Close() // nothing listens at the kubeconfig's address from now on
	code := p.Wait(time.Minute)
	stderr := p.Stderr()
	if code != 4 || !strings.Contains(stderr, "of this run (the last at") || strings.Contains(stderr, "check --server, --context or --kubeconfig") || strings.Contains(stderr, "no watch of this session succeeded") {
		t.Fatalf("exit %d, want 4 and an error that says the server answered this run before, blaming no setting:\n%s", code, stderr)
	}
}
