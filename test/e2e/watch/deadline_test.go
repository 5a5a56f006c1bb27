//go:build e2e

package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// --timeout holds while client-go waits for the kubeconfig's exec
// credential plugin (which it runs without the request's context) and a
// watch that never got an answer exits 4 in both modes (issue 25, E19: a
// plugin that sleeps 25 s with --timeout 3s gave "timeout after 25.007s",
// exit 0). Discovery is cached first (one HOME), so the first request of
// the run is the watch itself, or the server check of --follow.
func TestWatchTimeoutHoldsWhileTheCredentialPluginRuns(t *testing.T) {
	t.Parallel()
	_, ns := newNamespace(t, shared, "watch-slow-creds")
	dir := t.TempDir()
	plugin := filepath.Join(dir, "slow-credentials")
	script := fmt.Sprintf("#!/bin/sh\nsleep 25\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":%q}}'\n", framework.AdminToken)
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(dir, "slow.kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: slow
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: %s
      interactiveMode: Never
contexts:
- name: c
  context: {cluster: c, user: slow, namespace: default}
current-context: c
`, shared.APIServers[0].URL, shared.APIServers[0].CAFile, plugin)
	if err := os.WriteFile(kc, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if r := framework.RunInHome(t, home, shared.Kubeconfig, nil, time.Minute, "list", "cm", "-n", ns, "--rv-only"); r.Code != 0 {
		t.Fatalf("warming the discovery cache: exit %d: %s", r.Code, r.Stderr)
	}
	for _, mode := range [][]string{nil, {"--follow"}} {
		// To the exit of the plugin's own process: the credential plugin
		// it leaves running (a child of client-go's) keeps a pipe open.
		r := framework.RunToExit(t, 0, home, kc, time.Minute, append([]string{"watch", "cm", "-n", ns, "--timeout", "3s"}, mode...)...)
		if r.Code != 4 || r.Duration > 10*time.Second {
			t.Fatalf("watch %v: want exit 4 within about 3 s, got exit %d after %s:\n%s\n%s", mode, r.Code, r.Duration, r.Stdout, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "credential plugin") || !strings.Contains(r.Stderr, plugin) || strings.Contains(r.Stderr, "raise --request-timeout") {
			t.Fatalf("watch %v: the error must name the credential plugin it waited for: %s", mode, r.Stderr)
		}
	}
}

// A quiet collection is silent: --stall-timeout shorter than any bookmark
// period ends a watch without --follow as asked (exit 0) with a note that
// names --stall-timeout and --bookmarks, and --follow watches again from
// the last RV; neither calls the server unreachable (issue 25, E21: exit
// 4 "no answer ... raise --request-timeout").
func TestWatchStallTimeoutOnAQuietCollectionIsNoHang(t *testing.T) {
	t.Parallel()
	cs, ns := newNamespace(t, shared, "watch-quiet-stall")
	cmWriter{t: t, cs: cs, ns: ns}.create("a", nil)
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "watch", "cm", "-n", ns, "--rv", "list", "--stall-timeout", "2s")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Summary (stopped at --stall-timeout after") {
		t.Fatalf("want exit 0 and the stall as the end, got exit %d:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, s := range []string{"--stall-timeout", "--bookmarks", "no bookmark was asked for"} {
		if !strings.Contains(r.Stderr, s) {
			t.Fatalf("the note lacks %q: %s", s, r.Stderr)
		}
	}
	for _, bad := range []string{"unreachable", "no answer", "--request-timeout"} {
		if strings.Contains(r.Stderr, bad) {
			t.Fatalf("a quiet collection is called %q: %s", bad, r.Stderr)
		}
	}
	out := runWatch(t, shared.Kubeconfig, time.Minute, "cm", "-n", ns, "--rv", "list", "--stall-timeout", "2s", "--follow", "--timeout", "7s")
	sum := out.summary(t)
	if out.Code != 0 || sum.FailureStreak != nil || sum.Reconnects < 2 || sum.Ended != "timeout" {
		t.Fatalf("--follow: want exit 0 after quiet reconnects, got exit %d, summary %+v: %s", out.Code, sum, out.Stderr)
	}
}

// --rv list prints the list request and the watch request that follows,
// each with every query parameter it had (issue 25, F34: the list URL lost
// its selector and the watch URL was never printed).
func TestWatchRVListPrintsBothRequests(t *testing.T) {
	t.Parallel()
	cs, ns := newNamespace(t, shared, "watch-list-urls")
	cmWriter{t: t, cs: cs, ns: ns}.create("a", map[string]string{"app": "x"})
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "watch", "cm", "-n", ns, "-l", "app=x", "--field-selector", "metadata.name=a", "--rv", "list", "--timeout", "2s")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	list := "listing /api/v1/namespaces/" + ns + "/configmaps?fieldSelector=metadata.name%3Da&labelSelector=app%3Dx&limit=500,"
	if !strings.Contains(r.Stderr, list) {
		t.Fatalf("want %q on stderr: %s", list, r.Stderr)
	}
	watch := ": /api/v1/namespaces/" + ns + "/configmaps?fieldSelector=metadata.name%3Da&labelSelector=app%3Dx&resourceVersion="
	if !strings.Contains(r.Stdout, watch) || !strings.Contains(r.Stdout, "&timeoutSeconds=2&watch=1") {
		t.Fatalf("want the watch request (%s...) after the list:\n%s", watch, r.Stdout)
	}
}

// A connection that hangs (a link that passes no byte: the TLS handshake
// never completes) is no answer either: --timeout holds while the request
// waits for it, and the watch exits 4 in both modes, saying how far the
// request got; without a discovery cache the run ends in discovery, with
// the same rule (issue 25, E19).
func TestWatchTimeoutHoldsWhileTheConnectionHangs(t *testing.T) {
	t.Parallel()
	_, ns := newNamespace(t, shared, "watch-hung-link")
	link, err := framework.StartPausableLink(strings.TrimPrefix(shared.APIServers[0].URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { link.Close() })
	kc, err := shared.WriteKubeconfigFor("hung-link-"+ns, "https://"+link.Addr(), shared.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if r := framework.RunInHome(t, home, kc, nil, time.Minute, "list", "cm", "-n", ns, "--rv-only"); r.Code != 0 {
		t.Fatalf("warming the discovery cache: exit %d: %s", r.Code, r.Stderr)
	}
	link.Pause()
	for _, c := range []struct {
		home string
		args []string
		want string
	}{
		{home, nil, "no connection to the API server could be made"},
		{home, []string{"--follow"}, "no answer from"},
		{t.TempDir(), nil, "while reading discovery"},
	} {
		r := framework.RunInHome(t, c.home, kc, nil, time.Minute, append([]string{"watch", "cm", "-n", ns, "--timeout", "3s"}, c.args...)...)
		if r.Code != 4 || r.Duration > 15*time.Second || !strings.Contains(r.Stderr, c.want) || strings.Contains(r.Stderr, "--request-timeout") {
			t.Fatalf("watch %v: want exit 4 about 3 s in, saying %q; got exit %d after %s:\n%s\n%s", c.args, c.want, r.Code, r.Duration, r.Stdout, r.Stderr)
		}
	}
}
