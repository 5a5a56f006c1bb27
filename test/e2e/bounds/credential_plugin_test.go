//go:build e2e

package bounds

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// credentialCommands are the commands that send requests, each ending on
// its own within seconds when the credentials work. A watch's --timeout
// is past the --request-timeout of a plugin that gives no answer (3s):
// the plugin's bound is the first to end.
var credentialCommands = [][]string{
	{"list", "cm"},
	{"watch", "cm", "--timeout", "6s"},
	{"watch", "cm", "--follow", "--timeout", "6s"},
	{"probe", "cm"},
	{"streaming", "cm"},
	{"version"},
	{"explain-error", "--check", "too old resource version: 1 (2)"},
}

// cred is an ExecCredential with token.
func cred(token string) string {
	return `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"` + token + `"}}'`
}

// execKubeconfig is the kubeconfig tokenKubeconfig (a user with a bearer
// token) with the user's credentials from the exec plugin script instead.
func execKubeconfig(t *testing.T, tokenKubeconfig, script string) string {
	t.Helper()
	b, err := os.ReadFile(tokenKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	exec := "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + script + "\n      interactiveMode: Never"
	cfg := tokenLine.ReplaceAllLiteralString(string(b), exec)
	if cfg == string(b) {
		t.Fatalf("%s has no token line", tokenKubeconfig)
	}
	p := filepath.Join(t.TempDir(), "exec.kubeconfig")
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// tokenLine is the user's token in the framework's kubeconfigs.
var tokenLine = regexp.MustCompile(`(?m)^    token: .*$`)

// pluginScript writes the plugin body as a shell script in dir; DIR in
// body is dir (where it writes the pids of its processes, in "pids").
func pluginScript(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "plugin.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+strings.ReplaceAll(body, "DIR", dir)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// pidsIn are the pids the plugin wrote in dir/pids.
func pidsIn(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// running: the process exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}

// killAtEnd kills, when the test ends, what the plugin left running.
func killAtEnd(t *testing.T, dir string) {
	t.Cleanup(func() {
		for _, pid := range pidsIn(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// An exec credential plugin's stdout is read within a cap (1 MiB), in
// every command (adversary try 19 #1: client-go's exec authenticator
// keeps all of it in a bytes.Buffer: `exec yes` reached 1.08 GB in 1 s
// and died with "fatal error: out of memory" and a Go stack, exit 2).
// Each shape of a plugin that writes too much fails the run at once,
// under a 3 GB address space, with the one credentials line naming the
// plugin and the cap, exit 2, and none of its processes left. A plugin
// that exited 0 before its answer was complete while a process it
// started holds its stdout (try 19 #16) is told as that, at
// --request-timeout, and stopped too.
func TestCredentialPluginOutputIsReadWithinItsCap(t *testing.T) {
	srv := framework.StartTLSScriptServer(nil)
	t.Cleanup(srv.Close)
	base, err := srv.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	overCap := []string{"the credential plugin ", "/plugin.sh wrote more than 1 MiB to its standard output", "it was stopped"}
	plugins := []struct {
		name, body string
		timeout    string
		want       []string
	}{
		{"writes without end", "echo $$ >> DIR/pids; exec yes AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "20s", overCap},
		{"its child writes without end", "yes AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA & echo $! >> DIR/pids; echo $$ >> DIR/pids; wait", "20s", overCap},
		{"answers, then writes without end", cred("TOK") + "; echo $$ >> DIR/pids; exec yes", "20s", overCap},
		{"one answer past the cap", `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"'; head -c 2097152 /dev/zero | tr '\0' a; printf '"}}'`, "20s", overCap},
		{"exits 0 unanswered, its child holding stdout", "sleep 300 & echo $! >> DIR/pids; exit 0", "3s",
			[]string{"/plugin.sh gave no answer within 3s (--request-timeout); it was stopped (it had exited 0 without a complete answer, but a process it started kept its stdout open"}},
	}
	for _, p := range plugins {
		for _, args := range credentialCommands {
			t.Run(p.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				killAtEnd(t, dir)
				kc := execKubeconfig(t, base, pluginScript(t, dir, p.body))
				r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, 2*time.Minute, append(args, "--request-timeout", p.timeout)...)
				line := strings.TrimSpace(r.Stderr)
				t.Logf("exit %d in %s, max RSS %d MB: %.400s", r.Code, r.Duration.Round(time.Millisecond), r.MaxRSS>>20, line)
				if r.Code != 2 || strings.Count(line, "\n") != 0 || !strings.HasPrefix(line, "error: ") || !strings.Contains(line, "cannot use the kubeconfig's credentials: ") {
					t.Fatalf("want exit 2 and the one credentials line, got exit %d:\n%s", r.Code, r.Stderr)
				}
				for _, w := range p.want {
					if !strings.Contains(line, w) {
						t.Fatalf("the line lacks %q: %s", w, line)
					}
				}
				if strings.Contains(line, "kubectl-watchrv failed") || strings.Contains(line, "__credential") {
					t.Fatalf("the line names the relay, not the plugin: %s", line)
				}
				if r.Duration > 20*time.Second {
					t.Fatalf("took %s: the plugin held the run", r.Duration)
				}
				if r.MaxRSS > 256<<20 {
					t.Fatalf("max RSS %d MB: the plugin's output was kept", r.MaxRSS>>20)
				}
				for _, pid := range pidsIn(dir) {
					deadline := time.Now().Add(5 * time.Second)
					for running(pid) && time.Now().Before(deadline) {
						time.Sleep(50 * time.Millisecond)
					}
					if running(pid) {
						t.Fatalf("a process of the plugin (pid %d) outlived the run", pid)
					}
				}
			})
		}
	}
}

// A plugin that printed its ExecCredential and exited 0, leaving a
// process it started holding its stdout (and stderr), gave its answer:
// every command goes on at once with its token, on the real API server
// (adversary try 19 #16: client-go waited for an EOF that never came, and
// the run failed at --request-timeout with "gave no answer within").
func TestCredentialPluginThatAnsweredIsNotWaitedFor(t *testing.T) {
	base := cluster(t).Kubeconfig
	body := cred(framework.AdminToken) + "; sleep 300 & echo $! >> DIR/pids; exit 0"
	for _, args := range credentialCommands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			killAtEnd(t, dir)
			kc := execKubeconfig(t, base, pluginScript(t, dir, body))
			r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, 2*time.Minute, append(args, "--request-timeout", "30s")...)
			t.Logf("exit %d in %s: %.300s", r.Code, r.Duration.Round(time.Millisecond), strings.TrimSpace(r.Stderr))
			if r.Code != 0 || strings.Contains(r.Stderr, "credential") {
				t.Fatalf("want exit 0 with the plugin's token, got exit %d:\n%s", r.Code, r.Stderr)
			}
			if r.Duration > 20*time.Second {
				t.Fatalf("took %s: the run waited for the plugin's child", r.Duration)
			}
			if len(pidsIn(dir)) == 0 {
				t.Fatal("the plugin never ran")
			}
		})
	}
}

// What a credential plugin prints that client-go refuses is said in a
// user's terms, in every command: the apiVersion it named, or that it
// was no ExecCredential, never the scheme's Go source position nor
// encoding/json's Go types (adversary try 21: `no kind "ExecCredential"
// is registered for version ... in scheme "pkg/runtime/scheme.go:111"`,
// and `json: cannot unmarshal string into Go value of type struct {
// APIVersion string "json:\"apiVersion,omitempty\"" ...`); try 22 F11:
// another kind, `no kind "Pod" is registered ...`, and no apiVersion,
// "plugin returned version client.authentication.k8s.io/__internal").
func TestCredentialPluginOutputClientGoRefusesIsSaidInUsersWords(t *testing.T) {
	srv := framework.StartTLSScriptServer(nil)
	t.Cleanup(srv.Close)
	base, err := srv.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notExecCredential := "the credential plugin printed what is not an ExecCredential"
	noAPIVersion := "the credential plugin printed an answer with no apiVersion, where the kubeconfig's exec.apiVersion is client.authentication.k8s.io/v1"
	outputs := []struct{ name, body, want string }{
		{"an unknown apiVersion", `printf '{"apiVersion":"client.authentication.k8s.io/v9","kind":"ExecCredential","status":{"token":"x"}}'`, `printed an ExecCredential of apiVersion "client.authentication.k8s.io/v9", which this client does not read`},
		{"another group", `printf '{"apiVersion":"example.com/v1","kind":"ExecCredential","status":{"token":"x"}}'`, `of apiVersion "example.com/v1"`},
		{"another kind", `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod","status":{"token":"x"}}'`, `printed kind "Pod" of apiVersion "client.authentication.k8s.io/v1", where an ExecCredential is wanted`},
		{"another kind of another group", `printf '{"apiVersion":"example.com/v9","kind":"Secret","status":{"token":"x"}}'`, `printed kind "Secret" of apiVersion "example.com/v9", where an ExecCredential is wanted`},
		{"no apiVersion", `printf '{"kind":"ExecCredential","status":{"token":"x"}}'`, noAPIVersion},
		{"neither apiVersion nor kind", `printf '{"status":{"token":"x"}}'`, noAPIVersion},
		{"not JSON", `echo 'hello {'`, notExecCredential},
		{"a JSON string", `echo '"token"'`, notExecCredential},
		{"a JSON array", `echo '[1,2]'`, notExecCredential},
		// Each field of the wrong JSON type, and a time that is none, is
		// named in the API's words (adversary try 23 F3: "json: cannot
		// unmarshal number into Go struct field
		// ExecCredentialStatus.status.token of type string", and Go's
		// time layout, "parsing time \"tomorrow\" as
		// \"2006-01-02T15:04:05Z07:00\"").
		{"a token that is a number", execCredential(`"status":{"token":42}`), `printed an ExecCredential with a JSON number as status.token: status.token must be a string`},
		{"a token that is an object", execCredential(`"status":{"token":{"a":1}}`), `a JSON object as status.token: status.token must be a string`},
		{"a client certificate that is a list", execCredential(`"status":{"clientCertificateData":["x"],"clientKeyData":"k"}`), `a JSON array as status.clientCertificateData: status.clientCertificateData must be a string`},
		{"a client key that is true", execCredential(`"status":{"clientCertificateData":"c","clientKeyData":true}`), `a JSON bool as status.clientKeyData: status.clientKeyData must be a string`},
		{"a status that is a string", execCredential(`"status":"ok"`), `a JSON string as status: status must be an object`},
		{"a spec that is a number", execCredential(`"spec":1,"status":{"token":"x"}`), `a JSON number as spec: spec must be an object`},
		{"spec.interactive a string", execCredential(`"spec":{"interactive":"no"},"status":{"token":"x"}`), `a JSON string as spec.interactive: spec.interactive must be true or false`},
		{"spec.cluster.server a number", execCredential(`"spec":{"cluster":{"server":1}},"status":{"token":"x"}`), `a JSON number as spec.cluster.server: spec.cluster.server must be a string`},
		{"spec.cluster.certificate-authority-data not base64", execCredential(`"spec":{"cluster":{"certificate-authority-data":"%%%"}},"status":{"token":"x"}`), `spec.cluster.certificate-authority-data must be base64`},
		{"spec.cluster.certificate-authority-data a number", execCredential(`"spec":{"cluster":{"certificate-authority-data":5}},"status":{"token":"x"}`), `a JSON number as spec.cluster.certificate-authority-data: spec.cluster.certificate-authority-data must be a base64 string`},
		{"an expirationTimestamp that is no time", execCredential(`"status":{"token":"x","expirationTimestamp":"tomorrow"}`), `printed an ExecCredential with "tomorrow" as status.expirationTimestamp: status.expirationTimestamp must be an RFC 3339 time`},
		{"an expirationTimestamp out of range", execCredential(`"status":{"token":"x","expirationTimestamp":"2030-13-01T00:00:00Z"}`), `status.expirationTimestamp must be an RFC 3339 time`},
		{"an expirationTimestamp without its zone", execCredential(`"status":{"token":"x","expirationTimestamp":"2030-01-01T00:00:00"}`), `status.expirationTimestamp must be an RFC 3339 time`},
		{"an expirationTimestamp that is a number", execCredential(`"status":{"token":"x","expirationTimestamp":1700000000}`), `status.expirationTimestamp must be an RFC 3339 time`},
	}
	goWords := []string{"scheme.go", "Go value of type", "json:", "struct {", "version/kind", "pkg/runtime", "__internal", "is registered for version", "Go struct field", "Go value", "2006-01-02", "of type ", "ExecCredentialStatus", "v1.", "[]uint8", "illegal base64"}
	for _, o := range outputs {
		for _, args := range credentialCommands {
			t.Run(o.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				kc := execKubeconfig(t, base, pluginScript(t, dir, o.body))
				r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, time.Minute, append(args, "--request-timeout", "10s")...)
				line := strings.TrimSpace(r.Stderr)
				if r.Code != 2 || strings.Count(line, "\n") != 0 || !strings.Contains(line, "cannot use the kubeconfig's credentials: ") || !strings.Contains(line, o.want) {
					t.Fatalf("want exit 2 and one credentials line with %q, got exit %d:\n%s", o.want, r.Code, r.Stderr)
				}
				for _, w := range goWords {
					if strings.Contains(line, w) {
						t.Fatalf("the line carries library words %q: %s", w, line)
					}
				}
			})
		}
	}
}

// execCredential is a plugin body that prints a v1 ExecCredential with
// the given fields.
func execCredential(fields string) string {
	return `printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",` + fields + `}'`
}

// Adversary try 46 F3: the relay's status file is named in the relay's
// argv, which the plugin can read (/proc/$PPID/cmdline) and write: a
// plugin wrote "held-open" there and hung, and the run said it had exited
// while a process it started kept its stdout open. A verdict there starts
// with the run's nonce, which the plugin never sees: what it writes is no
// verdict, in every command. Each forged form is tried (the verdict alone,
// with a nonce of its own, the gate's verdict).
func TestCredentialPluginCannotForgeTheRelaysStatus(t *testing.T) {
	srv := framework.StartTLSScriptServer(nil)
	t.Cleanup(srv.Close)
	base, err := srv.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Adversary try 47 F1: a FIFO in the file's place made every open of
	// it block for ever (the run locked up past every bound and signal).
	forms := map[string]string{
		"held-open":          `printf '%s' 'held-open' > "$status"`,
		"a nonce of its own": `printf '%s' '0123456789abcdef0123456789abcdef held-open' > "$status"`,
		"a FIFO":             `rm -f "$status" && mkfifo "$status"`,
		"a link":             `rm -f "$status" && ln -s /dev/zero "$status"`,
	}
	for name, forge := range forms {
		for _, args := range credentialCommands {
			t.Run(name+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				// The status file is the relay's first argument after its
				// mode: the plugin's parent is the relay.
				body := `echo $$ >> DIR/pids
status=$(tr '\0' '\n' < /proc/$PPID/cmdline | grep kubectl-watchrv-credential-plugin- | head -1)
[ -n "$status" ] && ` + forge + ` && echo found > DIR/found
exec sleep 60`
				kc := execKubeconfig(t, base, pluginScript(t, dir, body))
				killAtEnd(t, dir)
				r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, time.Minute, append(args, "--request-timeout", "3s")...)
				if _, err := os.Stat(filepath.Join(dir, "found")); err != nil {
					t.Fatalf("the plugin found no status file to forge (exit %d): the attack did not run:\n%s", r.Code, r.Stderr)
				}
				if r.Duration > 20*time.Second || strings.Contains(r.Stderr, "kept its stdout open") || strings.Contains(r.Stderr, "exited 0") || !strings.Contains(r.Stderr, "gave no answer within 3s") {
					t.Errorf("exit %d in %s: the forged status was taken as the relay's, or held the run:\n%s", r.Code, r.Duration, r.Stderr)
				}
			})
		}
	}
}
