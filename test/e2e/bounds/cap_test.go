//go:build e2e

package bounds

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// memoryLimit is the address space every run here gets: before the body
// cap, an endless watch body grew to 12.6 GB and died under this limit
// with "fatal error: out of memory" and a Go stack (exit 2).
const memoryLimit = 3_000_000_000

// faultCase is one command against one fault server.
type faultCase struct {
	fault framework.Fault
	args  []string
	code  int
	// want are fragments of the one error line (when code != 0) or of
	// stderr (when 0); one that starts with "!" must be in neither stdout
	// nor stderr.
	want []string
	// within bounds the run's time.
	within time.Duration
}

// Every kind of body (a watch frame, a list page, /version, /metrics,
// discovery, an error body), endless or trickling, read by every command
// that reads it: each run ends within its time, under a 3 GB address
// space, with one error line that names the request, the limit and the
// fix, and its exit code (13 for a body past its cap or a list that never
// ends, 4 for a timeout), never a Go stack. /version and /metrics are
// advisory reads of list and watch --follow: their cap shows in a note,
// and the command goes on.
func TestEveryBodyIsReadWithinItsCap(t *testing.T) {
	const capped = 13
	frame := []string{"one event of the watch GET http://", "went past 16 MiB, the limit of one watch event", "client-go refuses"}
	// (The 256 MiB page cap itself: pkg/apiclient bodycap_test; an endless page meets the item bound first.)
	errBody := []string{"the error answer (500 Internal Server Error) to GET http://", "went past 256 KiB, the limit of an error answer"}
	discovery := []string{"went past 32 MiB, the limit of a discovery document", "/api"}
	// An endless list page ends at the bound of a paged list's page
	// (pkg/listing maxItems).
	pageItems := []string{"the answer to GET http://", "the most the plugin reads of one page of a paged list"}
	repeated := []string{"never ends: page 2 carries the continue token of page 1 again"}
	// The time of a run that reads a body to its cap: hundreds of MB on
	// loopback take seconds on a quiet machine, a minute or more on two
	// busy cores. A read without a bound never ends, or dies of the memory
	// limit first (a Go stack, which fails the run).
	quick := 150 * time.Second
	cases := []faultCase{
		{framework.FaultEndlessWatch, []string{"watch", "cm", "--timeout", "60s"}, capped, frame, quick},
		{framework.FaultEndlessWatch, []string{"watch", "cm", "--follow", "--timeout", "60s"}, capped, frame, quick},
		{framework.FaultEndlessWatch, []string{"watch", "cm", "--rv", "list", "--timeout", "60s"}, capped, frame, quick},
		{framework.FaultEndlessWatch, []string{"streaming", "cm"}, capped, frame, quick},
		{framework.FaultEndlessWatch, []string{"probe", "cm"}, capped, frame, quick},

		{framework.FaultEndlessList, []string{"list", "cm"}, capped, pageItems, quick},
		{framework.FaultEndlessList, []string{"list", "cm", "--rv-only"}, capped, pageItems, quick},
		{framework.FaultEndlessList, []string{"watch", "cm", "--rv", "list", "--timeout", "60s"}, capped, pageItems, quick},
		{framework.FaultEndlessList, []string{"probe", "cm"}, capped, pageItems, quick},

		// A page of valid objects past 256 MiB, read unpaged by streaming
		// (adversary round 5 #8: the check went on and blamed the stream).
		{framework.FaultBigPage, []string{"streaming", "cm"}, capped, []string{"went past 256 MiB, the limit of one list page"}, quick},
		{framework.FaultEndlessError, []string{"list", "cm"}, capped, errBody, quick},
		{framework.FaultEndlessError, []string{"watch", "cm", "--timeout", "60s"}, capped, errBody, quick},
		{framework.FaultEndlessError, []string{"probe", "cm"}, capped, errBody, quick},

		{framework.FaultEndlessDiscovery, []string{"list", "cm"}, capped, discovery, quick},
		{framework.FaultEndlessDiscovery, []string{"watch", "cm", "--timeout", "60s"}, capped, discovery, quick},
		{framework.FaultEndlessDiscovery, []string{"probe", "--all"}, capped, discovery, quick},
		{framework.FaultEndlessDiscovery, []string{"streaming", "--all"}, capped, discovery, quick},

		{framework.FaultEndlessVersion, []string{"version"}, capped, []string{"went past 64 KiB, the limit of a /version answer"}, quick},
		{framework.FaultEndlessVersion, []string{"list", "cm"}, 0, nil, quick},
		// list reads /metrics only as far as the facts it needs (256 KiB).
		{framework.FaultEndlessMetrics, []string{"list", "cm"}, 0, nil, quick},
		{framework.FaultEndlessMetrics, []string{"watch", "cm", "--follow", "--timeout", "3s"}, 0, []string{`re:Summary \(timeout after (2\.9\d*|3(\.\d+)?)s\)`}, quick},

		{framework.FaultRepeatContinue, []string{"list", "cm"}, capped, repeated, quick},
		{framework.FaultRepeatContinue, []string{"watch", "cm", "--rv", "list", "--timeout", "30s"}, capped, repeated, quick},
		{framework.FaultRepeatContinue, []string{"watch", "cm", "--rv", "list", "--follow", "--timeout", "30s"}, capped, repeated, quick},

		// A body that trickles for ever ends at the timeout, with the
		// timeout's error and code.
		// The head came: the answer did not end in time (never "no answer").
		{framework.FaultTrickleList, []string{"list", "cm", "--request-timeout", "3s"}, 4, []string{"the API server at http://", "the answer did not end in time", "did not end within 3s", "--request-timeout", "!no answer"}, 15 * time.Second},
		{framework.FaultTrickleList, []string{"list", "cm", "--rv-only", "--request-timeout", "3s"}, 4, []string{"the answer did not end in time", "--request-timeout", "!no answer"}, 15 * time.Second},
		// streaming's list to compare with is bounded by six --deadline
		// (adversary try 7: it waited for ever); the fault's watch is quiet,
		// so the verdict is the stream's: no bookmark, exit 1.
		{framework.FaultTrickleList, []string{"streaming", "cm", "--deadline", "2s"}, 1, []string{"no initial-events-end bookmark within the deadline"}, 30 * time.Second},
		{framework.FaultTrickleList, []string{"watch", "cm", "--rv", "list", "--timeout", "3s"}, 4, []string{"the first list did not complete before the watch's time ran out, so no watch was started", "raise --timeout"}, 15 * time.Second},
		{framework.FaultTrickleWatch, []string{"watch", "cm", "--timeout", "3s"}, 0, []string{`re:Summary \(timeout after (2\.9\d*|3(\.\d+)?)s\)`}, 15 * time.Second},
		// With --follow, a stream silent for --stall-timeout is watched
		// again from the last RV; under the bookmark period that silence
		// proves no hang (pkg/follow silenceProvesHang), so the run ends at
		// --timeout, exit 0, having said so.
		{framework.FaultTrickleWatch, []string{"watch", "cm", "--follow", "--stall-timeout", "2s", "--timeout", "7s"}, 0, []string{"--stall-timeout"}, 20 * time.Second},
	}
	runFaultCases(t, cases, memoryLimit)
}

