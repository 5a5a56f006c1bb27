//go:build e2e

package probe

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// runTime is the time a run's summary line says: "... in 40.14s" or
// "in 53ms".
var runTime = regexp.MustCompile(`(?m)^(?:Requests:.* in |.*\d+ requests? \([\d.]+ per resource[^)]*\) in |\d+ resources? on .* in )(\d+(?:\.\d+)?)(ms|s)\b`)

// Adversary try 20 #10, as a class: every summary line of a run that says
// how long it took ("in 10.01s") says the run's wall time, and so does
// its report's "ms": never the longest server's (the try: 10.01s said of
// a 40 s run over 64 servers measured 16 at a time) nor a part's. Each
// command runs where its parts are far shorter than the run: --qps
// pacing (each request waits for its token), and a fan-out over 18
// servers of which 17 never answer (two turns of --request-timeout).
func TestEveryRunSummarySaysTheRunsWallTime(t *testing.T) {
	_, ns := newNamespace(t, shared, "runtime")
	u, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	many := strings.Join(append(framework.SilentServers(t, 17), u.Host), ",")
	for _, args := range [][]string{
		{"probe", "--all", "-n", ns, "--probe-wait", "50ms", "--qps", "20"},
		{"streaming", "--all", "-n", ns, "--qps", "20"},
		{"streaming", "configmaps", "-n", ns, "--qps", "0.5"},
		{"probe", "configmaps", "-n", ns, "--probe-wait", "50ms", "--endpoints", u.Host, "--qps", "1"},
		{"probe", "--all", "-n", ns, "--probe-wait", "50ms", "--endpoints", u.Host, "--qps", "20"},
		{"list", "configmaps", "-n", ns, "--endpoints", many, "--request-timeout", "1s"},
		{"probe", "configmaps", "-n", ns, "--endpoints", many, "--request-timeout", "1s"},
	} {
		name := strings.Join(args[:2], " ")
		if strings.Contains(strings.Join(args, " "), many) {
			name += " over 18 servers"
		} else if strings.Contains(strings.Join(args, " "), "--endpoints") {
			name += " --endpoints"
		}
		t.Run(name, func(t *testing.T) {
			// Side by side: each compares its own run's summary with its
			// own process's wall time, which the others' load stretches
			// alike.
			t.Parallel()
			r := framework.Run(t, shared.Kubeconfig, 5*time.Minute, args...)
			out := r.Stdout + r.Stderr
			m := runTime.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("exit %d: no summary time:\n%s", r.Code, out)
			}
			said := parseTime(t, m[1], m[2])
			checkRunTime(t, "the summary line", said, r.Duration, out)
			j := framework.Run(t, shared.Kubeconfig, 5*time.Minute, append(args, "-o", "json")...)
			var doc struct {
				Millis *float64 `json:"ms"`
			}
			if err := json.Unmarshal([]byte(j.Stdout), &doc); err != nil || doc.Millis == nil {
				t.Fatalf("-o json: exit %d, no top-level ms (%v)\n%s", j.Code, err, j.Stdout)
			}
			checkRunTime(t, "-o json's ms", time.Duration(*doc.Millis*float64(time.Millisecond)), j.Duration, j.Stdout)
		})
	}
}

// checkRunTime: said is the run's wall time, as the test measured the
// process (which starts a little before the run's clock and ends a little
// after its report). The process's start before the clock (exec, the Go
// runtime and the packages' init) took up to a second with make test's
// e2e packages beside it on 2 cores: that much is allowed, never more.
func checkRunTime(t *testing.T, what string, said, wall time.Duration, out string) {
	t.Helper()
	t.Logf("%s: %s, the process took %s", what, said, wall.Round(time.Millisecond))
	if said > wall || said < wall*8/10-time.Second {
		t.Errorf("%s says %s; the run took %s\n%s", what, said, wall.Round(time.Millisecond), out)
	}
}

func parseTime(t *testing.T, n, unit string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(n + unit)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
