package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

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
		{[]string{"clients", "extra", "-f", recordedAudit}, `cannot read the argument "extra" (every argument is read as an audit log, as with -f)`},
		{[]string{"clients", "-f", notAudit}, "no audit event in 2 lines"},
		{[]string{"clients", "-f", recordedAudit, "-o", "wide"}, `unknown output format "wide"`},
		{[]string{"clients", "-f", recordedAudit, "--server-version", "latest"}, `--server-version "latest" is not a Kubernetes version`},
		{[]string{"clients", "-f", recordedAudit, "--top", "0"}, "--top 0 must be at least 1"},
		{[]string{"clients", "-f", recordedAudit, "--max-clients", "0"}, "--max-clients 0 must be at least 1"},
		{[]string{"clients", "-f", recordedAudit, "--watch-cache", "maybe"}, `--watch-cache "maybe": give on, off`},
		{[]string{"clients", "-f", recordedAudit, "--watch-cache-sizes", "configmaps"}, `--watch-cache-sizes "configmaps": give it as the API server's own flag takes it`},
		{[]string{"clients", "-f", "-", "-f", "-"}, "can be given once"},
		{[]string{"clients", "--bogus"}, "unknown flag: --bogus"},
	} {
		out, errOut, code := runForTest(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", c.args, code, errOut, out, c.want)
		}
	}
}

// A real log read twice (two -f, or a glob of two copies) counts every
// request once, and says the duplicates were dropped (issue 25 item 13:
// every count doubled); a glob reads every file it matches.
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
	for _, args := range [][]string{{"-f", filepath.Join(dir, "audit-*.log")}, {"-f", recordedAudit, "-f", recordedAudit}} {
		out, errOut, code = runForTest(t, append([]string{"clients", "-o", "json"}, args...)...)
		var two clients.Report
		if code != 0 || json.Unmarshal([]byte(out), &two) != nil {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if len(two.Sources) != 2 || two.Events != 2*one.Events || two.Input.Duplicates != one.Events || two.Requests != one.Requests {
			t.Errorf("%v: %d sources, %d events, %d duplicates, %d requests; want 2, %d, %d, %d", args, len(two.Sources), two.Events, two.Input.Duplicates, two.Requests, 2*one.Events, one.Events, one.Requests)
		}
	}
	out, _, _ = runForTest(t, "clients", "-f", recordedAudit, "-f", recordedAudit)
	if !strings.Contains(out, "117 duplicate events counted once") {
		t.Errorf("the report does not say the duplicates were dropped:\n%s", out)
	}
}

