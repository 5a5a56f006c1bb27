package suggest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// shellWords runs line's words through a real shell (bash: it knows the
// $'...' form) and returns the argv the shell gives the command, with env
// set in its environment.
func shellWords(t *testing.T, line string, env ...string) []string {
	t.Helper()
	// "kubectl" is replaced by a function printing each argument NUL-ended:
	// the shell parses the line exactly as a user's would.
	script := `kubectl() { printf '%s\0' "$@"; }; ` + line
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash -c %q: %v", line, err)
	}
	words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	return words
}

func TestQuoteRoundTripsThroughTheShell(t *testing.T) {
	words := []string{
		"plain", "app=demo", "", "a b", "it's", `"double"`, "$HOME", "`id`", "$(id)", "!x", "~root", "=ls",
		"app in (a,b)", "a;b", "a|b", "a&b", "*", "?", "[x]", "{a,b}", "#c", "tab\there", "new\nline",
		"esc\x1b[2J", "bell\x07", "cr\r bs\b vt\v ff\f so\x0e", "c1\u009b", "back\\slash", "ünïcödé", "del\x7f", "bad\xffutf8", "'", `\'`,
	}
	for _, w := range words {
		line := "kubectl " + Quote(w)
		got := shellWords(t, line)
		if len(got) != 1 || got[0] != w {
			t.Errorf("Quote(%q) = %s: the shell gives back %q", w, Quote(w), got)
		}
		if strings.ContainsAny(Quote(w), "\n\x1b\x07\x7f") || strings.Contains(Quote(w), "\u009b") {
			t.Errorf("Quote(%q) = %q holds a raw control character", w, Quote(w))
		}
	}
}

