//go:build e2e

package bounds

import (
	"io"
	"os"
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
func TestACutRequestIsNoOutcome(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	silent := framework.SilentServers(t, 1)[0]
	for _, args := range [][]string{
		{"probe", "cm", "--future"},
		{"probe", "cm", "--verify"},
		{"probe", "cm", "--interval", "1s", "--duration", "2s"},
		{"probe", "cm", "--metrics"},
		{"explain-error", "--check", "Too large resource version: 999999, current: 100"},
		{"explain-error", "--check", "too old resource version: 10 (50)"},
		{"streaming", "cm"},
		{"probe", "cm", "--endpoints", "HOST"},
		{"list", "cm", "--servers", "--endpoints", "HOST"},
		{"explain-error", "--check", "too old resource version: 10 (50)", "--endpoints", "HOST"},
		{"explain-error", "--check", "too old resource version: 10 (50)", "--endpoints", "HOST,SILENT"},
		{"explain-error", "--check", "Too large resource version: 999999, current: 100", "--endpoints", "HOST,SILENT"},
	} {
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "SILENT", silent)
		}
		s, kc := framework.ServeRVScript(t, window)
		whole := framework.Run(t, kc, 2*time.Minute, withHost(args, s.Host())...)
		sent := int(s.Asked(path))
		if sent == 0 {
			t.Fatalf("%s: no request of %s (exit %d, stderr %q)", strings.Join(args, " "), path, whole.Code, whole.Stderr)
		}
		for k := 1; k <= sent; k++ {
			for _, out := range [][]string{nil, {"-o", "json"}} {
				run := append(append([]string{}, args...), out...)
				t.Run(strings.Join(run, " ")+"/request "+strconv.Itoa(k), func(t *testing.T) {
					cut := window
					cut.HangAt = k
					s, kc := framework.ServeRVScript(t, cut)
					p := framework.StartPlugin(t, kc, withHost(run, s.Host())...)
					for deadline := time.Now().Add(time.Minute); s.Asked(path) < int64(k); time.Sleep(50 * time.Millisecond) {
						if time.Now().After(deadline) {
							t.Fatalf("%d request(s) of %s in a minute, want %d; stderr:\n%s", s.Asked(path), path, k, p.Stderr())
						}
					}
					time.Sleep(300 * time.Millisecond) // the request is in flight
					code := p.Stop(syscall.SIGINT, 30*time.Second)
					if code != 130 || p.Stderr() != "interrupted\n" {
						t.Errorf("exit %d, stderr %q: want 130 and only \"interrupted\"", code, p.Stderr())
					}
					if args[0] == "explain-error" && p.Stdout() == "" {
						t.Errorf("explain-error printed no explanation of the message (made before any request):\n%s", p.Stdout())
					}
					noWordOfTheCut(t, p.Stdout())
					if strings.Contains(strings.Join(args, " "), silent) && !strings.Contains(p.Stdout(), " of 2 servers measured before the signal") && !strings.Contains(p.Stdout(), `"interrupted": {`) {
						t.Errorf("the silent server's question was cut, and the output does not say the run was interrupted:\n%s", p.Stdout())
					}
				})
			}
		}
	}
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
// cut: its error, or an outcome it never had.
func noWordOfTheCut(t *testing.T, stdout string) {
	t.Helper()
	for _, word := range []string{"cancel", "Other", "run ended", "watchHeldFor"} {
		if strings.Contains(stdout, word) {
			t.Errorf("stdout says %q of the request the signal cut:\n%s", word, stdout)
		}
	}
}

// top's reads are of /metrics: a signal that cuts the first (top --once
// waits for its second sample) or the second is no outcome either: exit
// 130, "interrupted", and no row of the cut sample.
func TestACutMetricsReadIsNoOutcome(t *testing.T) {
	for _, hangAt := range []int{1, 2} {
		for _, args := range [][]string{
			{"top", "--once", "--interval", "1s"},
			{"top", "--once", "--interval", "1s", "--endpoints", "HOST"},
			{"top", "--once", "--interval", "1s", "-o", "json"},
		} {
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
