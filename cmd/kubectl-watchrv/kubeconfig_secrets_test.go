package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// kubeconfigCommands are the commands that read a kubeconfig, with the
// per-server view, each bounded so that none waits on a closed port.
var kubeconfigCommands = [][]string{
	{"list", "cm"}, {"list", "cm", "--servers"}, {"list", "cm", "--endpoints", "127.0.0.1:9"},
	{"watch", "cm", "--timeout", "3s"}, {"watch", "cm", "--follow", "--timeout", "3s"},
	{"probe", "cm"}, {"probe", "--all"}, {"probe", "cm", "--servers"},
	{"streaming", "cm"}, {"streaming", "--all"}, {"version"},
	{"explain-error", "--check", "too old resource version: 1 (2)"},
	{"explain-error", "--check", "--servers", "Timeout: Too large resource version: 9, current: 2"},
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// E23 (issue 25): a credential exec plugin that fails in any way makes
// the kubeconfig unusable: exit 2 and one line naming it, in every command.
// Real plugins, run by client-go's exec authenticator: one that prints
// what is not JSON (exit 1 before), one that exits non-zero, one whose
// ExecCredential has no status, and one that never answers in time (it
// held every command for as long as it slept, past --request-timeout).
func TestCredentialPluginFailuresAreExit2InEveryCommand(t *testing.T) {
	plugins := []struct{ kind, body, timeout string }{
		{"malformed output", `echo '{"apiVersion": "client.authentication.k8s.io/v1", not json'`, "10s"},
		{"non-zero exit", "echo 'token service down' >&2; exit 3", "10s"},
		{"no status", `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}'`, "10s"},
		{"sleeps", "sleep 3; echo never", "300ms"},
		// Go's transport refuses the header before it dials.
		{"control byte in the token", `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"a\\u001bb"}}'`, "10s"},
	}
	for _, p := range plugins {
		script := writeScript(t, "plugin.sh", p.body)
		kc := writeUnusableKubeconfig(t, "exec", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+script+"\n      interactiveMode: Never")
		for _, args := range kubeconfigCommands {
			t.Run(p.kind+"/"+strings.Join(args, " "), func(t *testing.T) {
				_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", append([]string{"--kubeconfig", kc, "--request-timeout", p.timeout}, args...)...)
				line := strings.TrimSpace(errOut)
				if code != ExitUsage || strings.Count(line, "\n") != 0 || !strings.Contains(line, "kubeconfig") || !strings.Contains(line, "credentials") {
					t.Fatalf("exit %d, want %d and one line naming the kubeconfig's credentials: %s", code, ExitUsage, errOut)
				}
				if p.kind == "sleeps" && !strings.Contains(line, "gave no answer within 300ms (--request-timeout)") {
					t.Fatalf("the wait is not bounded by --request-timeout: %s", line)
				}
				// client-go ran the relay (credentials_relay.go): the line
				// names the plugin, with its own exit code.
				if p.kind == "non-zero exit" && !strings.Contains(line, "executable "+script+" failed with exit code 3") {
					t.Fatalf("the line does not name the plugin and its exit code: %s", line)
				}
			})
		}
	}
}

// A plugin that gave no answer in time is stopped, with what it started:
// it does not outlive the run (Linux: /proc and the child subreaper).
func TestAbandonedCredentialPluginIsStopped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux gives a process its descendants (/proc) and makes it their subreaper")
	}
	for _, c := range []stoppedPlugin{
		// A plugin that waits on a child of its own.
		{"waits", `sleep 60 & echo $! > DIR/child; echo $$ > DIR/plugin; wait`},
		// One that becomes another program (kubectl running a kubectl-
		// plugin does): the same process under another name.
		{"execs", `echo $$ > DIR/plugin; echo $$ > DIR/child; exec sleep 60`},
		// One that forks and exits: its child, an orphan, keeps the
		// plugin's stdout open, so client-go still waits.
		{"forks and exits", `sh -c 'echo $$ > DIR/child; exec sleep 60' & echo $$ > DIR/plugin; exit 0`},
		// A shell waiting on a foreground child: killed before the shell,
		// the child would make it print "Killed" on the user's terminal.
		{"shell waits on its child", `echo $$ > DIR/plugin; sh -c 'echo $$ > DIR/child; exec sleep 60'; echo after`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			script := writeScript(t, "hangs.sh", strings.ReplaceAll(c.body, "DIR", dir))
			kc := writeUnusableKubeconfig(t, "exec", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+script+"\n      interactiveMode: Never")
			// 1500ms: time for the relay's two stages and the shell to
			// start on a loaded machine (at 500ms, the plugin had not
			// yet written its pid under a load of 7).
			_, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", "--kubeconfig", kc, "--request-timeout", "1500ms", "list", "cm")
			if code != ExitUsage || !strings.Contains(errOut, "gave no answer within 1.5s (--request-timeout); it was stopped") {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			// Stopped as one: nothing of it reacts on the terminal.
			if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 {
				t.Fatalf("want the one error line, got %d lines: %q", len(lines), errOut)
			}
			c.check(t, dir)
			// The run's own end (a watch's --timeout, as Ctrl-C) with the
			// plugin still running: stopped on the way out too.
			_, errOut, code = runWithEnv(t, "/nonexistent-watchrv-unit", "--kubeconfig", kc, "--request-timeout", "30s", "watch", "cm", "--timeout", "1s")
			if code == ExitOK {
				t.Fatalf("watch with a plugin that never answers: exit 0: %s", errOut)
			}
			c.check(t, dir)
		})
	}
}

