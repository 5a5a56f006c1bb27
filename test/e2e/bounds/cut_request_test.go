//go:build e2e

package bounds

import (
	"cmp"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A request the signal cut is no answer: its error (context canceled) is
// never printed as one, in any command, whichever of its requests the
// signal cut (fresh user try 21 F2: probe --future printed the cut list
// as "list -> Other" and a watch never sent as held for 2s; explain-error
// --check "a list not older than RV 999999 fails (... context
// canceled)"). Each command is first run whole, to count the requests of
// the collection it sends; then once per request, that request left
// unanswered and the run stopped with SIGINT while it waits: exit 130,
// "interrupted", and no word of the cut on stdout (what was answered
// before it may be printed). explain-error --check still prints its
// explanation, made before any request.
//
// explain-error --check with --endpoints of two servers, one of them
// silent (it takes the connection and never answers: its question is in
// flight whenever the signal comes): the cut server is no row (adversary
// try 22 F3: "Other: context canceled", in the table and in JSON), and
// the run says how many servers were asked before the signal.
//
// Nor is it in any count of -o json but the cost's (user try 22 #11 and
// F13: an interrupted probe --future counted the cut list in the row's
// requests, 4, and its wait in the row's time, 1.38 s; probe --all's
// "per resource" counted the requests of the resource the signal cut,
// which is no row): no count of requests is above what the server
// answered, no row's time holds the wait for the cut request, and the
// cost says the cut apart (cost.cut). probe --all is cut in its second
// resource, after a row.
func TestACutRequestIsNoOutcome(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	const deployments = "/apis/apps/v1/deployments" // probe --all reads every namespace
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	silent := framework.SilentServers(t, 1)[0]
	for _, c := range []struct {
		args []string
		path string // the collection whose requests are cut ("": configmaps)
	}{
		{args: []string{"probe", "cm", "--future"}},
		{args: []string{"probe", "cm", "--verify"}},
		{args: []string{"probe", "cm", "--interval", "1s", "--duration", "2s"}},
		{args: []string{"probe", "cm", "--metrics"}},
		{args: []string{"probe", "--all", "--verify"}, path: deployments},
		{args: []string{"explain-error", "--check", "Too large resource version: 999999, current: 100"}},
		{args: []string{"explain-error", "--check", "too old resource version: 10 (50)"}},
		{args: []string{"streaming", "cm"}},
		{args: []string{"probe", "cm", "--endpoints", "HOST"}},
		{args: []string{"list", "cm", "--servers", "--endpoints", "HOST"}},
		{args: []string{"explain-error", "--check", "too old resource version: 10 (50)", "--endpoints", "HOST"}},
		{args: []string{"explain-error", "--check", "too old resource version: 10 (50)", "--endpoints", "HOST,SILENT"}},
		{args: []string{"explain-error", "--check", "Too large resource version: 999999, current: 100", "--endpoints", "HOST,SILENT"}},
	} {
		args, cutPath := c.args, cmp.Or(c.path, path)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "SILENT", silent)
		}
		s, kc := framework.ServeRVScript(t, window)
		whole := framework.Run(t, kc, 2*time.Minute, withHost(args, s.Host())...)
		sent := int(s.Asked(cutPath))
		if sent == 0 {
			t.Fatalf("%s: no request of %s (exit %d, stderr %q)", strings.Join(args, " "), cutPath, whole.Code, whole.Stderr)
		}
		for k := 1; k <= sent; k++ {
			for _, out := range [][]string{nil, {"-o", "json"}} {
				run := append(append([]string{}, args...), out...)
				t.Run(strings.Join(run, " ")+"/request "+strconv.Itoa(k), func(t *testing.T) {
					cut := window
					cut.HangAt, cut.HangPath = k, cutPath
					s, kc := framework.ServeRVScript(t, cut)
					p := framework.StartPlugin(t, kc, withHost(run, s.Host())...)
					for deadline := time.Now().Add(time.Minute); s.Asked(cutPath) < int64(k); time.Sleep(50 * time.Millisecond) {
						if time.Now().After(deadline) {
							t.Fatalf("%d request(s) of %s in a minute, want %d; stderr:\n%s", s.Asked(cutPath), cutPath, k, p.Stderr())
						}
					}
					// The request is in flight, and waits long enough to
					// be told from any answered one in a row's time.
					time.Sleep(cutWait)
					code := p.Stop(syscall.SIGINT, 30*time.Second)
					stderr := p.Stderr()
					if args[1] == "--all" {
						// Its run's line goes to stderr, before "interrupted".
						stderr = stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
						noWordOfTheCut(t, p.Stderr())
					}
					if code != 130 || stderr != "interrupted\n" {
						t.Errorf("exit %d, stderr %q: want 130 and only \"interrupted\"", code, p.Stderr())
					}
					if args[0] == "explain-error" && p.Stdout() == "" {
						t.Errorf("explain-error printed no explanation of the message (made before any request):\n%s", p.Stdout())
					}
					noWordOfTheCut(t, p.Stdout())
					if slices.Contains(args, "--endpoints") {
						noCutServer(t, p.Stdout())
					}
					if strings.Contains(strings.Join(args, " "), silent) && !strings.Contains(p.Stdout(), " of 2 servers measured before the signal") && !strings.Contains(p.Stdout(), `"interrupted": {`) {
						t.Errorf("the silent server's question was cut, and the output does not say the run was interrupted:\n%s", p.Stdout())
					}
					if out != nil && strings.TrimSpace(p.Stdout()) != "" {
						countsLeaveOutTheCut(t, p.Stdout(), answeredRequests(s.AskedPaths())-1)
					}
				})
			}
		}
	}
}

