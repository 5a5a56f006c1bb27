//go:build e2e

package clients

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// placeholderToken is the token of a user literally named like the
// placeholder clients prints for a request without a user.
const placeholderToken = "watchrv-placeholder-token"

// TestClientsReadsTheLogAsTheServerMeantIt sends a real kube-apiserver
// requests that a reader of its audit log can get wrong, then reads the
// log with clients:
//
//   - query booleans in every spelling the server takes (adversary try 20
//     #13: watch=yes&sendInitialEvents=yes was counted as a watch with RV
//     unset): the server's own answer (an initial-events-end bookmark, or
//     none) says which watches were streaming lists, and clients must count
//     exactly those;
//   - values named like the placeholders clients prints for a missing one
//     (adversary try 20 #12): a user named "(unauthenticated)" beside a
//     refused request (no user in the log), a user agent "(no user agent)"
//     beside none, a resource "(other resources)": each prints apart, a
//     real one quoted;
//   - every time printed carries its date.
func TestClientsReadsTheLogAsTheServerMeantIt(t *testing.T) {
	dir := artefactDir(t)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(fmt.Sprintf("%s,admin,uid-admin,\"system:masters\"\n%s,(unauthenticated),uid-placeholder,\"system:masters\"\n",
		framework.AdminToken, placeholderToken)), 0o600); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := framework.StartT(t, framework.APIServerOptions{ExtraArgs: []string{"--audit-policy-file=" + policy, "--token-auth-file=" + tokens}})
	a := c.APIServers[0]
	h := newRawClient(t, a.URL, a.CAFile)
	const cms = "/api/v1/namespaces/default/configmaps"

	// Watches with their booleans spelled every way; want: the server
	// serves a streaming list (only "0" and "false", in any case, are
	// false; a bare name is true).
	spellings := []struct {
		query string
		want  bool
	}{
		{"watch=yes&sendInitialEvents=yes", true},
		{"watch&sendInitialEvents", true},
		{"watch=1&sendInitialEvents=", true},
		{"watch=True&sendInitialEvents=on", true},
		{"watch=true&sendInitialEvents=no", true},
		{"watch=1&sendInitialEvents=f", true},
		{"watch=1&sendInitialEvents=0;x&sendInitialEvents=t", true}, // a pair with ";" is dropped
		{"watch=1&sendInitialEvents=0", false},
		{"watch=1&sendInitialEvents=FALSE", false},
		{"watch=true&sendInitialEvents=false", false},
	}
	for i, s := range spellings {
		status, body := h.fetch(cms+"?"+s.query+"&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1", fmt.Sprint("watchrv-e2e-bool-", i))
		streamed := strings.Contains(string(body), `"k8s.io/initial-events-end":"true"`)
		if !strings.HasPrefix(status, "200") || streamed != s.want {
			t.Fatalf("?%s: %s, initial-events-end bookmark %v: the server does not read it as the test says (%v)\n%.300s", s.query, status, streamed, s.want, body)
		}
	}

	// Names like placeholders, beside the missing values they stand for.
	const clash = "watchrv-e2e-name-clash"
	for _, r := range []struct{ path, agent, token, want string }{
		{cms, clash, "no-such-token", "401"},
		{cms, clash, placeholderToken, "200"},
		{cms, "", framework.AdminToken, "200"},
		{cms, "(no user agent)", framework.AdminToken, "200"},
		{"/api/v1/namespaces/default/%28other%20resources%29", clash, framework.AdminToken, "404"},
	} {
		if status := h.get(r.path, r.agent, r.token); !strings.HasPrefix(status, r.want) {
			t.Fatalf("GET %s as %q: %s, want %s", r.path, r.agent, status, r.want)
		}
	}
	time.Sleep(time.Second) // the last ends in the log

	rep := runClients(t, "-f", a.AuditLog)
	for i, s := range spellings {
		cl := find(rep, "admin", fmt.Sprint("watchrv-e2e-bool-", i))
		want := int64(0)
		if s.want {
			want = 1
		}
		if cl == nil {
			t.Errorf("?%s: no such client in the report", s.query)
		} else if cl.Watches.Total != 1 || cl.Watches.Streaming != want {
			t.Errorf("?%s: the server served a streaming list: %v; clients counts the watches %+v", s.query, s.want, cl.Watches)
		}
	}
	r := framework.Run(t, "", time.Minute, "clients", "-f", a.AuditLog, "--top", "1000", "--timeline", "1000")
	if r.Code != 0 {
		t.Fatalf("clients: exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{
		"\n(unauthenticated) / " + clash + "\n",
		"\n\"(unauthenticated)\" / " + clash + "\n",
		"\nadmin / (no user agent)\n",
		"\nadmin / \"(no user agent)\"\n",
		"\n  \"(other resources)\"\n",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the report does not print %q on a line of its own:\n%s", want, r.Stdout)
		}
	}
	// -o json keeps the fields as the log has them: two users.
	for _, user := range []string{"", "(unauthenticated)"} {
		if find(rep, user, clash) == nil {
			t.Errorf("-o json has no client of user %q and agent %s", user, clash)
		}
	}
	day := `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d to (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d UTC`
	for _, re := range []string{`\nRequests: .* from ` + day + ` \(`, `\nPer [^,]+, ` + day + ` \(`} {
		if !regexp.MustCompile(re).MatchString(r.Stdout) {
			t.Errorf("no %s in the report:\n%s", re, r.Stdout)
		}
	}
}
