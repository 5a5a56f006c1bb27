package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// runWithEnv runs the command line in-process with KUBECONFIG and HOME set
// (HOME holds cli-runtime's discovery cache).
func runWithEnv(t *testing.T, kubeconfigEnv string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("KUBECONFIG", kubeconfigEnv)
	t.Setenv("HOME", t.TempDir())
	var out, errb bytes.Buffer
	code := run(args, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb})
	return out.String(), errb.String(), code
}

// writeKubeconfig writes a kubeconfig for a closed loopback port with the
// given user block (nothing is ever sent: each of these fails before).
func writeUnusableKubeconfig(t *testing.T, name, user string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".kubeconfig")
	content := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:9
    insecure-skip-tls-verify: true
users:
- name: u
  user:
` + user + `
contexts:
- name: c
  context: {cluster: c, user: u, namespace: default}
current-context: c
`
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// One rule for a kubeconfig that cannot be used, in every command: exit 2
// and one line that says it is the kubeconfig (issue 16, item 9: an oidc
// auth-provider gave list/watch 2 and probe 1; bad client-certificate-data
// list/watch 2 and probe 5).
func TestUnusableKubeconfigIsExit2InEveryCommand(t *testing.T) {
	kubeconfigs := map[string]string{
		"oidc auth-provider": writeUnusableKubeconfig(t, "oidc", `    auth-provider:
      name: oidc
      config: {client-id: x, idp-issuer-url: "https://127.0.0.1:9"}`),
		"gcp auth-provider":            writeUnusableKubeconfig(t, "gcp", "    auth-provider: {name: gcp}"),
		"bad client-certificate-data":  writeUnusableKubeconfig(t, "cert", "    client-certificate-data: bm90LWEtY2VydA==\n    client-key-data: bm90LWEta2V5"),
		"credential plugin that fails": writeUnusableKubeconfig(t, "exec", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /nonexistent-watchrv-credential-plugin\n      interactiveMode: Never"),
	}
	commands := [][]string{
		{"list", "cm"}, {"list", "cm", "--servers"}, {"list", "cm", "--endpoints", "127.0.0.1:9"},
		{"watch", "cm"}, {"watch", "cm", "--follow", "--timeout", "5s"},
		{"probe", "cm"}, {"probe", "--all"}, {"probe", "cm", "--servers"},
		{"streaming", "cm"}, {"version"},
		{"explain-error", "--check", "too old resource version: 1 (2)"},
	}
	for kind, kc := range kubeconfigs {
		for _, args := range commands {
			t.Run(kind+"/"+strings.Join(args, " "), func(t *testing.T) {
				_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", append([]string{"--kubeconfig", kc}, args...)...)
				line := strings.TrimSpace(errOut)
				if code != ExitUsage {
					t.Fatalf("exit %d, want %d: %s", code, ExitUsage, line)
				}
				if strings.Count(line, "\n") != 0 || !strings.Contains(line, "kubeconfig") {
					t.Fatalf("want one line naming the kubeconfig, got: %s", errOut)
				}
			})
		}
	}
}

// KUBECONFIG naming only missing files: as kubectl, client-go falls back to
// http://localhost:8080 and the failure keeps its code (4 when nothing
// listens there), but the line names the missing file (issue 16, item
// 28). --kubeconfig naming a missing file is a usage error (2).
func TestMissingKubeconfigIsNamed(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-kubeconfig")
	for _, args := range [][]string{{"list", "cm"}, {"watch", "cm"}, {"probe", "cm"}, {"version"}} {
		t.Run("KUBECONFIG/"+args[0], func(t *testing.T) {
			_, errOut, code := runWithEnv(t, missing, args...)
			want := "KUBECONFIG names " + missing + ", which does not exist"
			if code != ExitUnreachable || !strings.Contains(errOut, want) || !strings.Contains(errOut, "localhost:8080") {
				t.Fatalf("exit %d, want %d with %q and localhost:8080: %s", code, ExitUnreachable, want, errOut)
			}
		})
		t.Run("--kubeconfig/"+args[0], func(t *testing.T) {
			_, errOut, code := runWithEnv(t, "", append([]string{"--kubeconfig", missing}, args...)...)
			if code != ExitUsage || !strings.Contains(errOut, missing) {
				t.Fatalf("exit %d, want %d naming %s: %s", code, ExitUsage, missing, errOut)
			}
		})
	}
	// Two missing files are both named.
	other := missing + "-2"
	_, errOut, _ := runWithEnv(t, missing+string(os.PathListSeparator)+other, "list", "cm")
	if !strings.Contains(errOut, missing+", "+other+", none of which exists") {
		t.Fatalf("both missing files should be named: %s", errOut)
	}
}

// A value the user gave is echoed bounded (issue 16, item 30: a 131 KB --rv
// came back in a 131,182-byte line).
func TestHugeValuesAreEchoedBounded(t *testing.T) {
	big := strings.Repeat("9", 131000)
	cases := [][]string{
		{"list", "cm", "--rv", big},
		{"watch", "cm", "--rv", big},
		{"list", "cm", "--rv", "5", "--rv-match", big},
		{"watch", "cm", "--until", big},
		{"list", "cm", "--limit", big},
		{"probe", "cm", "--servers", "--from-rv", big},
		{"list", "cm", "-n", big},
		{"list", "cm", "a/" + big},
		{"watch", "cm", big + "/x"},
		{"list", big + "/a/b"},
		{"explain-error", "--operation", big, "x"},
		{"--context", big, "list", "cm"},
		{big},
	}
	for _, args := range cases {
		t.Run(strings.ReplaceAll(strings.Join(args, " "), big, "BIG"), func(t *testing.T) {
			_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d: %.300s", code, ExitUsage, errOut)
			}
			if len(errOut) > 1024 || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("the error is %d bytes in %d line(s): %.300s", len(errOut), strings.Count(errOut, "\n"), errOut)
			}
		})
	}
}

// client-go quotes a malformed server URL whole in its error: the password
// in it is redacted there too (issue 16, item 3).
func TestMalformedServerURLIsPrintedRedacted(t *testing.T) {
	kc := writeUnusableKubeconfig(t, "badurl", "    token: x")
	content, err := os.ReadFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kc, []byte(strings.Replace(string(content), "server: https://127.0.0.1:9", `server: "https://admin:SE CRET@127.0.0.1:9"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"list", "cm"}, {"probe", "cm"}, {"version"}, {"list", "cm", "--endpoints", "127.0.0.1:9"}} {
		out, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", append([]string{"--kubeconfig", kc}, args...)...)
		if code != ExitUsage || strings.Contains(out+errOut, "CRET") || !strings.Contains(errOut, "https://xxxxx@127.0.0.1:9") {
			t.Fatalf("%v: exit %d, want 2 with the server redacted: %s", args, code, errOut)
		}
	}
}