// parsed is a FlagSet with cli-runtime's kubeconfig flags and the given
// command line parsed into it, as the plugin's commands have them.
func parsed(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	genericclioptions.NewConfigFlags(true).AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func noEnv(string) string { return "" }

// The class: every kubeconfig flag the user gave is carried, each value
// reaching the command as given (paths made absolute), secrets as a
// variable the note names.
func TestEveryConnectionFlagIsCarried(t *testing.T) {
	wd, _ := os.Getwd()
	fs := parsed(t,
		"--kubeconfig", "kc.yaml", "--context", "first ctx", "--cluster", "c1", "--user", "u1",
		"--server", "https://127.0.0.1:6443", "--tls-server-name", "api.example", "--certificate-authority", "/ca.crt",
		"--client-certificate", "cert.pem", "--client-key", "key.pem", "--insecure-skip-tls-verify",
		"--as", "alice", "--as-group", "g1", "--as-group", "g 2", "--as-uid", "42", "--as-user-extra", "scopes=a b",
		"--request-timeout", "5s", "--cache-dir", "/tmp/c", "--disable-compression", "--token", "s3cret", "--proxy-url", "http://127.0.0.1:3128",
		"-n", "ignored-here",
	)
	c := From(fs, noEnv)
	l, err := c.Command("watch", "configmaps", Scope{Namespace: "demo", LabelSelector: "app in (a,b)", Name: "a"}, RV("523"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(l.String(), "s3cret") || strings.Contains(strings.Join(l.Args, " "), "s3cret") {
		t.Fatalf("a secret is printed: %s", l)
	}
	got := shellWords(t, l.String(), "WATCHRV_TOKEN=s3cret")
	want := []string{"watchrv", "watch", "configmaps", "a", "-n", "demo", "-l", "app in (a,b)", "--rv", "523",
		"--kubeconfig", filepath.Join(wd, "kc.yaml"), "--context", "first ctx",
		"--as", "alice", "--as-group", "g1", "--as-group", "g 2", "--as-uid", "42", "--as-user-extra", "scopes=a b",
		"--cache-dir", "/tmp/c", "--certificate-authority", "/ca.crt",
		"--client-certificate", filepath.Join(wd, "cert.pem"), "--client-key", filepath.Join(wd, "key.pem"),
		"--cluster", "c1", "--disable-compression", "--insecure-skip-tls-verify", "--proxy-url", "http://127.0.0.1:3128",
		"--request-timeout", "5s", "--server", "https://127.0.0.1:6443", "--tls-server-name", "api.example",
		"--token", "s3cret", "--user", "u1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pasted:\n%s\ngives\n%q\nwant\n%q", l, got, want)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "WATCHRV_TOKEN") {
		t.Errorf("notes: %q", l.Notes)
	}
	// Every flag cli-runtime has (but -n, which the scope carries) is in
	// the table this test checks: a new one fails here until it is.
	seen := map[string]bool{}
	for _, w := range want {
		seen[strings.TrimPrefix(w, "--")] = true
	}
	for _, name := range connectionFlags {
		if !seen[name] {
			t.Errorf("--%s is not tested", name)
		}
	}
}

func TestURLWithAPasswordIsHidden(t *testing.T) {
	l, err := From(parsed(t, "--server", "https://admin:hunter2@127.0.0.1:6443", "--proxy-url", "http://u:p@127.0.0.1:3128"), noEnv).Command("probe", "configmaps", Scope{AllNamespaces: true}, Bool("servers"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(l.String(), "hunter2") || strings.Contains(l.String(), "u:p@") {
		t.Fatalf("a password in a URL is printed: %s", l)
	}
	got := shellWords(t, l.String(), "WATCHRV_SERVER=https://admin:hunter2@127.0.0.1:6443", "WATCHRV_PROXY_URL=x")
	if strings.Join(got, " ") != "watchrv probe configmaps -A --servers --proxy-url x --server https://admin:hunter2@127.0.0.1:6443" {
		t.Fatalf("got %q", got)
	}
}

// KUBECONFIG chose the file: the line names it, so that it reaches the same
// cluster where KUBECONFIG is unset or names another file.
func TestKubeconfigFromTheEnvironment(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "KUBECONFIG" {
				return v
			}
			return ""
		}
	}
	dir := t.TempDir()
	k1, k2 := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	for _, f := range []string{k1, k2} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	one, _ := From(parsed(t), env(k1)).Command("list", "pods", Scope{})
	if got := shellWords(t, one.String(), "KUBECONFIG=/k/other"); strings.Join(got, " ") != "watchrv list pods --kubeconfig "+k1 {
		t.Errorf("one file: %s gives %q", one, got)
	}
	two, _ := From(parsed(t), env(k1+":/k/missing:"+k2)).Command("list", "pods", Scope{})
	if two.String() != "KUBECONFIG="+k1+":"+k2+" kubectl watchrv list pods" {
		t.Errorf("two files (and a missing one, skipped as client-go skips it): %s", two)
	}
	missing, _ := From(parsed(t), env("/k/missing")).Command("list", "pods", Scope{})
	if missing.String() != "kubectl watchrv list pods" {
		t.Errorf("KUBECONFIG naming only a missing file: %s", missing)
	}
	flag, _ := From(parsed(t, "--kubeconfig", "/k/flag"), env("/k/a:/k/b")).Command("list", "pods", Scope{})
	if flag.String() != "kubectl watchrv list pods --kubeconfig /k/flag" {
		t.Errorf("--kubeconfig wins over KUBECONFIG: %s", flag)
	}
	none, _ := From(parsed(t), noEnv).Command("list", "pods", Scope{})
	if none.String() != "kubectl watchrv list pods" {
		t.Errorf("nothing given: %s", none)
	}
}

// D17: a --rv the plugin refuses is never suggested.
func TestRefusedRVIsNeverSuggested(t *testing.T) {
	for _, v := range []string{"-7", "", "abc", "1.5", "+3", " 1", "18446744073709551616"} {
		_, err := Context{}.Command("watch", "configmaps", Scope{}, RV(v))
		var ie *InvalidRVError
		if !errors.As(err, &ie) {
			t.Errorf("--rv %q: suggested (err %v)", v, err)
		}
	}
	for _, v := range []string{"0", "1", "523", "list", "18446744073709551615"} {
		if _, err := (Context{}).Command("watch", "configmaps", Scope{}, RV(v)); err != nil {
			t.Errorf("--rv %q: %v", v, err)
		}
	}
}

// Issue 25, as a class: a suggested per-server view reaches the servers the
// user named. The EndpointSlices may not list them (a bastion, a test
// harness): a pasted --servers would then fail, so --servers is the user's
// --endpoints; a command that is not a per-server view carries none.
func TestSuggestedServersAreTheUsersEndpoints(t *testing.T) {
	fs := parsed(t)
	fs.StringSlice("endpoints", nil, "")
	fs.Bool("servers", false, "")
	if err := fs.Parse([]string{"--endpoints", "127.0.0.1:6443", "--endpoints=127.0.0.2:6443", "--context", "kind"}); err != nil {
		t.Fatal(err)
	}
	c := From(fs, func(string) string { return "" })
	l, err := c.Command("probe", "configmaps", Scope{Namespace: "demo"}, Bool("servers"), Bool("metrics"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"watchrv", "probe", "configmaps", "-n", "demo", "--endpoints", "127.0.0.1:6443,127.0.0.2:6443", "--metrics", "--context", "kind"}
	if !reflect.DeepEqual(l.Args, want) {
		t.Fatalf("args %q, want %q", l.Args, want)
	}
	if got := shellWords(t, l.String()); !reflect.DeepEqual(got, want) {
		t.Fatalf("the shell gives %q, want %q", got, want)
	}
	w, err := c.Command("watch", "configmaps", Scope{Namespace: "demo"}, RV("5"))
	if err != nil || strings.Contains(w.String(), "endpoints") {
		t.Fatalf("a watch carries the per-server flag: %s (%v)", w, err)
	}
	plain, err := From(parsed(t), nil).Command("probe", "configmaps", Scope{}, Bool("servers"))
	if err != nil || !strings.HasSuffix(plain.String(), "probe configmaps --servers") {
		t.Fatalf("without --endpoints: %s (%v)", plain, err)
	}
}