// cutWait is how long the cut request waits for the signal.
const cutWait = time.Second

// answeredRequests is what the server was asked that a report counts:
// every request but discovery's and /version's (no command's count holds
// those; the cost does).
func answeredRequests(asked map[string]int64) int {
	n := 0
	for p, c := range asked {
		slashes := strings.Count(p, "/")
		if p == "/api" || p == "/apis" || p == "/version" || strings.HasPrefix(p, "/api/") && slashes <= 2 || strings.HasPrefix(p, "/apis/") && slashes <= 3 {
			continue
		}
		n += int(c)
	}
	return n
}

// countsLeaveOutTheCut fails t when a count of the -o json document doc
// holds the request the signal cut: a "requests" above answered (the
// requests answered before it), a row's "ms" as long as the cut's wait, or
// a cost that does not say the cut apart.
func countsLeaveOutTheCut(t *testing.T, doc string, answered int) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("stdout is no JSON document: %v\n%s", err, doc)
	}
	root, _ := v.(map[string]any)
	if cost, _ := root["cost"].(map[string]any); cost != nil {
		if n, _ := cost["cut"].(float64); n < 1 {
			t.Errorf("cost.cut is %v: the request the signal cut is not said apart:\n%s", cost["cut"], doc)
		}
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch o := v.(type) {
		case map[string]any:
			if n, ok := o["requests"].(float64); ok && int(n) > answered {
				t.Errorf("%s.requests is %v, above the %d request(s) answered before the cut:\n%s", path, n, answered, doc)
			}
			_, aggregate := o["resources"]
			_, servers := o["servers"]
			if ms, ok := o["ms"].(float64); ok && !aggregate && !servers && ms >= float64(cutWait.Milliseconds()) {
				t.Errorf("%s.ms is %v: it holds the wait for the request the signal cut:\n%s", path, ms, doc)
			}
			for k, c := range o {
				if k != "cost" {
					walk(path+"."+k, c)
				}
			}
		case []any:
			for i, c := range o {
				walk(path+"["+strconv.Itoa(i)+"]", c)
			}
		}
	}
	walk("", root)
}

// withHost is args with HOST as host.
func withHost(args []string, host string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "HOST", host)
	}
	return out
}

// noWordOfTheCut fails t when stdout says anything of a request a signal
// cut: its error, or an outcome it never had. "Interrupted:" is only the
// marker of a partial run ("Interrupted: N of M ..."), never a row's
// class (adversary try 22 F4: a server's row "Interrupted: Get URL:
// interrupt signal received").
func noWordOfTheCut(t *testing.T, stdout string) {
	t.Helper()
	for _, word := range []string{"cancel", "Other", "run ended", "watchHeldFor", "signal received"} {
		if strings.Contains(stdout, word) {
			t.Errorf("stdout says %q of the request the signal cut:\n%s", word, stdout)
		}
	}
	for _, at := range regexp.MustCompile(`Interrupted:[^\n]*`).FindAllString(stdout, -1) {
		if !interruptedMarker.MatchString(at) {
			t.Errorf("stdout says %q: a cut request as a row, not the run's marker:\n%s", at, stdout)
		}
	}
}

