//go:build e2e

package bounds

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// hostile is what a kubeconfig value may hold to take a terminal over: a
// color (ESC CSI), a window title (OSC, ended by BEL) and a C1 CSI.
const hostile = "\x1b[31mRED\x1b]0;pwned\x07\u009b31m"

// Every kubeconfig value that reaches a terminal goes through the one
// sanitizer, whichever process and error path tells it: the exec plugin's
// command (with hostile args and env names beside it) when it writes past
// the cap (with a TMPDIR that works, and one that does not), exits non-zero,
// is killed, is not found (with the kubeconfig's install hint), or gives
// no answer; a server URL, and context, cluster and user names (the
// kubeconfig's and the flags'). Each run
// prints one error line, with no control byte of the kubeconfig raw, and
// exits with a documented code (adversary try 20 #5: the credential
// relay, without a status file, wrote the command raw to stderr, setting
// the terminal's title and colors, then a second line that called its
// own exit code 125 the plugin's).
func TestHostileKubeconfigValuesReachNoTerminalRaw(t *testing.T) {
	srv := framework.StartTLSScriptServer(nil)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	plugin := func(name, body string) string {
		p := filepath.Join(dir, name+hostile)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exec := map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1", "interactiveMode": "Never",
		"args": []string{"--arg" + hostile}, "env": []map[string]string{{"name": "NAME" + hostile, "value": "v"}},
	}
	execWith := func(command string, more map[string]any) map[string]any {
		e := map[string]any{"command": command}
		for k, v := range exec {
			e[k] = v
		}
		for k, v := range more {
			e[k] = v
		}
		return map[string]any{"exec": e}
	}
	cluster := map[string]any{"server": srv.URL(), "insecure-skip-tls-verify": true}
	cases := []struct {
		name           string
		server         map[string]any // the cluster (nil: the script server's)
		user           map[string]any
		context, cname string // the context's names of its cluster and user ("": "c" and "u")
		uname          string
		args, env      []string
		codes          []int  // documented (docs/exit-codes.md)
		want           string // in the error line, when given
		notWant        string // never in it
	}{
		{name: "exec command writes past the cap", user: execWith(plugin("yes", "exec yes"), nil), codes: []int{2}},
		{name: "exec command writes past the cap, TMPDIR unusable", user: execWith(plugin("yes", "exec yes"), nil), env: []string{"TMPDIR=/nonexistent-watchrv-e2e"}, codes: []int{2}},
		{name: "exec command exits 3", user: execWith(plugin("fails", "exit 3"), nil), codes: []int{2}},
		{name: "exec command killed, TMPDIR unusable", user: execWith(plugin("killed2", "kill -9 $$"), nil), env: []string{"TMPDIR=/nonexistent-watchrv-e2e"}, codes: []int{2}},
		{name: "exec command killed", user: execWith(plugin("killed", "kill -9 $$"), nil), codes: []int{2}, want: "was ended by a signal (killed)"},
		// Only the relay states a relay's verdict: a plugin's answer in
		// its group is no verdict (adversary try 21 F11).
		{name: "exec command forges the relay's verdict", user: execWith(plugin("forge", `printf '{"apiVersion":"kubectl-watchrv.relay.invalid/signal killed","kind":"ExecCredential"}'`), nil), codes: []int{2}, notWant: "ended by a signal"},
		// ... nor with the nonce of the run, looked for where a process
		// of the same user can read it: the relay's and the run's
		// environment and arguments (/proc/PID/environ keeps a process's
		// initial environment after os.Unsetenv: adversary try 22 F12),
		// and the relay's status file.
		{name: "exec command forges the relay's verdict with a nonce it finds", user: execWith(plugin("forge2", forgeWithFoundNonce), nil), codes: []int{2}, notWant: "ended by a signal"},
		// ... whatever the kubeconfig's exec.env and the user's shell
		// set of the relay's variables: only the relay decides that it
		// executed itself again, and it reads no descriptor an
		// environment names (adversary try 23 F2: with
		// KUBECTL_WATCHRV_RELAY_NONCE_FD set, the nonce stayed in the
		// plugin's environment, and the relay read and closed fd 0 or 1).
		{name: "exec command forges the relay's verdict, exec.env names the nonce's descriptor 1", user: execWith(plugin("forge3", forgeWithFoundNonce), relayEnv("KUBECTL_WATCHRV_RELAY_NONCE_FD", "1")), codes: []int{2}, notWant: "ended by a signal"},
		{name: "exec command forges the relay's verdict, exec.env gives both variables", user: execWith(plugin("forge4", forgeWithFoundNonce), relayEnv("KUBECTL_WATCHRV_RELAY_NONCE_FD", "0", "KUBECTL_WATCHRV_RELAY_NONCE", shellNonce)), codes: []int{2}, notWant: "ended by a signal"},
		{name: "exec command forges the relay's verdict, the shell names the nonce's descriptor 0", user: execWith(plugin("forge5", forgeWithFoundNonce), nil), env: []string{"KUBECTL_WATCHRV_RELAY_NONCE_FD=0"}, codes: []int{2}, notWant: "ended by a signal"},
		{name: "exec command forges the relay's verdict, the shell gives both variables", user: execWith(plugin("forge6", forgeWithFoundNonce), nil), env: []string{"KUBECTL_WATCHRV_RELAY_NONCE_FD=3", "KUBECTL_WATCHRV_RELAY_NONCE=" + shellNonce}, codes: []int{2}, notWant: "ended by a signal"},
		// ... and the relay's own verdict is still believed.
		{name: "exec command killed, exec.env and the shell name the nonce's descriptor", user: execWith(plugin("killed3", "kill -9 $$"), relayEnv("KUBECTL_WATCHRV_RELAY_NONCE_FD", "1")), env: []string{"KUBECTL_WATCHRV_RELAY_NONCE_FD=0"}, codes: []int{2}, want: "was ended by a signal (killed)"},
		{name: "exec command not found", user: execWith(filepath.Join(dir, "missing"+hostile), nil), codes: []int{2}},
		{name: "exec command not in PATH, with its install hint", user: execWith("kubectl-watchrv-missing"+hostile, map[string]any{"installHint": "install" + hostile}), codes: []int{2}},
		{name: "exec command gives no answer", user: execWith(plugin("sleeps", "exec sleep 30"), nil), args: []string{"--request-timeout", "2s"}, codes: []int{2}},
		{name: "server URL", server: map[string]any{"server": "https://127.0.0.1:9/" + hostile, "insecure-skip-tls-verify": true}, user: map[string]any{"token": "t"}, codes: []int{2, 4}},
		{name: "--context names no context", user: map[string]any{"token": "t"}, args: []string{"--context", "ctx" + hostile}, codes: []int{2}},
		{name: "--cluster names no cluster", user: map[string]any{"token": "t"}, args: []string{"--cluster", "cluster" + hostile}, codes: []int{2}},
		{name: "--user names no user", user: map[string]any{"token": "t"}, args: []string{"--user", "user" + hostile}, codes: []int{2}},
		// The names the context gives (the cluster and the user it names
		// are not there: client-go's default server is used, as kubectl
		// does).
		{name: "context names a cluster and a user that are not there", cname: "cluster" + hostile, uname: "user" + hostile, user: map[string]any{"token": "t"}, codes: []int{2, 4}},
		// Every value sent as a header is refused before any request,
		// in one form naming its field (adversary try 21 F6: net/http's
		// "invalid header field value for \"Impersonate-User\"", exit 1).
		{name: "token", user: map[string]any{"token": "t" + hostile}, codes: []int{2}, want: "the token (token, or --token)"},
		{name: "as", user: map[string]any{"token": "t", "as": "bob" + hostile}, codes: []int{2}, want: "the impersonated user (as, or --as)"},
		{name: "as-uid", user: map[string]any{"token": "t", "as": "bob", "as-uid": "1" + hostile}, codes: []int{2}, want: "the impersonated UID"},
		{name: "as-groups", user: map[string]any{"token": "t", "as": "bob", "as-groups": []string{"g", "g" + hostile}}, codes: []int{2}, want: "an impersonated group"},
		{name: "as-user-extra", user: map[string]any{"token": "t", "as": "bob", "as-user-extra": map[string]any{"k": []string{"v" + hostile}}}, codes: []int{2}, want: `the impersonated user's extra "k"`},
		{name: "--as", user: map[string]any{"token": "t"}, args: []string{"--as", "bob" + hostile}, codes: []int{2}, want: "the impersonated user (as, or --as)"},
		{name: "--as-group", user: map[string]any{"token": "t"}, args: []string{"--as", "bob", "--as-group", "g\r" + hostile}, codes: []int{2}, want: "an impersonated group"},
		{name: "--as-user-extra", user: map[string]any{"token": "t"}, args: []string{"--as", "bob", "--as-user-extra", "k=v" + hostile}, codes: []int{2}, want: `the impersonated user's extra "k"`},
		// A file the kubeconfig names that cannot be read is that field's
		// fault, not the kubeconfig path's (adversary try 21 F7).
		{name: "tokenFile not there", user: map[string]any{"tokenFile": filepath.Join(dir, "no-token"+hostile)}, codes: []int{2}, want: `(tokenFile of user "u")`},
		{name: "tokenFile a directory", user: map[string]any{"tokenFile": dir}, codes: []int{2}, want: `(tokenFile of user "u") cannot be read (is a directory)`},
		{name: "certificate-authority not there", server: map[string]any{"server": srv.URL(), "certificate-authority": filepath.Join(dir, "no-ca"+hostile)}, user: map[string]any{"token": "t"}, codes: []int{2}, want: `(certificate-authority of cluster "c")`},
		{name: "client-key not there", user: map[string]any{"client-certificate": filepath.Join(dir, "no-cert"+hostile), "client-key": filepath.Join(dir, "no-key")}, codes: []int{2}, want: `(client-certificate of user "u")`},
		{name: "--client-key not there", user: map[string]any{"token": "t"}, args: []string{"--client-certificate", dir, "--client-key", filepath.Join(dir, "no-key")}, codes: []int{2}, want: "(given with --client-"},
	}
	commands := append(slices.Clone(credentialCommands), []string{"top", "--once", "--interval", "1s"})
	for _, c := range cases {
		server := cluster
		if c.server != nil {
			server = c.server
		}
		cname, uname := "c", "u"
		if c.cname != "" {
			cname, uname = c.cname, c.uname
		}
		kc := writeJSONKubeconfig(t, map[string]any{
			"apiVersion": "v1", "kind": "Config", "current-context": "ctx",
			"clusters": []map[string]any{{"name": "c", "cluster": server}},
			"users":    []map[string]any{{"name": "u", "user": c.user}},
			"contexts": []map[string]any{{"name": "ctx", "context": map[string]any{"cluster": cname, "user": uname, "namespace": "default"}}},
		})
		for _, args := range commands {
			t.Run(c.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				r := framework.RunToExitEnv(t, memoryLimit, t.TempDir(), kc, c.env, time.Minute, append(args, c.args...)...)
				out := r.Stdout + r.Stderr
				t.Logf("exit %d in %s: %.400q", r.Code, r.Duration.Round(time.Millisecond), strings.TrimSpace(r.Stderr))
				for i, ch := range out {
					if (ch < 0x20 && ch != '\n' && ch != '\t') || (ch >= 0x7f && ch <= 0x9f) {
						t.Fatalf("exit %d: a raw control character %U at byte %d: %q", r.Code, ch, i, out[max(0, i-80):min(len(out), i+80)])
					}
				}
				if strings.Contains(r.Stderr, "cannot load kubeconfig: error loading config file") {
					t.Fatalf("the kubeconfig was not read, nothing was attacked: %s", r.Stderr)
				}
				if !slices.Contains(c.codes, r.Code) {
					t.Fatalf("exit %d, want one of %v: %s", r.Code, c.codes, r.Stderr)
				}
				if n := strings.Count(r.Stderr, "error: "); n != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") > 1 {
					t.Fatalf("want one error line (and at most the cost line), got %d: %s", n, r.Stderr)
				}
				if c.notWant != "" && strings.Contains(r.Stderr, c.notWant) {
					t.Fatalf("the error says %q: %s", c.notWant, r.Stderr)
				}
				if c.want != "" && !strings.Contains(r.Stderr, c.want) {
					t.Fatalf("the error does not name the field (%q): %s", c.want, r.Stderr)
				}
				if strings.Contains(r.Stderr, "exit code 125") || strings.Contains(r.Stderr, "__credential") {
					t.Fatalf("the relay's own words reached the line: %s", r.Stderr)
				}
			})
		}
	}
}

