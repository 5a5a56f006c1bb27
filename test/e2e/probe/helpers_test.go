//go:build e2e

package probe

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// probeJSON is the part of "probe -o json" the tests read.
type probeJSON struct {
	Resource               string  `json:"resource"`
	GroupVersion           string  `json:"groupVersion"`
	Namespace              string  `json:"namespace"`
	CurrentResourceVersion string  `json:"currentResourceVersion"`
	CurrentFrom            string  `json:"currentFrom"`
	OldestResourceVersion  string  `json:"oldestResourceVersion"`
	Width                  uint64  `json:"width"`
	Source                 string  `json:"source"`
	BoundBy                string  `json:"boundBy"`
	CompactedAt            string  `json:"compactedAt"`
	LostAt                 string  `json:"lostAt"`
	Requests               int     `json:"requests"`
	Probes                 int     `json:"probes"`
	Found                  bool    `json:"found"`
	Millis                 float64 `json:"ms"`
	Bracket                *struct {
		LastFailing     string `json:"lastFailing"`
		FirstSucceeding string `json:"firstSucceeding"`
	} `json:"bracket"`
	ProbeDetails []struct {
		ResourceVersion uint64 `json:"resourceVersion,string"`
		Outcome         string `json:"outcome"`
		Message         string `json:"message"`
		Evidence        string `json:"evidence"`
	} `json:"probeDetails"`
	Verify *struct {
		Holds       bool                     `json:"holds"`
		AtOldest    struct{ Outcome string } `json:"atOldest"`
		BelowOldest *struct {
			Outcome string
			Message string
		} `json:"belowOldest"`
	} `json:"verify"`
	Future *struct {
		ListOutcome  string  `json:"listOutcome"`
		ListCode     int     `json:"listCode"`
		ListMessage  string  `json:"listMessage"`
		ListMillis   float64 `json:"listMs"`
		WatchOutcome string  `json:"watchOutcome"`
		WatchEvident string  `json:"watchEvidence"`
	} `json:"future"`
	Reason string `json:"reason"`
	Error  string `json:"error"`
}

func runProbeJSON(t *testing.T, kubeconfig string, wantCode int, args ...string) (probeJSON, framework.Result) {
	t.Helper()
	r := framework.Run(t, kubeconfig, 2*time.Minute, append([]string{"probe", "-o", "json"}, args...)...)
	if r.Code != wantCode {
		t.Fatalf("probe %v: exit %d, want %d: %s", args, r.Code, wantCode, r.Stderr)
	}
	var out probeJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("probe -o json is not JSON: %v\n%s", err, r.Stdout)
	}
	t.Logf("probe %s: oldest %s current %s width %d source %s: %d requests (%d probes) in %.0f ms (process %s)",
		strings.Join(args, " "), out.OldestResourceVersion, out.CurrentResourceVersion, out.Width, out.Source, out.Requests, out.Probes, out.Millis, r.Duration)
	return out, r
}

// rawWatchFirst opens a watch from rv with the harness's own client and
// returns the first line the server sends (or "" when it sends nothing
// within a second): the server's own answer, to compare the plugin with.
func rawWatchFirst(t *testing.T, cs kubernetes.Interface, path, rv string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body, err := cs.CoreV1().RESTClient().Get().AbsPath(path).Param("watch", "1").Param("resourceVersion", rv).Param("timeoutSeconds", "1").Stream(ctx)
	if err != nil {
		return "HTTP error: " + err.Error()
	}
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	if sc.Scan() {
		return sc.Text()
	}
	return ""
}

// namedOldest extracts Y from the watch cache's "too old resource version: X (Y)".
func namedOldest(t *testing.T, line string) string {
	t.Helper()
	var ev struct {
		Type   string `json:"type"`
		Object struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"object"`
	}
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Type != "ERROR" || ev.Object.Code != 410 {
		t.Fatalf("want a 410 ERROR event from the server, got %q", line)
	}
	var x, y uint64
	if _, err := fmt.Sscanf(ev.Object.Message, "too old resource version: %d (%d)", &x, &y); err != nil {
		t.Fatalf("want the watch cache's message, got %q", ev.Object.Message)
	}
	return fmt.Sprint(y)
}

// onlyReads fails when the plugin sent anything but get, list or watch.
func onlyReads(t *testing.T, auditLog string) int {
	t.Helper()
	n := 0
	for _, e := range framework.ReadAudit(t, auditLog) {
		if !strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") {
			continue
		}
		n++
		switch e.Verb {
		case "get", "list", "watch":
		default:
			t.Fatalf("the plugin sent a %s: %s", e.Verb, e.RequestURI)
		}
	}
	return n
}

func log2Ceil(n uint64) int { return int(math.Ceil(math.Log2(float64(n)))) }

// pluginRequests counts the plugin's requests the audit log has completed
// (one ResponseComplete each, watches included), discovery (/api, /apis)
// aside: compare two counts around a run for the run's requests.
func pluginRequests(t *testing.T, auditLog string) int {
	t.Helper()
	n := 0
	for _, e := range framework.ReadAudit(t, auditLog) {
		if !strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") || e.Stage != "ResponseComplete" {
			continue
		}
		if p, _, _ := strings.Cut(e.RequestURI, "?"); p == "/api" || p == "/apis" {
			continue
		}
		n++
	}
	return n
}
