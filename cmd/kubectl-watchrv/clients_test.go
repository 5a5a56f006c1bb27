package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/clients"
)

const recordedAudit = "../../pkg/audit/testdata/e2e-audit.log"

// Bad input to clients: one line naming the problem and the fix, exit 2.
func TestClientsRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	notAudit := filepath.Join(dir, "app.log")
	if err := os.WriteFile(notAudit, []byte("I1201 10:44:35 started\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"clients", "-f", filepath.Join(dir, "missing.log")}, "cannot read -f " + filepath.Join(dir, "missing.log") + ": no such file or directory"},
		{[]string{"clients", "-f", dir}, "is a directory"},
		{[]string{"clients", "-f", notAudit}, "no audit event in 2 line(s)"},
		{[]string{"clients", "-f", recordedAudit, "-o", "wide"}, `unknown output format "wide"`},
		{[]string{"clients", "-f", recordedAudit, "--server-version", "latest"}, `--server-version "latest" is not a Kubernetes version`},
		{[]string{"clients", "-f", recordedAudit, "--top", "0"}, "--top 0 must be at least 1"},
		{[]string{"clients", "-f", "-", "-f", "-"}, "can be given once"},
		{[]string{"clients", "--bogus"}, "unknown flag: --bogus"},
	} {
		out, errOut, code := runForTest(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", c.args, code, errOut, out, c.want)
		}
	}
}

// A real log read twice (two -f) counts every request twice, and a glob
// reads every file it matches.
func TestClientsFilesAndGlob(t *testing.T) {
	out, errOut, code := runForTest(t, "clients", "-o", "json", "-f", recordedAudit)
	var one clients.Report
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dir := t.TempDir()
	b, _ := os.ReadFile(recordedAudit)
	for _, n := range []string{"audit-1.log", "audit-2.log"} {
		os.WriteFile(filepath.Join(dir, n), b, 0o600)
	}
	out, errOut, code = runForTest(t, "clients", "-o", "json", "-f", filepath.Join(dir, "audit-*.log"))
	var two clients.Report
	if code != 0 || json.Unmarshal([]byte(out), &two) != nil {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(two.Sources) != 2 || two.Events != 2*one.Events {
		t.Errorf("glob: %d sources, %d events; want 2 and %d", len(two.Sources), two.Events, 2*one.Events)
	}
}

// docs/clients.md shows the real output on the recorded log: it must be
// what the command prints today.
func TestClientsDocsOutput(t *testing.T) {
	doc, err := os.ReadFile("../../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "$ kubectl watchrv clients -f pkg/audit/testdata/e2e-audit.log --top 5 --timeline 2\n"
	i := strings.Index(string(doc), cmd)
	if i < 0 {
		t.Fatal("docs/clients.md lacks the output block")
	}
	rest := string(doc)[i+len(cmd):]
	shown := rest[:strings.Index(rest, "\n```")]
	t.Setenv("NO_COLOR", "1")
	out, errOut, code := runForTest(t, "clients", "-f", recordedAudit, "--top", "5", "--timeline", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out = strings.Replace(strings.TrimRight(out, "\n"), "Read "+recordedAudit, "Read pkg/audit/testdata/e2e-audit.log", 1)
	if out != shown {
		t.Errorf("docs/clients.md shows another output than the command prints now; paste it again:\n%s", out)
	}
}