// noCutServer fails t when the output of a per-server run counts a server
// the signal cut: a row whose class is "Interrupted" (JSON "reason"), or
// one counted among the failed.
func noCutServer(t *testing.T, stdout string) {
	t.Helper()
	for _, word := range []string{`"Interrupted"`, "(Interrupted)"} {
		if strings.Contains(stdout, word) {
			t.Errorf("stdout says %q: the server the signal cut is a row:\n%s", word, stdout)
		}
	}
}

// interruptedMarker is the line under an interrupted run's table.
var interruptedMarker = regexp.MustCompile(`^Interrupted: (\d+) of (\d+) (servers?|resources?) measured before the signal`)

// TestACutServerIsNoRow (adversary try 22 F4, F5): a per-server run of two
// servers (list, probe, probe --all with --endpoints), one of which the
// signal cuts in its request. The server being measured is no row, its
// failure counts nowhere (no "Interrupted" class, no "only partly"), the
// run is marked "Interrupted: N of M ... measured before the signal"
// ("interrupted": {"done": N, "of": M} in JSON), and every verdict line is
// of the measured rows only: of "the N measured", none with no row (no
// "every server agrees ... on every resource" after 0 resources). No JSON
// array is null. Exit 130, "interrupted".
func TestACutServerIsNoRow(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	for _, c := range []struct {
		args []string
		what string // the marker's noun
		done int    // rows measured before the signal
	}{
		{[]string{"list", "cm", "--endpoints", "GOOD,CUT"}, "servers", 1},
		{[]string{"probe", "cm", "--endpoints", "GOOD,CUT"}, "servers", 1},
		{[]string{"probe", "cm", "--endpoints", "CUT,GOOD"}, "servers", 1},
		// Every resource's first request hangs on CUT: the first resource
		// is cut, none measured.
		{[]string{"probe", "--all", "-n", "default", "--endpoints", "GOOD,CUT"}, "resources", 0},
	} {
		for _, out := range [][]string{nil, {"-o", "json"}} {
			args := append(append([]string{}, c.args...), out...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				good, kc := framework.ServeRVScript(t, window)
				cutWindow := window
				cutWindow.HangAt = 1
				cut, _ := framework.ServeRVScript(t, cutWindow)
				run := make([]string, len(args))
				for i, a := range args {
					run[i] = strings.NewReplacer("GOOD", good.Host(), "CUT", cut.Host()).Replace(a)
				}
				p := framework.StartPlugin(t, kc, run...)
				for deadline := time.Now().Add(time.Minute); cut.Asked(path) < 1; time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("no request of %s reached the server to cut in a minute; stderr:\n%s", path, p.Stderr())
					}
				}
				time.Sleep(time.Second) // the cut request is in flight, GOOD's answered
				code := p.Stop(syscall.SIGINT, 30*time.Second)
				stdout := p.Stdout()
				// (probe --all's NOTE line of what it did may come first.)
				if code != 130 || !strings.HasSuffix(p.Stderr(), "\ninterrupted\n") && p.Stderr() != "interrupted\n" {
					t.Errorf("exit %d, stderr %q: want 130 and \"interrupted\" last", code, p.Stderr())
				}
				noWordOfTheCut(t, stdout)
				noWordOfTheCut(t, p.Stderr())
				noCutServer(t, stdout)
				row := regexp.MustCompile(`\d ` + regexp.QuoteMeta(cut.Host()) + `  `)
				if row.MatchString(stdout) || strings.Contains(stdout, "only partly") || strings.Contains(stdout, "failed:") {
					t.Errorf("the server the signal cut is a row, or counted as a failure:\n%s", stdout)
				}
				if out == nil {
					m := interruptedMarker.FindStringSubmatch(lineWith(stdout, "Interrupted:"))
					if m == nil || m[1] != strconv.Itoa(c.done) || m[2] != "2" && c.what == "servers" || m[3] != c.what {
						t.Errorf("want \"Interrupted: %d of ... %s measured before the signal\":\n%s", c.done, c.what, stdout)
					}
					verdictOfTheMeasured(t, stdout, c.done)
					return
				}
				var doc struct {
					Interrupted *struct{ Done, Of int } `json:"interrupted"`
					Servers     []struct {
						Endpoint string `json:"endpoint"`
					} `json:"servers"`
				}
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Interrupted == nil || doc.Interrupted.Done != c.done || c.what == "servers" && doc.Interrupted.Of != 2 {
					t.Errorf("-o json: %v: want \"interrupted\": {\"done\": %d, ...}:\n%s", err, c.done, stdout)
				}
				for _, srv := range doc.Servers {
					if srv.Endpoint == cut.Host() {
						t.Errorf("-o json: the server the signal cut is a row:\n%s", stdout)
					}
				}
				if strings.Contains(stdout, "null") {
					t.Errorf("-o json: a null where an empty array (or nothing) is meant:\n%s", stdout)
				}
			})
		}
	}
}