// A server URL with a control character is named once, escaped and
// redacted, without a second scheme before it or net/url's words, in every
// command (adversary try 19: parse "https://https://...": net/url: invalid
// control character in URL).
func TestServerURLWithAControlCharacterIsNamedOnce(t *testing.T) {
	kc := writeUnusableKubeconfig(t, "control", "    token: x")
	content, err := os.ReadFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kc, []byte(strings.Replace(string(content), "server: https://127.0.0.1:9", `server: "https://admin:SECRET@127.0.0.9\e[31mRED:9"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	want := `"https://xxxxx@127.0.0.9\x1b[31mRED:9" holds a control character`
	for _, args := range kubeconfigCommands {
		out, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", append([]string{"--kubeconfig", kc}, args...)...)
		all := out + errOut
		if code != ExitUsage || !strings.Contains(errOut, want) || strings.Contains(all, "://http") || strings.Contains(all, "net/url") || strings.Contains(all, "SECRET") || strings.Count(errOut, "error: ") != 1 {
			t.Errorf("%v: exit %d, want 2 and one line with %s:\n%s", args, code, want, errOut)
		}
	}
}

// TestUnknownKubeconfigNamesGetTheirFix: a --user, --cluster or --context
// the kubeconfig does not have is named with the ones it has; a
// --request-timeout client-go cannot read is the flag's fault, not the
// kubeconfig's. All before any request (the server is a closed port).
func TestUnknownKubeconfigNamesGetTheirFix(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c1\n  cluster:\n    server: https://127.0.0.1:9\ncontexts:\n- name: x1\n  context: {cluster: c1, user: u1}\ncurrent-context: x1\nusers:\n- name: u1\n  user:\n    token: t\n"
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--user", "nosuch", "list", "cm"}, "choose a user with --user: u1"},
		{[]string{"--cluster", "nosuch", "list", "cm"}, "choose a cluster with --cluster: c1"},
		{[]string{"--context", "nosuch", "list", "cm"}, "choose a context with --context: x1"},
		{[]string{"--request-timeout", "abc", "list", "cm"}, `--request-timeout "abc" is not a duration`},
		{[]string{"--request-timeout", "abc", "version"}, `--request-timeout "abc" is not a duration`},
	} {
		_, errOut, code := runWithEnv(t, kc, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d: %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// A kubeconfig path that is not there, given with --kubeconfig or in
// KUBECONFIG, is named as the problem: "pass --kubeconfig" is no advice to
// someone who just did (fresh try 7).
func TestMissingKubeconfigPathIsNamed(t *testing.T) {
	for _, args := range [][]string{
		{"--kubeconfig", "/nonexistent-watchrv-unit/config", "list", "cm"},
		{"--kubeconfig", "/nonexistent-watchrv-unit/config", "probe", "cm"},
	} {
		_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", args...)
		if code != ExitUsage || !strings.Contains(errOut, "check the path given with --kubeconfig") || strings.Contains(errOut, "pass --kubeconfig") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// Fresh user try 11: a --certificate-authority file that is not PEM was
// told to "pass --kubeconfig, set KUBECONFIG". The fix names the
// certificate flags and fields, in every command.
func TestBadCertificateDataNamesTheCertificateFlags(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"list", "cm"}, {"watch", "cm"}, {"probe", "cm"}, {"streaming", "cm"}, {"top", "--once"}} {
		var out, errb bytes.Buffer
		code := run(append(args, "--server", "https://127.0.0.1:1", "--certificate-authority", notPEM), genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errb})
		msg := errb.String()
		if code != ExitUsage || !strings.Contains(msg, "check --certificate-authority") || strings.Contains(msg, "pass --kubeconfig") {
			t.Errorf("%v: exit %d: %s", args, code, msg)
		}
	}
}

// Every kubeconfig problem diagnose reads from client-go's words has its
// fix, and only those have one.
func TestEveryKubeconfigProblemHasItsFix(t *testing.T) {
	problems := diagnose.KubeconfigProblems()
	for _, p := range problems {
		if kubeconfigFixes[p] == "" {
			t.Errorf("%q has no fix in kubeconfigFixes", p)
		}
	}
	if len(kubeconfigFixes) != len(problems) {
		t.Errorf("kubeconfigFixes has %d fixes for %d problems", len(kubeconfigFixes), len(problems))
	}
}
