//go:build e2e

package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// auditLine is one audit event, so that clients has a log to read.
const auditLine = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"d1","stage":"ResponseComplete","requestURI":"/api/v1/configmaps","verb":"list","user":{"username":"u"},"sourceIPs":["127.0.0.1"],"userAgent":"ua","objectRef":{"resource":"configmaps","apiVersion":"v1"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-12-01T10:04:00Z","stageTimestamp":"2026-12-01T10:04:00.1Z"}` + "\n"

// TestEveryDurationFlagRange walks every command and every duration flag
// it takes: a value far below its range (1ns), a negative one, and one far
// past it are refused before any request with exit 2 and one line naming
// the flag, the value and the range, never Go's parser's words; the ends
// of the range are accepted (the run goes on to whatever comes next: a
// resource type that does not exist, exit 9, or the command's answer).
func TestEveryDurationFlagRange(t *testing.T) {
	type flag struct {
		name     string
		min, max string // the range's ends, as the line says them
		also     []string
		accepted []string // more values in range
	}
	// A server nothing listens at: top in range fails there at once
	// (exit 4), instead of waiting its --interval between two reads.
	dead := filepath.Join(t.TempDir(), "dead.kubeconfig")
	if err := os.WriteFile(dead, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rt := flag{name: "request-timeout", min: "100ms", max: "24h", accepted: []string{"0", "30", "2s"}}
	commands := []struct {
		args       []string // the command, run with a resource that does not exist where it takes one
		stdin      string
		kubeconfig string // "": the cluster's
		flags      []flag
	}{
		{args: []string{"probe", "nosuchthing"}, flags: []flag{
			{name: "interval", min: "100ms", max: "1h", also: []string{"--duration", "24h"}},
			{name: "duration", min: "1s", max: "24h", also: []string{"--interval", "100ms"}},
			{name: "probe-wait", min: "50ms", max: "30s"},
			rt,
		}},
		{args: []string{"watch", "nosuchthing"}, flags: []flag{
			{name: "timeout", min: "1s", max: "24h"},
			{name: "stall-timeout", min: "1s", max: "1h", also: []string{"--follow"}},
			rt,
		}},
		{args: []string{"streaming", "nosuchthing"}, flags: []flag{{name: "deadline", min: "100ms", max: "10m"}, rt}},
		{args: []string{"top", "--once", "-o", "json"}, kubeconfig: dead, flags: []flag{{name: "interval", min: "1s", max: "10m"}, rt}},
		{args: []string{"list", "nosuchthing"}, flags: []flag{rt}},
		{args: []string{"clients", "-f", "-"}, stdin: auditLine, flags: []flag{rt}},
		{args: []string{"explain-error", "too old resource version: 213 (534)"}, flags: []flag{rt}},
		{args: []string{"version"}, flags: []flag{rt}},
		{args: []string{"completion", "bash"}, flags: []flag{rt}},
	}
	parserWords := []string{"time: invalid duration", "invalid argument", "strconv.", "ParseDuration", "is not a duration"}
	for _, c := range commands {
		kc := c.kubeconfig
		if kc == "" {
			kc = shared.Kubeconfig
		}
		for _, f := range c.flags {
			name := strings.Join(c.args[:1], " ") + " --" + f.name
			for _, v := range []string{"1ns", "-1s", "100000h"} {
				args := append(append(append([]string{}, c.args...), f.also...), "--"+f.name, v)
				r := framework.RunInput(t, kc, []byte(c.stdin), time.Minute, args...)
				line := strings.TrimSpace(r.Stderr)
				if r.Code != 2 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "error: --"+f.name+" "+v+" must be between "+f.min+" and "+f.max+": give for example --"+f.name+" ") {
					t.Errorf("%s %s: exit %d (want 2), stderr %q (want one line naming the flag, the value and %s to %s)", name, v, r.Code, r.Stderr, f.min, f.max)
					continue
				}
				for _, w := range parserWords {
					if strings.Contains(line, w) {
						t.Errorf("%s %s: %q has the parser's words %q", name, v, line, w)
					}
				}
			}
			for _, v := range append([]string{f.min, f.max}, f.accepted...) {
				args := append(append(append([]string{}, c.args...), f.also...), "--"+f.name, v)
				r := framework.RunInput(t, kc, []byte(c.stdin), time.Minute, args...)
				if r.Code == 2 || strings.Contains(r.Stderr, "must be between") {
					t.Errorf("%s %s (in range) refused: exit %d, stderr %q", name, v, r.Code, r.Stderr)
				}
			}
		}
	}
	// --help says each range.
	for _, c := range []struct{ cmd, want string }{
		{"probe", "(100ms to 1h)"}, {"probe", "(1s to 24h)"}, {"probe", "(50ms to 30s)"},
		{"watch", "(1s to 24h)"}, {"watch", "(1s to 1h)"}, {"streaming", "(100ms to 10m)"}, {"top", "(1s to 10m)"},
		{"list", "(100ms to 24h, or 0 for no limit)"},
	} {
		r := framework.Run(t, "", time.Minute, c.cmd, "--help")
		if r.Code != 0 || !strings.Contains(strings.Join(strings.Fields(r.Stdout), " "), c.want) {
			t.Errorf("%s --help does not say %q", c.cmd, c.want)
		}
	}
}
