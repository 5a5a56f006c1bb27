//go:build e2e

package list

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var watchFromHere = regexp.MustCompile(`(?m)^Watch from here: +(kubectl watchrv .*)$`)

// suggested runs list (human, then -o json) and returns the command each
// printed as "Watch from here" / watchCommand.
func suggested(t *testing.T, env []string, args ...string) (human, fromJSON string) {
	t.Helper()
	h := framework.RunEnv(t, env, time.Minute, append([]string{"list"}, args...)...)
	m := watchFromHere.FindStringSubmatch(h.Stdout)
	if h.Code != 0 || m == nil {
		t.Fatalf("list %v: exit %d, no Watch from here command:\n%s%s", args, h.Code, h.Stdout, h.Stderr)
	}
	j := framework.RunEnv(t, env, time.Minute, append([]string{"list", "-o", "json"}, args...)...)
	var out struct {
		WatchCommand string `json:"watchCommand"`
	}
	if err := json.Unmarshal([]byte(j.Stdout), &out); err != nil || j.Code != 0 || out.WatchCommand == "" {
		t.Fatalf("list -o json %v: exit %d (%v), no watchCommand:\n%s%s", args, j.Code, err, j.Stdout, j.Stderr)
	}
	return m[1], out.WatchCommand
}

// firstEvent is the first event a pasted watch printed (-o json lines).
func firstEvent(t *testing.T, r framework.Result) (typ, ns, name, rv string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	for sc.Scan() {
		var e struct{ Record, Type, Namespace, Name, ResourceVersion string }
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Record == "event" {
			return e.Type, e.Namespace, e.Name, e.ResourceVersion
		}
	}
	t.Fatalf("the pasted watch printed no event (exit %d):\n%s%s", r.Code, r.Stdout, r.Stderr)
	return
}

// elsewhereKubeconfig is a kubeconfig whose current context points at a
// closed port and whose context "first" reaches the shared server: a
// suggestion that drops --context goes elsewhere.
func elsewhereKubeconfig(t *testing.T) string {
	t.Helper()
	a := shared.APIServers[0]
	path := filepath.Join(t.TempDir(), "two-contexts.kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: first
  cluster: {server: %q, certificate-authority: %q}
- name: elsewhere
  cluster: {server: "https://127.0.0.1:1", certificate-authority: %q}
users:
- name: admin
  user: {token: %q}
contexts:
- name: first
  context: {cluster: first, user: admin, namespace: default}
- name: elsewhere
  context: {cluster: elsewhere, user: admin, namespace: default}
current-context: elsewhere
`, a.URL, a.CAFile, a.CAFile, framework.AdminToken)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 25 D16: "Watch from here" carries what narrowed the list and the
// user's context. Each suggestion, from the human output and from -o json,
// is pasted into a shell (KUBECONFIG there naming a kubeconfig whose
// current context points elsewhere): it must reach the same server and
// watch the same narrowed collection: of the changes made after the list
// (b, then c, then a), the first it delivers is a's.
func TestWatchFromHereWorksWhenPasted(t *testing.T) {
	cs, ns := newNamespace(t, shared, "paste")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("a", map[string]string{"app": "demo"})
	w.Create("b", map[string]string{"app": "other"})
	w.Create("c", nil)
	two := elsewhereKubeconfig(t)
	a := shared.APIServers[0]
	kc := "--kubeconfig=" + shared.Kubeconfig
	cases := []struct {
		name string
		env  []string
		args []string
	}{
		{"label selector", nil, []string{kc, "cm", "-n", ns, "-l", "app=demo"}},
		{"label selector with spaces and a bang", nil, []string{kc, "cm", "-n", ns, "-l", "app in (demo), !missing"}},
		{"field selector", nil, []string{kc, "cm", "-n", ns, "--field-selector", "metadata.name=a"}},
		{"RESOURCE/NAME", nil, []string{kc, "cm/a", "-n", ns}},
		{"NAME with -A", nil, []string{kc, "configmaps", "a", "-A", "--field-selector", "metadata.namespace=" + ns}},
		{"--context of another kubeconfig", nil, []string{"--kubeconfig", two, "--context", "first", "cm", "-n", ns, "-l", "app=demo"}},
		{"KUBECONFIG only", []string{"KUBECONFIG=" + shared.Kubeconfig}, []string{"cm", "-n", ns, "-l", "app=demo"}},
		{"--server and --token", nil, []string{"--server", a.URL, "--certificate-authority", a.CAFile, "--token", framework.AdminToken, "cm", "-n", ns, "-l", "app=demo"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			human, fromJSON := suggested(t, c.env, c.args...)
			if strings.Contains(human+fromJSON, framework.AdminToken) {
				t.Fatalf("a suggestion prints the token: %s", human)
			}
			w.Modify("b")
			w.Modify("c")
			want := w.Modify("a").ResourceVersion
			for _, line := range []string{human, fromJSON} {
				r := framework.RunPasted(t, line, []string{"KUBECONFIG=" + two, "WATCHRV_TOKEN=" + framework.AdminToken}, time.Minute, "--max-events", "1", "--timeout", "20s", "-o", "json")
				typ, gotNS, name, rv := firstEvent(t, r)
				t.Logf("pasted %s: %s %s/%s at RV %s", line, typ, gotNS, name, rv)
				if typ != "MODIFIED" || gotNS != ns || name != "a" || rv != want {
					t.Errorf("pasted %s: first event %s %s/%s at RV %s, want MODIFIED %s/a at RV %s", line, typ, gotNS, name, rv, ns, want)
				}
			}
		})
	}
}

// Issue 25 D17, adversary try 44 B: a List RV the plugin would refuse as
// --rv (a front that answers RV -7) is never suggested, nor is watch --rv
// list, which takes the same front's list RV and stops there: the advice
// says why and suggests no command (TestEveryListSuggestionWorksWhenPasted
// runs every suggestion it makes).
func TestRefusedRVIsNotSuggested(t *testing.T) {
	_, ns := newNamespace(t, shared, "minus-seven")
	front := framework.StartRewritingFront(t, shared, shared.APIServers[0], "-7")
	r := framework.Run(t, front.Kubeconfig, time.Minute, "list", "cm", "-n", ns)
	if r.Code != 0 || !strings.Contains(r.Stdout, `List resourceVersion:  -7`) {
		t.Fatalf("list through the front: exit %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "--rv -7") || !strings.Contains(r.Stdout, "no watch starts from it") || regexp.MustCompile(`kubectl watchrv watch \S+`).MatchString(r.Stdout) {
		t.Fatalf("an RV the plugin refuses is suggested, or not said:\n%s", r.Stdout)
	}
	// The plugin refuses what it did not suggest.
	if v := framework.Run(t, front.Kubeconfig, time.Minute, "watch", "cm", "-n", ns, "--rv", "-7"); v.Code != 2 {
		t.Errorf("watch --rv -7: exit %d, want 2", v.Code)
	}
}