// runFaultCases starts one fault server per fault of cases and runs each
// case's command against it under the address-space limit, then checks it.
func runFaultCases(t *testing.T, cases []faultCase, limit int64) {
	t.Helper()
	servers := map[framework.Fault]string{}
	for _, c := range cases {
		if _, ok := servers[c.fault]; ok {
			continue
		}
		s, err := framework.StartFaultServer(c.fault)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		kc, err := s.Kubeconfig(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		servers[c.fault] = kc
	}
	for _, c := range cases {
		t.Run(string(c.fault)+" "+strings.Join(c.args, " "), func(t *testing.T) {
			r := framework.RunUnderMemoryLimit(t, limit, servers[c.fault], 2*c.within, c.args...)
			checkRun(t, r, c)
		})
	}
}

func checkRun(t *testing.T, r framework.Result, c faultCase) {
	t.Helper()
	if strings.Contains(r.Stderr, "fatal error") || strings.Contains(r.Stderr, "goroutine ") {
		t.Fatalf("a Go crash (exit %d):\n%s", r.Code, r.Stderr)
	}
	if r.Code != c.code {
		t.Fatalf("exit %d, want %d, after %s; stderr:\n%s", r.Code, c.code, r.Duration, r.Stderr)
	}
	if r.Duration > c.within {
		t.Fatalf("took %s, more than %s", r.Duration, c.within)
	}
	text := r.Stdout + r.Stderr
	// Words of the libraries that say nothing a user can act on, in
	// every case of every fault (adversary try 14): the time bound that
	// ended a request, a decoder's Go types, client-go's advice.
	for _, raw := range []string{"net/http: request canceled", "use of closed network connection", "Go value of type", "Please retry", "received empty response for", "unexpected end of JSON input", "0-length response"} {
		if strings.Contains(text, raw) {
			t.Fatalf("raw library words %q:\n%s", raw, text)
		}
	}
	if c.code == 13 && strings.Contains(r.Stderr, "Please retry") {
		// client-go's advice; the answer past a bound comes again.
		t.Fatalf("a body past its cap is not retried, yet the error says so:\n%s", r.Stderr)
	}
	if c.code != 0 {
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		text = lines[len(lines)-1]
		if !strings.HasPrefix(text, "error: ") {
			t.Fatalf("the last line is not the error line:\n%s", r.Stderr)
		}
		for _, l := range lines[:len(lines)-1] {
			if strings.HasPrefix(l, "error: ") {
				t.Fatalf("more than one error line:\n%s", r.Stderr)
			}
		}
	}
	for _, w := range c.want {
		// "maxline:N": no line the run printed is longer than N bytes.
		if n, ok := strings.CutPrefix(w, "maxline:"); ok {
			limit, _ := strconv.Atoi(n)
			for _, l := range strings.Split(r.Stdout+"\n"+r.Stderr, "\n") {
				if len(l) > limit {
					t.Fatalf("a line of %d bytes, more than %d: %.300s", len(l), limit, l)
				}
			}
			continue
		}
		// "!" marks what must not be there, in all the run printed.
		if no, ok := strings.CutPrefix(w, "!"); ok {
			if strings.Contains(r.Stdout+r.Stderr, no) {
				t.Fatalf("says %q:\n%s%s", no, r.Stdout, r.Stderr)
			}
			continue
		}
		// "re:" marks a pattern: a measured time is near its bound, not
		// equal to it (a stream ended by its own deadline says 2.996s).
		if re, ok := strings.CutPrefix(w, "re:"); ok {
			if !regexp.MustCompile(re).MatchString(text) {
				t.Fatalf("lacks /%s/:\n%s", re, text)
			}
			continue
		}
		if !strings.Contains(text, w) {
			t.Fatalf("lacks %q:\n%s", w, text)
		}
	}
	t.Logf("exit %d in %s: %s", r.Code, r.Duration.Round(time.Millisecond), firstLine(lastLine(r.Stderr)))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func firstLine(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
