//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// APF answers every watch with 429: probe waits for each Retry-After,
// sends no request beyond --max-requests (no hidden client-go retries),
// and exits 11 with the budget message.
func TestProbeHonorsAPFRetryAfter(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{})
	hold, stop := context.WithCancel(ctx)
	defer stop()
	if err := c.RejectWatchesOfThrottled(hold, 4); err != nil {
		t.Fatal(err)
	}
	kc, err := c.WriteKubeconfig("throttled.kubeconfig", c.APIServers[0], framework.ThrottledToken)
	if err != nil {
		t.Fatal(err)
	}
	// APF reads its configuration asynchronously: wait until a watch is rejected.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _ := rawHTTP(t, c, framework.ThrottledToken, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1&timeoutSeconds=1")
		if code == 429 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("APF never rejected the watch (last code %d)", code)
		}
		time.Sleep(500 * time.Millisecond)
	}
	got, r := runProbeJSON(t, kc, 11, "configmaps", "-n", "default", "--max-requests", "4", "--qps", "100")
	if got.Requests != 4 || got.Probes != 3 || got.Reason != "BudgetExhausted" || !strings.Contains(r.Stderr, "--max-requests 4") {
		t.Fatalf("want 1 list + 3 throttled watches and the budget message, got %+v\n%s", got, r.Stderr)
	}
	for _, p := range got.ProbeDetails {
		if p.Outcome != "throttled" {
			t.Fatalf("want every probe throttled, got %+v", got.ProbeDetails)
		}
	}
	var watches []time.Time
	for _, e := range readAuditTimes(t, c.APIServers[0].AuditLog) {
		if strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") && e.Verb == "watch" && e.Stage == "ResponseComplete" {
			if e.ResponseStatus.Code != 429 {
				t.Fatalf("a probe watch was answered %d", e.ResponseStatus.Code)
			}
			watches = append(watches, e.RequestReceivedTimestamp)
		}
	}
	if len(watches) != 3 {
		t.Fatalf("the audit log shows %d plugin watches, want exactly 3 (no hidden retries)", len(watches))
	}
	t.Logf("3 throttled watches in %s (Retry-After honored twice); process %s", watches[2].Sub(watches[0]), r.Duration)
	if watches[2].Sub(watches[0]) < 1900*time.Millisecond {
		t.Fatalf("the watches came %s apart: Retry-After was not waited out", watches[2].Sub(watches[0]))
	}
}

type timedAuditEvent struct {
	Verb                     string    `json:"verb"`
	UserAgent                string    `json:"userAgent"`
	Stage                    string    `json:"stage"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	ResponseStatus           struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// readAuditTimes reads the audit log with each request's arrival time
// (framework.AuditEvent does not carry it).
func readAuditTimes(t *testing.T, path string) []timedAuditEvent {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []timedAuditEvent
	for _, line := range strings.Split(string(b), "\n") {
		var e timedAuditEvent
		if json.Unmarshal([]byte(line), &e) == nil && e.Verb != "" {
			out = append(out, e)
		}
	}
	return out
}
