//go:build e2e

package faults

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Each access failure gets one clear line and its own documented exit code
// (docs/exit-codes.md), well within the request timeout.
func TestAccessFailuresHaveDistinctExitCodes(t *testing.T) {
	ctx := context.Background()
	a := shared.APIServers[0]
	if err := shared.RejectAllFlowSchema(ctx); err != nil {
		t.Fatal(err)
	}
	holdCtx, stopHolding := context.WithCancel(ctx)
	defer stopHolding()
	if err := shared.HoldThrottledSeats(holdCtx, 4); err != nil {
		t.Fatal(err)
	}
	wrongCA := writeOtherCA(t)
	closed := closedPort(t)
	cases := []struct {
		name       string
		kubeconfig string
		code       int
		want       []string
	}{
		{"connection refused", kubeconfigFor(t, "refused.kubeconfig", "https://"+closed, a.CAFile, framework.AdminToken), 4, []string{"cannot reach", "connection refused"}},
		{"wrong CA", kubeconfigFor(t, "wrongca.kubeconfig", a.URL, wrongCA, framework.AdminToken), 5, []string{"TLS", "certificate"}},
		{"invalid token", kubeconfigFor(t, "badtoken.kubeconfig", a.URL, a.CAFile, "not-a-valid-token"), 6, []string{"401", "credentials"}},
		{"forbidden", shared.UserKubeconfig, 7, []string{"forbidden", `"nobody"`, "cannot list"}},
		{"throttled by APF", kubeconfigFor(t, "throttled.kubeconfig", a.URL, a.CAFile, framework.ThrottledToken), 8, []string{"is throttling requests (429 Too Many Requests, API Priority and Fairness)"}},
	}
	// The APF configuration reaches the server's dispatcher asynchronously.
	waitForThrottling(t, cases[4].kubeconfig)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := framework.Run(t, c.kubeconfig, time.Minute, "list", "configmaps", "-n", "default", "--request-timeout", "10s")
			if r.Code != c.code {
				t.Fatalf("exit code: want %d, got %d; stderr: %s", c.code, r.Code, r.Stderr)
			}
			line := strings.TrimSpace(r.Stderr)
			if strings.Count(line, "\n") != 0 || !strings.HasPrefix(line, "error: ") {
				t.Fatalf("want exactly one error line, got:\n%s", r.Stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Fatalf("error line lacks %q: %s", w, line)
				}
			}
			if r.Duration > 15*time.Second {
				t.Fatalf("took %s, more than the 10s request timeout allows", r.Duration)
			}
			t.Logf("exit %d in %s: %s", r.Code, r.Duration.Round(time.Millisecond), line)
		})
	}
}

func waitForThrottling(t *testing.T, kubeconfig string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r := framework.Run(t, kubeconfig, time.Minute, "list", "configmaps", "-n", "default", "--request-timeout", "10s")
		if r.Code == 8 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("API Priority and Fairness never rejected user throttled")
}

// writeOtherCA writes a CA certificate that did not sign the API server's.
func writeOtherCA(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "other-ca.crt")
	if err := framework.WriteCA(p, "not-the-apiserver-ca"); err != nil {
		t.Fatal(err)
	}
	return p
}

// kubeconfigFor writes a kubeconfig of the shared cluster for one server
// address, CA file and bearer token.
func kubeconfigFor(t *testing.T, name, server, ca, token string) string {
	t.Helper()
	p, err := shared.WriteKubeconfigFor(name, server, ca, token)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return fmt.Sprint(addr)
}

// watch --follow retries what a Reflector retries, and nothing else: a
// failure a retry cannot mend ends the run at once with its own exit code,
// never as a "stall" retried for ever (issue 10, item 13).
func TestFollowEndsOnPermanentFailures(t *testing.T) {
	a := shared.APIServers[0]
	wrongCA := writeOtherCA(t)
	cases := []struct {
		name       string
		kubeconfig string
		code       int
		want       string
	}{
		{"wrong CA", kubeconfigFor(t, "follow-wrongca.kubeconfig", a.URL, wrongCA, framework.AdminToken), 5, "TLS"},
		{"invalid token", kubeconfigFor(t, "follow-badtoken.kubeconfig", a.URL, a.CAFile, "not-a-valid-token"), 6, "401"},
		{"forbidden", shared.UserKubeconfig, 7, "forbidden"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := framework.Run(t, c.kubeconfig, 2*time.Minute, "watch", "configmaps", "-n", "default", "--follow", "--rv", "1")
			// No stall: a stream closed as stalled (the note that says
			// whether the stall check is on is no stall).
			if r.Code != c.code || !strings.Contains(r.Stderr, c.want) || strings.Contains(r.Stderr, "closed as stalled") {
				t.Fatalf("exit %d (want %d) after %s: %s", r.Code, c.code, r.Duration, r.Stderr)
			}
			if r.Duration > 30*time.Second {
				t.Fatalf("took %s: a permanent failure must end the run at once", r.Duration)
			}
			t.Logf("exit %d in %s", r.Code, r.Duration.Round(time.Millisecond))
		})
	}
}
