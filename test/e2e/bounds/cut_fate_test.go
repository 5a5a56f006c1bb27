//go:build e2e

package bounds

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestOneRequestHasOneFateInEveryCount (user try 24 F3): a request has one
// fate, and every count of the run reads it: not sent (the signal came
// before it had a connection: a server that takes the connection and
// never answers TLS), in no count at all; sent and cut, in the cost and
// said apart there (cost.cut), in no count of the rows; sent, in the
// counts. Before, the -v line of a request cut in its TLS handshake said
// "before it was sent" while the cost counted it, and as cut; and the
// requests a cut server had answered before the signal were in the rows'
// count, not said apart (interrupted.cutRequests 0). Every per-server
// command that takes --endpoints is run over GOOD (a fake API server)
// and a second server the signal cuts: SILENT (no TLS answer: its
// request is never sent) or HANG (it answers its first request of the
// collection and leaves the second unanswered: sent, then cut), and a
// third like it, so that the signal cuts two servers. With one
// run's -o json and -v: the cost is the rows' requests, plus those of the
// servers the signal cut (cutRequests), plus the cut ones (cost.cut);
// the -v lines are the cost's requests, the not-sent ones apart; the
// not-sent ones are in no count; the human Requests line names only the
// servers its requests went to, and its parts add up to the JSON's
// cost.requests, every part said (adversary try 25 F4: the human lines
// said 17 of 19, the 2 the signal cut in flight in none); the Interrupted
// line counts the servers the signal cut ("of the one" when it cut 3).
func TestOneRequestHasOneFateInEveryCount(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	const tooLarge = "Too large resource version: 999999, current: 100"
	for _, c := range []struct {
		args []string
		// requests is the JSON's field of the rows' requests (a path of
		// keys); all, whether it counts every request of the run but
		// discovery and /version (explain-error's counts the servers'
		// part only, not its one-server check's, which its Requests line
		// says apart: fresh user try 26 F4, it had no Requests line);
		// humanLine, the human output's line that counts them ("" for
		// none).
		requests  []string
		all       bool
		humanLine *regexp.Regexp
	}{
		{[]string{"list", "cm", "--endpoints", "GOOD,CUT,CUT2"}, []string{"requests"}, true, requestsLine},
		{[]string{"probe", "cm", "--endpoints", "GOOD,CUT,CUT2"}, []string{"requests"}, true, requestsLine},
		{[]string{"probe", "--all", "-n", "default", "--endpoints", "GOOD,CUT,CUT2"}, []string{"requests"}, true, nil},
		{[]string{"explain-error", "--check", tooLarge, "cm", "--endpoints", "GOOD,CUT,CUT2"}, []string{"servers", "requests"}, false, requestsLine},
	} {
		for _, cutBy := range []string{"SILENT", "HANG"} {
			t.Run(strings.Join(c.args[:2], " ")+"/"+cutBy, func(t *testing.T) {
				// Each run its own servers: HANG hangs its second request
				// ever, and a run waits for GOOD's first two.
				run := func(more ...string) (stdout, stderr string) {
					good, kc := framework.ServeRVScriptTLS(t, window)
					var cutHosts []string
					sentToCut, wantCut := func() int64 { return 0 }, int64(0)
					if cutBy == "SILENT" {
						cutHosts = framework.SilentServers(t, 2)
					} else {
						hang := window
						hang.HangAt = 2
						cut, _ := framework.ServeRVScriptTLS(t, hang)
						cut2, _ := framework.ServeRVScriptTLS(t, hang)
						cutHosts, sentToCut, wantCut = []string{cut.Host(), cut2.Host()}, func() int64 { return cut.Asked(path) + cut2.Asked(path) }, 4
					}
					args := make([]string, 0, len(c.args)+len(more))
					for _, a := range append(append([]string{}, c.args...), more...) {
						args = append(args, strings.NewReplacer("GOOD", good.Host(), "CUT2", cutHosts[1], "CUT", cutHosts[0]).Replace(a))
					}
					return interruptedRun(t, kc, good, sentToCut, wantCut, args...)
				}
				doc, verbose := run("-o", "json", "-v")
				human, _ := run()

				var report map[string]any
				if err := json.Unmarshal([]byte(doc), &report); err != nil {
					t.Fatalf("-o json: %v:\n%s", err, doc)
				}
				cost := number(report, "cost", "requests")
				cut := number(report, "cost", "cut")
				rows := number(report, c.requests...)
				cutRequests := number(report, "interrupted", "cutRequests")
				if report["interrupted"] == nil {
					t.Fatalf("-o json: no \"interrupted\":\n%s", doc)
				}
				// Discovery documents and /version are no row's: the rest
				// of the cost is.
				side := number(report, "cost", "byKind", "discovery", "requests") + number(report, "cost", "byKind", "version", "requests")
				if c.all && cost-side != rows+cutRequests+cut || !c.all && cost-side < rows+cutRequests+cut {
					t.Errorf("cost.requests %d (%d of them discovery and /version), want the rows' %d + cutRequests %d + cost.cut %d:\n%s", cost, side, rows, cutRequests, cut, doc)
				}
				sentLines, notSentLines, cutLines := 0, 0, 0
				for _, l := range strings.Split(verbose, "\n") {
					switch {
					case !requestLine.MatchString(l), strings.Contains(l, "(a watch: its bytes are counted as they stream)"):
						// (A watch's first line: its end is its line.)
					case strings.Contains(l, "before it was sent"):
						notSentLines++
					case strings.Contains(l, "cancelled by the plugin"):
						cutLines++
						sentLines++
					default:
						sentLines++
					}
				}
				if sentLines != cost || cutLines != cut {
					t.Errorf("-v shows %d request(s) sent, %d of them cut (and %d not sent); the cost says %d, %d cut:\n%s\n%s", sentLines, cutLines, notSentLines, cost, cut, verbose, doc)
				}
				if cutBy == "SILENT" && (cut != 0 || notSentLines == 0) {
					t.Errorf("the request to the silent server never had a connection: want it not sent (-v) and not cut (cost.cut %d):\n%s\n%s", cut, verbose, doc)
				}
				if cutBy == "HANG" && (cut == 0 || cutRequests == 0) {
					t.Errorf("the server that hangs answered its first request and took its second: want the first said apart (cutRequests %d), the second cut (cost.cut %d):\n%s", cutRequests, cut, doc)
				}
				if c.humanLine == nil {
					return
				}
				m := c.humanLine.FindStringSubmatch(human)
				if m == nil {
					t.Fatalf("no line %q:\n%s", c.humanLine, human)
				}
				n, _ := strconv.Atoi(m[1])
				if len(m) > 3 { // + the ones to find the servers
					toFind, _ := strconv.Atoi(m[3])
					n += toFind
				}
				if n != rows || c.humanLine == requestsLine && m[2] != "1" {
					t.Errorf("human: %q, want the JSON's %d request(s), to the 1 server measured:\n%s", m[0], rows, human)
				}
				if cutRequests > 0 && !strings.Contains(lineWith(human, "Interrupted:"), strconv.Itoa(cutRequests)+" request") {
					t.Errorf("human: the Interrupted line does not say the %d request(s) of the server the signal cut:\n%s", cutRequests, human)
				}
				if cutRequests > 0 && !strings.Contains(lineWith(human, "Interrupted:"), "of the 2 servers the signal cut") {
					t.Errorf("human: the Interrupted line does not count the 2 servers the signal cut:\n%s", human)
				}
				if c.humanLine != requestsLine {
					return
				}
				sum := 0
				for _, part := range requestsPart.FindAllStringSubmatch(lineWith(human, "Requests:"), -1) {
					n, _ := strconv.Atoi(part[1])
					sum += n
				}
				if sum != cost {
					t.Errorf("human: the Requests line's parts add up to %d, the JSON's cost.requests is %d (cut %d, cutRequests %d):\n%s\n%s", sum, cost, cut, cutRequests, human, doc)
				}
			})
		}
	}
}

