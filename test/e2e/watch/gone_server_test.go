//go:build e2e

package watch

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	cs, ns := newNamespace(t, shared, "watch-gone-server")
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
	// An event in the stream is the server heard from (fresh user try
	// 52 F2: "the last at" said the watch's answer, before its events).
	time.Sleep(1500 * time.Millisecond)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wrote := time.Now()
	time.Sleep(time.Second)
	link.Close() // nothing listens at the kubeconfig's address from now on
	code := p.Wait(time.Minute)
	stderr := p.Stderr()
	if code != 4 || !strings.Contains(stderr, "of this run (last heard from at") || strings.Contains(stderr, "check --server, --context or --kubeconfig") || strings.Contains(stderr, "no watch of this session succeeded") {
		t.Fatalf("exit %d, want 4 and an error that says the server answered this run before, blaming no setting:\n%s", code, stderr)
	}
	m := regexp.MustCompile(`last heard from at ([0-9:]{8})`).FindStringSubmatch(stderr)
	if m == nil || m[1] < wrote.Format("15:04:05") {
		t.Fatalf("the server was heard from (an event) at %s; the error says otherwise:\n%s", wrote.Format("15:04:05"), stderr)
	}
}
