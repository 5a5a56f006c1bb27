//go:build e2e

package bounds

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestEveryCountOfACutServerIsItsFates (fresh user try 27 F2): a run over
// --endpoints HALF,SILENT whose signal cuts HALF after it answered some of
// its requests, with one in flight, and SILENT before its one request was
// sent. Every count the report prints is read from the ledger's fates
// (servers.splitKept): the -v lines to HALF are its answered requests (the
// Interrupted line's) plus the one cut (the Requests line's "cut by the
// signal"); SILENT, never sent a request, is no server that "answered";
// and explain-error's header counts what its Requests line says went to
// the servers. Before, the header said 1 (the lease read, to find them)
// of 3 sent, and the lines said "answered by the 2 servers the signal
// cut" of one server's 2.
func TestEveryCountOfACutServerIsItsFates(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	const tooLarge = "Too large resource version: 999999, current: 100"
	for _, c := range []struct {
		args []string
		// hangAt is HALF's request of the collection left unanswered: the
		// ones before it are answered.
		hangAt int
	}{
		{[]string{"explain-error", "--check", tooLarge, "cm", "--endpoints", "HALF,SILENT"}, 3},
		{[]string{"probe", "cm", "--endpoints", "HALF,SILENT"}, 3},
	} {
		t.Run(strings.Join(c.args[:2], " "), func(t *testing.T) {
			_, kc := framework.ServeRVScriptTLS(t, window)
			hang := window
			hang.HangAt = c.hangAt
			half, _ := framework.ServeRVScriptTLS(t, hang)
			silent := framework.SilentServers(t, 1)[0]
			args := []string{"-v"}
			for _, a := range c.args {
				args = append(args, strings.NewReplacer("HALF", half.Host(), "SILENT", silent).Replace(a))
			}
			human, verbose := interruptedRun(t, kc, half, func() int64 { return half.Asked(path) }, int64(c.hangAt), args...)

			sentToHalf, cutOfHalf := 0, 0
			for _, l := range strings.Split(verbose, "\n") {
				if !requestLine.MatchString(l) || strings.Contains(l, "(a watch: its bytes are counted as they stream)") {
					continue
				}
				switch {
				case strings.Contains(l, silent) && !strings.Contains(l, "before it was sent"):
					t.Errorf("-v: a request sent to the silent server, which never answered TLS: %q", l)
				case !strings.Contains(l, half.Host()):
				case strings.Contains(l, "cancelled by the plugin"):
					cutOfHalf++
					sentToHalf++
				default:
					sentToHalf++
				}
			}
			interrupted := lineWith(human, "Interrupted:")
			m := regexp.MustCompile(`\((\d+) requests? of (the one|the \d+ servers) the signal cut`).FindStringSubmatch(interrupted)
			if m == nil {
				t.Fatalf("no count of the cut servers' requests in %q:\n%s", interrupted, human)
			}
			answered, _ := strconv.Atoi(m[1])
			if answered+cutOfHalf != sentToHalf || m[2] != "the one" {
				t.Errorf("Interrupted line %q: want the %d answered of the one server that answered (-v: %d sent to it, %d cut):\n%s", interrupted, sentToHalf-cutOfHalf, sentToHalf, cutOfHalf, human)
			}
			requests := lineWith(human, "Requests:")
			want := "+ " + strconv.Itoa(answered) + " answered by the 1 server the signal cut + " + strconv.Itoa(cutOfHalf) + " cut by the signal"
			if !strings.Contains(requests, want) {
				t.Errorf("Requests line %q, want %q (-v: %d sent to the server, %d cut):\n%s", requests, want, sentToHalf, cutOfHalf, human)
			}
			if c.args[0] != "explain-error" {
				return
			}
			rows := requestsLine.FindStringSubmatch(requests)
			header := regexp.MustCompile(`asked about RV \d+ \((\d+) requests?\)`).FindStringSubmatch(human)
			if rows == nil || header == nil || header[1] != rows[1] {
				t.Errorf("the header's count and the Requests line's to the servers differ (header %q, Requests %q):\n%s", header, requests, human)
			}
		})
	}
}