// forgeWithFoundNonce prints the relay's "signal" verdict with the first
// nonce-like word (32 hex digits) it finds in its own environment, in the
// environment of its parent (the relay), in the files the relay was given
// (the status file), in the environment of its grandparent (the run), and
// in the arguments of both, then exits 0.
const forgeWithFoundNonce = `P=$PPID; G=$(sed 's/.*) //' /proc/$P/stat | cut -d' ' -f2)
N=$({ printf '%s\n' "$KUBECTL_WATCHRV_RELAY_NONCE"; cat /proc/$P/environ
tr '\0' '\n' < /proc/$P/cmdline | while read -r a; do [ -f "$a" ] && [ ! -x "$a" ] && cat "$a"; done
cat /proc/$G/environ /proc/$P/cmdline /proc/$G/cmdline; } 2>/dev/null | tr '\0' '\n' | grep -o '[0-9a-f]\{32\}' | head -n 1)
printf '{"apiVersion":"kubectl-watchrv.relay.invalid/%s signal killed","kind":"ExecCredential"}' "$N"`

// shellNonce is a nonce a kubeconfig or a shell sets for the relay.
const shellNonce = "0123456789abcdef0123456789abcdef"

// relayEnv is an exec.env of the given names and values.
func relayEnv(nameValues ...string) map[string]any {
	var env []map[string]string
	for i := 0; i+1 < len(nameValues); i += 2 {
		env = append(env, map[string]string{"name": nameValues[i], "value": nameValues[i+1]})
	}
	return map[string]any{"env": env}
}

// writeJSONKubeconfig writes the kubeconfig v as JSON (which client-go
// reads as YAML), whose strings may hold any character, escaped: the YAML
// reader refuses a control character written raw (Go's JSON writes C1
// controls raw), not one escaped.
func writeJSONKubeconfig(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var ascii strings.Builder
	for _, r := range string(b) {
		if r > 0x7e {
			fmt.Fprintf(&ascii, `\u%04x`, r)
			continue
		}
		ascii.WriteRune(r)
	}
	p := filepath.Join(t.TempDir(), "hostile.kubeconfig")
	if err := os.WriteFile(p, []byte(ascii.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