// requestLine is a -v line of a request as the ledger shows it (not the
// line of a watch whose answer began: its end has its own).
var requestLine = regexp.MustCompile(`^-v (GET|POST|PUT|PATCH|DELETE) https?://`)

// requestsLine is every per-server view's count of its requests (the
// servers', and how many servers, and the discovery's).
var (
	requestsLine = regexp.MustCompile(`Requests:\s+(\d+) to (\d+) servers? \+ (\d+) to find them`)
	// requestsPart is one part of the Requests line's count: "3 to",
	// "1 to find them", "16 answered by", "2 cut by" (never the servers'
	// counts, "1 server").
	requestsPart = regexp.MustCompile(`\b(\d+) (?:to|answered|cut)\b`)
)

// interruptedRun runs the plugin with args and stops it with SIGINT once
// GOOD has answered its measure and the server to cut has been sent
// wantCut requests of the collection (sentToCut), the last in flight: exit 130, "interrupted" last.
func interruptedRun(t *testing.T, kc string, good *framework.TLSScriptServer, sentToCut func() int64, wantCut int64, args ...string) (stdout, stderr string) {
	t.Helper()
	const path = "/api/v1/namespaces/default/configmaps"
	p := framework.StartPlugin(t, kc, args...)
	for deadline := time.Now().Add(time.Minute); good.Asked(path) < 2 || sentToCut() < wantCut; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the servers were not asked in a minute; stderr:\n%s", p.Stderr())
		}
	}
	time.Sleep(1500 * time.Millisecond) // GOOD's measure ends; the cut request is in flight
	if code := p.Stop(syscall.SIGINT, 30*time.Second); code != 130 || !strings.HasSuffix(p.Stderr(), "interrupted\n") {
		t.Fatalf("%s: exit %d, stderr %q: want 130 and \"interrupted\" last", strings.Join(args, " "), code, p.Stderr())
	}
	return p.Stdout(), p.Stderr()
}

// number is the JSON number at keys in doc (0 when absent).
func number(doc map[string]any, keys ...string) int {
	var v any = doc
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = m[k]
	}
	f, _ := v.(float64)
	return int(f)
}
