//go:build e2e

package bounds

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A watch whose response headers never come is cut by the plugin's own
// bound for a watch's answer to begin (probe's, --check's): that is no
// answer (NoAnswer, exit 4 for one target), named with its bound, never
// the server's answer "context canceled", class Other, exit 1 (adversary
// try 22 F2: probe, --verify, --future, --endpoints rows and
// explain-error --check said "request failed: Get ...: context
// canceled"; watch and streaming said "no response headers came", exit
// 4). Every command that sends such a watch, against a server whose
// watches never begin: the exit code, the row's class, the bound's name
// (the plugin's own, or --request-timeout where given), and no word of a
// cancellation, in the human output and in JSON.
func TestAWatchWithoutAnAnswerIsNoAnswerNamedByItsBound(t *testing.T) {
	const (
		own   = "no answer within 10s, the probe's bound for a watch's answer to begin"
		given = "no answer within 1s, --request-timeout"
	)
	good, _ := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50})
	gu, err := url.Parse(good.URL())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		args []string
		code int
		// bound is the words of the bound that cut the watch; class,
		// when set, the class of the hanging server's row.
		bound, class string
	}
	for _, c := range []row{
		{args: []string{"probe", "cm"}, code: 4, bound: own},
		{args: []string{"explain-error", "--check", "too old resource version: 10 (50)"}, code: 4, bound: own},
		{args: []string{"probe", "cm", "--request-timeout", "1s"}, code: 4, bound: given},
		{args: []string{"probe", "cm", "--verify", "--request-timeout", "1s"}, code: 4, bound: given},
		{args: []string{"probe", "cm", "--future", "--request-timeout", "1s"}, code: 4, bound: given},
		{args: []string{"probe", "--all", "-n", "default", "--request-timeout", "1s"}, code: 4, bound: given},
		{args: []string{"probe", "cm", "--endpoints", "HANG", "--request-timeout", "1s"}, code: 4, bound: given, class: "NoAnswer"},
		{args: []string{"probe", "cm", "--endpoints", "GOOD,HANG", "--request-timeout", "1s"}, code: 12, bound: given, class: "NoAnswer"},
		{args: []string{"probe", "--all", "-n", "default", "--endpoints", "GOOD,HANG", "--request-timeout", "1s"}, code: 12, bound: given, class: "NoAnswer"},
		{args: []string{"explain-error", "--check", "too old resource version: 10 (50)", "--request-timeout", "1s"}, code: 4, bound: given},
		{args: []string{"explain-error", "--check", "too old resource version: 10 (50)", "--endpoints", "GOOD,HANG"}, code: 12, bound: own, class: "NoAnswer"},
	} {
		for _, out := range [][]string{nil, {"-o", "json"}} {
			args := append(append([]string{}, c.args...), out...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				hang, kc := framework.ServeRVScript(t, framework.RVScript{Currents: []uint64{100}, Oldest: 50, HangWatches: true})
				hu, err := url.Parse(hang.URL())
				if err != nil {
					t.Fatal(err)
				}
				for i, a := range args {
					args[i] = strings.NewReplacer("GOOD", gu.Host, "HANG", hu.Host).Replace(a)
				}
				r := framework.Run(t, kc, 3*time.Minute, args...)
				all := r.Stdout + r.Stderr
				if r.Code != c.code {
					t.Errorf("exit %d, want %d", r.Code, c.code)
				}
				if !strings.Contains(oneLine(all), c.bound) {
					t.Errorf("the watch's cut does not name its bound (%q)", c.bound)
				}
				if c.class != "" && !strings.Contains(all, c.class) {
					t.Errorf("the hanging server's row is not of class %s", c.class)
				}
				for _, word := range []string{"cancel", "Other"} {
					if strings.Contains(all, word) {
						t.Errorf("the output says %q of a watch the plugin's bound cut", word)
					}
				}
				if t.Failed() {
					t.Logf("stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
				}
			})
		}
	}
}

// Each request a command sends, left without an answer in its turn (the
// others answered): its cut is no answer, in any command and whichever
// request it is (the search's watches, --verify's, --future's, the
// check's, a list): never "context canceled" or Other, where it is shown
// (a try retried with an answer may not be).
func TestEachWatchWithoutAnAnswerIsNoAnswer(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	window := framework.RVScript{Currents: []uint64{100}, Oldest: 50}
	for _, args := range [][]string{
		{"probe", "cm", "--verify"},
		{"probe", "cm", "--future"},
		{"probe", "cm", "--endpoints", "HOST"},
		{"explain-error", "--check", "too old resource version: 10 (50)"},
		{"explain-error", "--check", "too old resource version: 10 (50)", "--endpoints", "HOST"},
	} {
		args = append(args, "--request-timeout", "1s")
		s, kc := framework.ServeRVScript(t, window)
		whole := framework.Run(t, kc, 2*time.Minute, withHost(args, s.Host())...)
		sent := int(s.Asked(path))
		if sent == 0 {
			t.Fatalf("%s: no request of %s (exit %d, stderr %q)", strings.Join(args, " "), path, whole.Code, whole.Stderr)
		}
		for k := 1; k <= sent; k++ {
			t.Run(strings.Join(args, " ")+"/request "+strconv.Itoa(k), func(t *testing.T) {
				cut := window
				cut.HangAt = k
				s, kc := framework.ServeRVScript(t, cut)
				r := framework.Run(t, kc, 2*time.Minute, append(withHost(args, s.Host()), "-o", "json")...)
				all := r.Stdout + r.Stderr
				for _, word := range []string{"cancel", "Other"} {
					if strings.Contains(all, word) {
						t.Errorf("exit %d: the output says %q of the request the plugin's bound cut:\nstdout:\n%s\nstderr:\n%s", r.Code, word, r.Stdout, r.Stderr)
					}
				}
			})
		}
	}
}

// oneLine is s with its line breaks (a table's wrapped cell) as spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
