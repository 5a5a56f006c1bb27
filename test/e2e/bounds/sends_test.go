//go:build e2e

package bounds

import (
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestEverySendIsCounted (adversary try 16, A2): net/http sends a GET
// again by itself, below the plugin's meter, when the kept-alive HTTP/1
// connection it went out on is reset before any answer: a path the server
// resets was reached 2 to 4 times while -v, the ledger and the cost of -o
// json said once. Across commands and reset paths (a list, a watch,
// /metrics, /version, a discovery document), what reached the server, per
// path, is what the -v lines say was sent, every send included; the
// cost's requests, in all and of every kind, are those sends (and a
// request the plugin cancelled before it was sent, one it made); no -v
// line says "no answer" of a request the run cancelled (A7).
func TestEverySendIsCounted(t *testing.T) {
	const list = "/api/v1/namespaces/default/configmaps"
	// The attack must have happened: some reset path reached more than
	// once (net/http sent it again).
	var resent atomic.Int64
	t.Cleanup(func() {
		if !t.Failed() && resent.Load() == 0 {
			t.Errorf("no reset GET was sent more than once in any run: the test no longer attacks net/http's sending again")
		}
	})
	for _, c := range []struct {
		// reset is the ScriptServer's key of the path it resets.
		reset string
		args  []string
	}{
		{list, []string{"list", "cm", "--request-timeout", "3s"}},
		{list, []string{"list", "cm", "--rv-only"}},
		{list, []string{"probe", "cm"}},
		{list, []string{"watch", "cm", "--rv", "list", "--timeout", "3s"}},
		// The watch request itself (ScriptServer's "PATH?watch"); watch
		// --follow opens it again after each reset, for its --timeout.
		{list + "?watch", []string{"watch", "cm", "--rv", "5", "--timeout", "3s"}},
		{list + "?watch", []string{"watch", "cm", "--rv", "5", "--follow", "--timeout", "3s", "-o", "json"}},
		{"/metrics", []string{"list", "cm", "-o", "json"}},
		{"/metrics", []string{"probe", "cm", "--metrics", "-o", "json"}},
		{"/version", []string{"list", "cm"}},
		{"/version", []string{"list", "cm", "-o", "json"}},
		{"/apis/apps/v1", []string{"list", "deployments"}},
		{"/apis/apps/v1", []string{"list", "cm", "-o", "json"}},
	} {
		c := c
		t.Run(c.reset+" "+strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{c.reset: {Reset: true}})
			r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 30*time.Second, append(c.args, "-v=6")...)
			asked := s.AskedPaths()
			shown, kinds := sendsShown(t, r.Stderr, s.URL())
			for _, p := range unionPaths(asked, shown) {
				if asked[p] != shown[p] {
					t.Errorf("GET %s reached the server %d times, the -v lines say %d:\n%s", p, asked[p], shown[p], r.Stderr)
				}
			}
			reset, _, _ := strings.Cut(c.reset, "?")
			if asked[reset] == 0 {
				t.Fatalf("GET %s never reached the server:\n%s", c.reset, r.Stderr)
			}
			if asked[reset] > 1 {
				resent.Add(1)
			}
			if !strings.Contains(strings.Join(c.args, " "), "-o json") {
				return
			}
			// The document (watch: its summary line, the last) with the
			// run's cost.
			type cost struct {
				Requests int64                               `json:"requests"`
				ByKind   map[string]struct{ Requests int64 } `json:"byKind"`
			}
			var doc struct {
				Cost *cost `json:"cost"`
			}
			for dec := json.NewDecoder(strings.NewReader(r.Stdout)); ; {
				var d struct {
					Cost *cost `json:"cost"`
				}
				if err := dec.Decode(&d); err != nil {
					if err != io.EOF {
						t.Fatalf("exit %d, stdout is no JSON (%v):\n%s\n%s", r.Code, err, r.Stdout, r.Stderr)
					}
					break
				}
				if d.Cost != nil {
					doc = d
				}
			}
			if doc.Cost == nil {
				t.Fatalf("exit %d, no -o json document with its cost:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
			}
			// Of every kind, the cost is the sends its -v lines show (each
			// checked above against the server), and a request cancelled
			// before it was sent is one the plugin made.
			var all int64
			for _, n := range kinds {
				all += n
			}
			if doc.Cost.Requests != all {
				t.Errorf("cost.requests %d; the -v lines show %d sends (%v), the server got %v:\n%s", doc.Cost.Requests, all, kinds, asked, r.Stderr)
			}
			for k := range unionKinds(doc.Cost.ByKind, kinds) {
				if got := doc.Cost.ByKind[k].Requests; got != kinds[k] {
					t.Errorf("cost.byKind.%s.requests %d; the -v lines show %d sends, the server got %v:\n%s", k, got, kinds[k], asked, r.Stderr)
				}
			}
		})
	}
}

// sentTimes is the words of a -v line of a request net/http sent again.
var sentTimes = regexp.MustCompile(`it was sent (\d+) times`)

// sendsShown is, per path, how many times the -v lines of a run (its
// stderr) say a request reached the server: once each, as many times as
// the line says it was sent, none for a request cancelled before it was
// sent; and, per kind of the cost, how many requests they show: each send,
// and a request cancelled before it was sent (one the plugin made).
func sendsShown(t *testing.T, stderr, server string) (shown, kinds map[string]int64) {
	t.Helper()
	shown, kinds = map[string]int64{}, map[string]int64{}
	for _, l := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(l, "-v GET "+server)
		if !ok || strings.Contains(rest, "(a watch: its bytes are counted as they stream)") {
			continue // a command's own step, or a watch's opening line (its end has one)
		}
		if strings.HasSuffix(rest, ": no answer") {
			// (A7) A request the run cancelled, shown as the server's
			// silence.
			t.Errorf("a -v line says %q:\n%s", l, stderr)
		}
		u, _, _ := strings.Cut(rest, " ")
		path, query, _ := strings.Cut(u, "?")
		n := int64(1)
		if m := sentTimes.FindStringSubmatch(rest); m != nil {
			n, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if strings.Contains(rest, "before it was sent") {
			n = 0
		}
		shown[path] += n
		kinds[costKind(path, query)] += max(n, 1)
	}
	return shown, kinds
}

// costKind is the kind of the cost a request of the ScriptServer counts
// in (apiclient's BodyKind).
func costKind(path, query string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case strings.Contains("&"+query, "&watch=1"):
		return "watch"
	case path == "/version":
		return "version"
	case path == "/metrics":
		return "metrics"
	case path == "/api" || path == "/apis" || (parts[0] == "api" && len(parts) == 2) || (parts[0] == "apis" && len(parts) == 3):
		return "discovery"
	}
	return "list"
}

func unionKinds(a map[string]struct{ Requests int64 }, b map[string]int64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func unionPaths(a, b map[string]int64) []string {
	var ps []string
	for p := range a {
		ps = append(ps, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			ps = append(ps, p)
		}
	}
	sort.Strings(ps)
	return ps
}