// stoppedPlugin is one shape of a plugin that never answers.
type stoppedPlugin struct{ name, body string }

// check: the plugin and its child, by the pids they wrote, are gone.
func (stoppedPlugin) check(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"plugin", "child"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("the plugin wrote no %s pid: %v", f, err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		deadline := time.Now().Add(5 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("the %s (pid %d) still runs after the run gave up on it", f, pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		os.Remove(filepath.Join(dir, f))
	}
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	return !strings.Contains(s[strings.LastIndexByte(s, ')')+1:], " Z ")
}

// E24 (issue 25): no command prints a secret the kubeconfig holds, for
// every way it fails before or at the first request: a password in every
// URL-bearing field (cluster server and proxy-url, --server, --proxy-url,
// an auth-provider's URL, an exec plugin's env), a query value, a token.
// client-go quotes a malformed URL whole in its error.
func TestKubeconfigSecretsAreNeverPrinted(t *testing.T) {
	failing := writeScript(t, "fail.sh", "exit 3")
	cluster := func(server, proxy string) string {
		s := "    server: \"" + server + "\"\n    insecure-skip-tls-verify: true\n"
		if proxy != "" {
			s += "    proxy-url: \"" + proxy + "\"\n"
		}
		return s
	}
	token := "    token: SECRET-TOKEN-1"
	cases := []struct {
		name, cluster, user string
		flags               []string
	}{
		{"unreachable server with a password", cluster("https://admin:SECRET-SRV@127.0.0.1:9", ""), token, nil},
		{"server with a password and a query token", cluster("https://admin:SECRET-SRV@127.0.0.1:9/?access_token=SECRET-QUERY", ""), token, nil},
		{"malformed server", cluster("https://admin:SECRET SRV@127.0.0.1:9/%zz", ""), token, nil},
		{"unreachable proxy-url with a password", cluster("https://127.0.0.1:9", "http://proxy:SECRET-PROXY@127.0.0.1:1"), token, nil},
		// net/url quotes the bad escape: three characters of the password.
		{"bad escape inside the password", cluster("https://admin:SECRET%ZZSECRET@127.0.0.1:9", ""), token, nil},
		{"bad escape inside the proxy password", cluster("https://127.0.0.1:9", "http://proxy:SECRET%ZZSECRET@127.0.0.1:1"), token, nil},
		// client-go reads a server it cannot parse again with a scheme
		// before it: neither form is printed with the password, nor with
		// the scheme doubled.
		{"bare host with a bad escape in the password", cluster("admin:SECRET%zz@127.0.0.1:9", ""), token, nil},
		{"scheme and a bad escape in the password", cluster("http://admin:SECRET%zz@127.0.0.1:9", ""), token, nil},
		{"a token as the user of the URL", cluster("https://SECRET-USERTOKEN@127.0.0.1:9", ""), token, nil},
		// A # ? or / in a password ends the host for a parser, which
		// quotes what came before (adversary try 8).
		{"a # in the password", cluster("https://admin:SECRETPW#@127.0.0.1:9", ""), token, nil},
		{"a numeric password before #", cluster("https://admin:4455#SECRET@127.0.0.1:9", ""), token, nil},
		{"a / in the password", cluster("https://admin:SEC/RET@127.0.0.1:9", ""), token, nil},
		{"a # in the proxy password", cluster("https://127.0.0.1:9", "http://puser:SECRETPX#@127.0.0.1:1"), token, nil},
		{"--server with a # in the password", cluster("https://127.0.0.1:9", ""), token, []string{"--server", "https://admin:SECRETFL#@127.0.0.1:9"}},
		{"no scheme, a token in the query, a URL after it", cluster("127.0.0.1:9?token=SECRETQ&next=https://y", ""), token, nil},
		{"no scheme, a bad escape, a token in the query", cluster("127.0.0.1:9/%zz?token=SECRETQ&next=http://y", ""), token, nil},
		{"malformed proxy-url", cluster("https://127.0.0.1:9", "http://proxy:SECRET PROXY@127.0.0.1:1/%zz"), token, nil},
		{"proxy-url of an unsupported scheme", cluster("https://127.0.0.1:9", "ftp://proxy:SECRET-PROXY@127.0.0.1:1"), token, nil},
		{"socks5 proxy-url with a password", cluster("https://127.0.0.1:9", "socks5://proxy:SECRET-PROXY@127.0.0.1:1"), token, nil},
		{"--proxy-url malformed", cluster("https://127.0.0.1:9", ""), token, []string{"--proxy-url", "http://proxy:SECRET FLAG@127.0.0.1:1 x"}},
		{"--server malformed", cluster("https://127.0.0.1:9", ""), token, []string{"--server", "https://admin:SECRET FLAG@127.0.0.1:9/%zz"}},
		{"--token with a malformed server", cluster("https://127.0.0.1:9/%zz", ""), token, []string{"--token", "SECRET-FLAG-TOKEN"}},
		{"oidc auth-provider", cluster("https://127.0.0.1:9", ""), "    auth-provider:\n      name: oidc\n      config: {client-id: x, client-secret: SECRET-OIDC, id-token: SECRET-IDTOKEN, idp-issuer-url: \"https://u:SECRET-IDP@127.0.0.1:9/?k=SECRET-IDPQ\"}", nil},
		{"exec plugin env", cluster("https://admin:SECRET-SRV@127.0.0.1:9", ""), "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + failing + "\n      interactiveMode: Never\n      env: [{name: VAULT, value: \"https://v:SECRET-ENV@127.0.0.1:8200\"}, {name: API_TOKEN, value: SECRET-ENV-TOKEN}]", nil},
	}
	for _, c := range cases {
		kc := filepath.Join(t.TempDir(), "secret.kubeconfig")
		content := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n" + c.cluster +
			"users:\n- name: u\n  user:\n" + c.user + "\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: default}\ncurrent-context: c\n"
		if err := os.WriteFile(kc, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range kubeconfigCommands {
			t.Run(c.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				all := append(append([]string{"--kubeconfig", kc, "--request-timeout", "2s"}, c.flags...), args...)
				out, errOut, code := runWithEnv(t, "/nonexistent-watchrv-unit", all...)
				if strings.Contains(out+errOut, "SECRET") || strings.Contains(out+errOut, "%ZZ") || strings.Contains(out+errOut, "4455") || strings.Contains(out+errOut, "SEC/") {
					t.Fatalf("a secret of the kubeconfig was printed (exit %d):\n%s%s", code, out, errOut)
				}
				if strings.Contains(out+errOut, "://http") {
					t.Fatalf("a URL printed with its scheme doubled (exit %d):\n%s", code, errOut)
				}
				if code == ExitOK {
					t.Fatalf("exit 0 on a kubeconfig that cannot work: %s", errOut)
				}
			})
		}
	}
}

// The redaction hides what is secret and leaves the rest of the line as
// it is: a value that is no secret (a region, a client id) is not
// replaced wherever its word shows.
func TestRedactionKeepsWhatIsNoSecret(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "r.kubeconfig")
	content := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://admin:pw-SECRET@127.0.0.1:9\", proxy-url: \"http://p:PROXY-PW@127.0.0.1:1\"}\n" +
		"users:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: x, env: [{name: AWS_REGION, value: default}, {name: AWS_SECRET_ACCESS_KEY, value: abcd1234}]}\n" +
		"contexts:\n- name: c\n  context: {cluster: c, user: u, namespace: default}\ncurrent-context: c\n"
	if err := os.WriteFile(kc, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	_, o := newRootCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	o.ConfigFlags.KubeConfig = &kc
	got := o.redactKubeconfig(`namespace default: Get "https://admin:pw-SECRET@127.0.0.1:9/api" via http://p:PROXY-PW@127.0.0.1:1 (key abcd1234)`)
	want := `namespace default: Get "https://admin:xxxxx@127.0.0.1:9/api" via http://p:xxxxx@127.0.0.1:1 (key xxxxx)`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