// verdictOfTheMeasured fails t when a verdict line of an interrupted
// per-server run speaks of every server or resource, not of the measured
// ones, or when there is one with nothing measured.
func verdictOfTheMeasured(t *testing.T, stdout string, done int) {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		switch {
		case done == 0 && (strings.Contains(l, "agrees") || strings.HasPrefix(l, "Answered") || strings.HasPrefix(l, "Every")):
			t.Errorf("a verdict drawn from nothing measured: %q", l)
		case strings.Contains(l, "agrees") && !strings.Contains(l, "measured before the signal"):
			t.Errorf("an agreement of every resource, of an interrupted run: %q", l)
		case strings.Contains(l, "agrees"):
			// of the resources measured: each one's servers all were
		case regexp.MustCompile(`(?i)\b(every|any|no) server\b`).MatchString(l) && !strings.HasPrefix(l, "Interrupted:"):
			t.Errorf("a verdict of every server, of an interrupted run: %q", l)
		}
	}
}

// lineWith is the first line of s that contains sub ("" when none).
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// top's reads are of /metrics: a signal that cuts the first (top --once
// waits for its second sample) or the second is no outcome either: exit
// 130, "interrupted", and no row of the cut sample. Nor is the read of the
// server's facts (/metrics) of every command that reads them, the signal
// cutting it: list printed its list with "Note: /metrics not read (GET
// /metrics (2 families): interrupt signal received)" and its gates as
// assumed (adversary try 23 F6); it prints the list, answered before the
// signal, and no word of the facts.
func TestACutMetricsReadIsNoOutcome(t *testing.T) {
	top := []int{1, 2}
	for _, c := range []struct {
		args  []string
		reads []int // the read of /metrics the signal cuts
	}{
		{[]string{"top", "--once", "--interval", "1s"}, top},
		{[]string{"top", "--once", "--interval", "1s", "--endpoints", "HOST"}, top},
		{[]string{"top", "--once", "--interval", "1s", "-o", "json"}, top},
		{[]string{"list", "cm"}, []int{1}},
		{[]string{"list", "cm", "-o", "json"}, []int{1}},
		{[]string{"list", "cm", "-o", "yaml"}, []int{1}},
		{[]string{"watch", "cm", "--bookmarks", "--stall-timeout", "2m", "--timeout", "30s"}, []int{1}},
		{[]string{"watch", "cm", "--rv", "1000", "--timeout", "30s"}, []int{1}},
		{[]string{"explain-error", "--check", "Too large resource version: 999999, current: 100"}, []int{1}},
	} {
		for _, hangAt := range c.reads {
			args := c.args
			t.Run(strings.Join(args, " ")+"/read "+strconv.Itoa(hangAt), func(t *testing.T) {
				var mu sync.Mutex
				reads := 0
				metrics := framework.ScriptAnswer{Code: 200, Type: "text/plain; version=0.0.4", Write: func(w io.Writer) {
					mu.Lock()
					reads++
					n := reads
					mu.Unlock()
					if n == hangAt {
						time.Sleep(time.Hour) // the signal's to cut
					}
					io.WriteString(w, recordedMetrics(t))
				}}
				s, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/metrics": metrics})
				p := framework.StartPlugin(t, kc, withHost(args, s.Host())...)
				for deadline := time.Now().Add(time.Minute); s.Asked("/metrics") < int64(hangAt); time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("%d read(s) of /metrics in a minute, want %d; stderr:\n%s", s.Asked("/metrics"), hangAt, p.Stderr())
					}
				}
				time.Sleep(300 * time.Millisecond)
				code := p.Stop(syscall.SIGINT, 30*time.Second)
				if code != 130 || p.Stderr() != "interrupted\n" {
					t.Errorf("exit %d, stderr %q: want 130 and only \"interrupted\"", code, p.Stderr())
				}
				noWordOfTheCut(t, p.Stdout())
				for _, word := range []string{"/metrics not read", "assumed", "interrupt signal"} {
					if strings.Contains(p.Stdout(), word) {
						t.Errorf("stdout says %q of the facts' read the signal cut:\n%s", word, p.Stdout())
					}
				}
			})
		}
	}
}

// recordedMetrics is a real v1.37.2 API server's /metrics, recorded.
func recordedMetrics(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../pkg/top/testdata/v1.37.2-etcd-cache-on.1.metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
