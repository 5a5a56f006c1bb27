//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// top's cost counts the reads that were sent: when no server answered the
// first read, no second is sent, and neither the line nor -o json counts
// one (adversary try 16: "4 GET /metrics ... 2 per server: both samples"
// and "reads": 4 when the server got one).
func TestTopCountsTheReadsItSent(t *testing.T) {
	s, kc := framework.ServeScript(t, nil) // /metrics answers 403
	host := s.Host()
	args := []string{"top", "--once", "--interval", "1s", "--endpoints", host + ",127.0.0.1:1", "--request-timeout", "3s"}
	r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, append(args, "-o", "json")...)
	var doc struct {
		Cost struct {
			Reads int `json:"reads"`
		} `json:"metricsCost"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("exit %d, -o json is no document: %v\n%s\n%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if got := s.Asked("/metrics"); got != 1 || doc.Cost.Reads != 2 {
		t.Fatalf("the server got %d GET /metrics (want 1) and the cost says %d reads for the 2 servers (want 2, one each):\n%s", got, doc.Cost.Reads, r.Stdout)
	}
	h := framework.RunUnderMemoryLimit(t, memoryLimit, kc, time.Minute, args...)
	if !strings.Contains(h.Stdout+h.Stderr, "2 GET /metrics for this interval (1 per server: no second sample was asked for") {
		t.Fatalf("the cost line does not count the reads sent:\n%s\n%s", h.Stdout, h.Stderr)
	}
}