// Input out of time order (issue 25 item 13: a newest-first log gave 106
// requests instead of 53 and lost polling, relist-loop and
// stale-reconnect): a file newest first is read twice, in order; the same
// on stdin within the window; the report is the one of the log in order,
// and says what was done.
func TestClientsInputOutOfOrder(t *testing.T) {
	_, _, code := runForTest(t, "clients", "-o", "json", "-f", recordedAudit)
	if code != 0 {
		t.Fatal(code)
	}
	want := clientsJSON(t, "-f", recordedAudit)
	b, _ := os.ReadFile(recordedAudit)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	tac := filepath.Join(t.TempDir(), "tac.log")
	os.WriteFile(tac, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	got := clientsJSON(t, "-f", tac)
	if got.Requests != want.Requests || fmt.Sprint(patternsOf(got)) != fmt.Sprint(patternsOf(want)) {
		t.Errorf("newest first: %d requests, patterns %v; want %d, %v", got.Requests, patternsOf(got), want.Requests, patternsOf(want))
	}
	// The recorded log fits in the window: put in order without a second read.
	if got.Input.Reordered == 0 || got.Input.Late != 0 {
		t.Errorf("input %+v", got.Input)
	}
	// Two servers' logs one after the other on stdin (here the recorded
	// log's odd and even lines) give the report -f A -f B gives.
	var odd, even []string
	lines = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i, l := range lines {
		if i%2 == 0 {
			even = append(even, l)
		} else {
			odd = append(odd, l)
		}
	}
	a, b2 := filepath.Join(t.TempDir(), "a.log"), filepath.Join(t.TempDir(), "b.log")
	os.WriteFile(a, []byte(strings.Join(odd, "\n")+"\n"), 0o600)
	os.WriteFile(b2, []byte(strings.Join(even, "\n")+"\n"), 0o600)
	files := clientsJSON(t, "-f", a, "-f", b2)
	var out, errb bytes.Buffer
	code = run([]string{"clients", "-o", "json", "-f", "-"}, genericiooptions.IOStreams{In: strings.NewReader(strings.Join(append(odd, even...), "\n") + "\n"), Out: &out, ErrOut: &errb})
	var piped clients.Report
	if code != 0 || json.Unmarshal(out.Bytes(), &piped) != nil {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if piped.Requests != files.Requests || fmt.Sprint(patternsOf(piped)) != fmt.Sprint(patternsOf(files)) || fmt.Sprint(patternsOf(files)) != fmt.Sprint(patternsOf(want)) {
		t.Errorf("two logs on stdin: %d requests, %v; -f A -f B: %d, %v", piped.Requests, patternsOf(piped), files.Requests, patternsOf(files))
	}
}

func clientsJSON(t *testing.T, args ...string) clients.Report {
	t.Helper()
	out, errOut, code := runForTest(t, append([]string{"clients", "-o", "json"}, args...)...)
	var r clients.Report
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("clients %v: exit %d: %s", args, code, errOut)
	}
	return r
}

func patternsOf(r clients.Report) []string {
	var out []string
	for _, c := range r.Clients {
		for _, p := range c.Patterns {
			out = append(out, c.Name()+" "+p.Name)
		}
	}
	sort.Strings(out)
	return out
}

// A gzip file cut short gives the report of what was read, a warning and
// exit 0 (issue 25 item 27: "unexpected EOF", no report); cut before its
// first event it is exit 2 and says how the file ends.
func TestClientsCutGzip(t *testing.T) {
	b, _ := os.ReadFile(recordedAudit)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(b)
	w.Close()
	dir := t.TempDir()
	cut := filepath.Join(dir, "audit.log.gz")
	os.WriteFile(cut, gz.Bytes()[:gz.Len()*2/3], 0o600)
	out, errOut, code := runForTest(t, "clients", "-f", cut)
	if code != 0 || !strings.Contains(errOut, "ends early") || !strings.Contains(errOut, "gzip stream is cut short") || !strings.Contains(out, "Requests:") || !strings.Contains(out, "ends early after") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	os.WriteFile(cut, gz.Bytes()[:30], 0o600)
	_, errOut, code = runForTest(t, "clients", "-f", cut)
	if code != ExitUsage || !strings.Contains(errOut, "no audit event") || !strings.Contains(errOut, "cut short") {
		t.Errorf("cut in its first bytes: exit %d, stderr %q", code, errOut)
	}
}

// Every byte of clients' output goes through the Printer's streams: run on
// a real log whose paths, user agents and users are made hostile, nothing
// reaches the process's own stdout or stderr, and -o json keeps every
// value as the log has it (the sanitizer at the Printer's writer defangs
// the human output: test/e2e/clients checks the bytes on a real server).
func TestClientsWritesOnlyThroughThePrinter(t *testing.T) {
	b, _ := os.ReadFile(recordedAudit)
	hostile := strings.NewReplacer(`"watchrv-e2e-poller"`, `"ua\u001b]0;PWNED\u0007"`, `"username":"nobody"`, `"username":"\u001b[2Jnobody\u009b"`,
		`"resource":"configmaps"`, `"resource":"\u001b[2Jcm"`).Replace(string(b))
	path := filepath.Join(t.TempDir(), "hostile.log")
	os.WriteFile(path, []byte(hostile), 0o600)
	stdout, stderr := os.Stdout, os.Stderr
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout, os.Stderr = w, w
	out, errOut, code := runForTest(t, "clients", "-f", path, "-f", path+".missing-is-not-read")
	out2, _, code2 := runForTest(t, "clients", "-f", path, "--top", "20")
	js, _, code3 := runForTest(t, "clients", "-f", path, "-o", "json")
	os.Stdout, os.Stderr = stdout, stderr
	w.Close()
	leaked, _ := io.ReadAll(r)
	if len(leaked) != 0 {
		t.Errorf("clients wrote %q to the process's own stdout/stderr, around the Printer", leaked)
	}
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "missing-is-not-read") || code2 != 0 || code3 != 0 || !strings.Contains(out2, "PWNED") {
		t.Errorf("exit %d/%d/%d", code, code2, code3)
	}
	var rep clients.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"ua\x1b]0;PWNED\a": false, "\x1b[2Jnobody\u009b": false}
	for _, c := range rep.Clients {
		for _, v := range []string{c.UserAgent, c.User} {
			if _, ok := want[v]; ok {
				want[v] = true
			}
		}
	}
	for v, seen := range want {
		if !seen {
			t.Errorf("-o json does not keep %q as the log has it", v)
		}
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
