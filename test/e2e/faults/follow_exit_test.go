//go:build e2e

package faults

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestWatchFollowExitsWithTheFailureItEndedIn: a watch --follow that never
// had a healthy stream (every watch 429, the API server stopped with
// SIGSTOP, the API server gone) exits, at --timeout, with the code the same
// failure gives without --follow (8, 4, 4), never 0, and its summary says
// what it was failing with. The discovery cache is filled first (one HOME
// for all runs), as a user's is, so the runs reach their watches.
func TestWatchFollowExitsWithTheFailureItEndedIn(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{})
	_, ns := framework.Namespace(t, c, "follow-exit")
	home := t.TempDir()
	throttled, err := c.WriteKubeconfig("throttled.kubeconfig", c.APIServers[0], framework.ThrottledToken)
	if err != nil {
		t.Fatal(err)
	}
	for _, kc := range []string{c.Kubeconfig, throttled} {
		// Warms the discovery cache of HOME for both users (the throttled
		// one may not list yet: the cache is filled before that).
		framework.RunInHome(t, home, kc, nil, time.Minute, "list", "cm", "-n", ns, "--rv-only")
	}
	follow := func(t *testing.T, kc string, want int, failure, stderr string) {
		t.Helper()
		r := framework.RunInHome(t, home, kc, nil, 2*time.Minute, "watch", "cm", "-n", ns, "--follow", "--stall-timeout", "2s", "--timeout", "8s", "-o", "json")
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		var sum struct {
			Record        string `json:"record"`
			Ended         string `json:"ended"`
			FailureStreak *struct {
				Failure     string `json:"failure"`
				Attempts    int    `json:"attempts"`
				EverHealthy bool   `json:"everHealthy"`
			} `json:"failureStreak"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Record != "summary" {
			t.Fatalf("exit %d, the last line is not the summary (%v):\n%s\n%s", r.Code, err, r.Stdout, r.Stderr)
		}
		if r.Code != want || !strings.Contains(r.Stderr, "no stream of this session was healthy") || !strings.Contains(r.Stderr, stderr) ||
			sum.Ended != "timeout" || sum.FailureStreak == nil || sum.FailureStreak.Failure != failure || sum.FailureStreak.EverHealthy || sum.FailureStreak.Attempts < 2 {
			t.Fatalf("want exit %d and a %s streak, got exit %d, summary %+v:\n%s\n%s", want, failure, r.Code, sum.FailureStreak, r.Stdout, r.Stderr)
		}
	}

	t.Run("every watch 429", func(t *testing.T) {
		hold, stop := context.WithCancel(ctx)
		defer stop()
		// The framework's seat holders are client-go clients, which sleep
		// out each 429's Retry-After (1 s): a seat may then stay free long
		// enough for a watch to pass. These hold it again at once.
		hc := throttledClient(t, c)
		if err := c.RejectWatchesOfThrottled(hold, 0); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i++ {
			go func() {
				for hold.Err() == nil {
					if code := throttledGet(hold, hc, c, "/api/v1/namespaces/watchrv-held/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan"); code == http.StatusTooManyRequests {
						time.Sleep(10 * time.Millisecond)
					}
				}
			}()
		}
		waitWatchRejected(t, hc, c, ns)
		follow(t, throttled, 8, "Throttled", "429")
	})
	t.Run("API server stopped (SIGSTOP)", func(t *testing.T) {
		if err := c.PauseAPIServer(0); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := c.ResumeAPIServer(0); err != nil {
				t.Fatal(err)
			}
		}()
		follow(t, c.Kubeconfig, 4, "NoAnswer", "no answer to the watch request")
	})
	t.Run("API server gone", func(t *testing.T) {
		c.StopAPIServer(0)
		follow(t, c.Kubeconfig, 4, "Unreachable", "connection refused")
	})
}

// throttledGet is one GET of user "throttled", without retries; it
// returns the status code (0 when there was no answer).
func throttledGet(ctx context.Context, hc *http.Client, c *framework.Cluster, path string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.APIServers[0].URL+path, nil)
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+framework.ThrottledToken)
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// throttledClient is an HTTP client that trusts c's API server (one per
// cluster: each has its own CA).
func throttledClient(t *testing.T, c *framework.Cluster) *http.Client {
	t.Helper()
	ca, err := os.ReadFile(c.APIServers[0].CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}
}

// waitWatchRejected waits until APF (which reads its configuration
// asynchronously) answers a configmap watch of user "throttled" with 429.
func waitWatchRejected(t *testing.T, hc *http.Client, c *framework.Cluster, ns string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code := throttledGet(t.Context(), hc, c, "/api/v1/namespaces/"+ns+"/configmaps?watch=1&timeoutSeconds=1")
		if code == http.StatusTooManyRequests {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("APF never rejected the watch (last code %d)", code)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
