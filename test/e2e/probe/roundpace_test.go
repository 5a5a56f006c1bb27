//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 49 F2: without a watch cache a round is a storage
// bisection of a dozen requests, seconds long at a low --qps, longer than
// --interval. The last round, started before --duration ran out, ended
// with the rate limiter's own words ("the client-side rate limit would
// hold the request past its deadline (a wait of 194.456343ms)") as its
// note, was counted, and had no "cut": true; nothing said the rounds ran
// further apart than --interval; and a --duration of two intervals that
// held one round said "only 1 of 1 rounds found the bound". On a real
// v1.37.2 with the configmaps' watch cache off: every round found the
// bound or is cut in the series' words (and not counted), no limiter
// words anywhere, the rounds' real pace is reported, and one round is
// said as the --duration that held only it.
func TestProbeIntervalRoundsLongerThanTheInterval(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	ctx := context.Background()
	cs, ns := framework.Namespace(t, c, "slow-rounds")
	var mid int64
	for i := range 40 {
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c-%d", i)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 20 {
			mid, _ = strconv.ParseInt(cm.ResourceVersion, 10, 64)
		}
	}
	// A window that starts mid-history: the search bisects storage.
	if err := c.Compact(ctx, mid); err != nil {
		t.Fatal(err)
	}
	limiterWords := regexp.MustCompile(`deadline|client-side|rate limiter|a wait of|\d+\.\d{4,}(ms|µs|s)`)
	// --qps 4: a round of a dozen requests takes about 3 s, and the last
	// one (started before the 6 s ran out) would need past its bound of
	// one interval after them.
	r := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "6s", "--qps", "4", "-o", "json")
	if m := limiterWords.FindString(r.Stdout + r.Stderr); m != "" {
		t.Errorf("the rate limiter's words %q reach the user:\n%s%s", m, r.Stdout, r.Stderr)
	}
	var s struct {
		Rounds []struct {
			At       time.Time `json:"at"`
			Found    bool      `json:"found"`
			Requests int       `json:"requests"`
			Error    string    `json:"error"`
			Cut      bool      `json:"cut"`
		} `json:"rounds"`
		Interval     float64  `json:"intervalSeconds"`
		Every        *float64 `json:"roundsEverySeconds"`
		Kept         *bool    `json:"intervalKept"`
		Longest      float64  `json:"longestRoundSeconds"`
		LongestPaced float64  `json:"longestRoundQPSWaitSeconds"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	found, cut := 0, 0
	for i, rd := range s.Rounds {
		t.Logf("round %d at %s: found %v, %d requests, cut %v %q", i+1, rd.At.Format("15:04:05.000"), rd.Found, rd.Requests, rd.Cut, rd.Error)
		switch {
		case rd.Found:
			found++
		case rd.Cut && seriesCut.MatchString(rd.Error):
			cut++
		default:
			t.Errorf("round %d neither found the bound nor was cut in the series' words: %+v", i+1, rd)
		}
	}
	t.Logf("exit %d; %d found, %d cut; every %s s (interval %v s, kept %s), longest %.2f s (%.2f s of --qps); stderr %q", r.Code, found, cut, fmtPtr(s.Every), s.Interval, fmtPtr(s.Kept), s.Longest, s.LongestPaced, r.Stderr)
	if found >= 2 && r.Code != 0 {
		t.Errorf("%d rounds found the bound: want exit 0, got %d: %s", found, r.Code, r.Stderr)
	}
	if len(s.Rounds) < 2 || s.Every == nil || s.Kept == nil || *s.Kept || s.Interval != 1 || *s.Every <= 1.5 || s.Longest <= 1 || s.LongestPaced <= 0 {
		t.Errorf("want the rounds' pace measured and said not kept (rounds of seconds at --interval 1s): %s", r.Stdout)
	}

	// --duration of two intervals that holds one round of seconds: said
	// as that, with the flag to change, exit 1; the table says the pace.
	h := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "2s", "--qps", "4")
	t.Logf("--duration 2s: exit %d\n%s%s", h.Code, h.Stdout, h.Stderr)
	if m := limiterWords.FindString(h.Stdout + h.Stderr); m != "" {
		t.Errorf("the rate limiter's words %q reach the user", m)
	}
	if !regexp.MustCompile(`Rounds every: +one round only, not the --interval 1s asked: it took \d+\.\d\ds, \d+\.\d\ds of it waiting for --qps \(raise --qps, or give a longer --interval\)`).MatchString(h.Stdout) {
		t.Errorf("want the one round's time said against --interval:\n%s", h.Stdout)
	}
	if h.Code != 1 || !strings.HasPrefix(h.Stderr, "error: --duration 2s held only one round (it took ") || !strings.Contains(h.Stderr, "one round measures no rate of configmaps: give --duration ") {
		t.Errorf("want exit 1 saying --duration held one round and what to give, got %d: %q", h.Code, h.Stderr)
	}
}

// seriesCut is a cut round's note, in the series' words: still running at
// the bound, or stopped when its next request, paced by --qps, could go
// only past it (fresh user try 51 F1).
var seriesCut = regexp.MustCompile(`^cut: still running one interval \(1s\) after the series' \d+s ran out$|^cut after \d+\.\d\ds: its next request, paced by the rate limit, could go only past the series' \d+s and one interval \(1s\)$`)

// Fresh user try 51 F13, adversary try 51 F2: the --duration that a
// series of one round advises must work when pasted. At --qps 0.5 the
// first round spends the rate limiter's burst (3 requests: 4 s), the
// second waits for every token (6 s), and the "give --duration 9s or more"
// drawn from the first cut the second ("only 1 of 2 rounds found the
// bound", exit 1). On a real v1.37.2 (the package's server, its watch
// cache on): the advice is followed, and two rounds find the bound, exit
// 0, no round failed.
func TestProbeIntervalDurationAdviceWorksWhenFollowed(t *testing.T) {
	_, ns := newNamespace(t, shared, "duration-advice")
	one := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "4s", "--qps", "0.5")
	m := regexp.MustCompile(`give --duration (\d+s) or more`).FindStringSubmatch(one.Stderr)
	t.Logf("--duration 4s: exit %d\n%s%s", one.Code, one.Stdout, one.Stderr)
	if one.Code != 1 || m == nil {
		t.Fatalf("want exit 1 advising a --duration, got %d: %q", one.Code, one.Stderr)
	}
	followAdvice(t, ns, m[1])
	// Fresh user try 52 F3: a --duration that held one round that
	// finished (4 s) and a second, cut (its requests paced past the
	// series' 5s and one interval), advises from the one that finished,
	// and that advice works too.
	more := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "5s", "--qps", "0.5")
	t.Logf("--duration 5s: exit %d\n%s%s", more.Code, more.Stdout, more.Stderr)
	m5 := regexp.MustCompile(`^error: --duration 5s held only one round that finished \(it took .*\), the next one cut before it finished \(after \d+\.\d\ds, not counted\), and one round measures no rate of configmaps: give --duration (\d+s) or more`).FindStringSubmatch(more.Stderr)
	if more.Code != 1 || m5 == nil || !regexp.MustCompile(`Rounds with a bound: +1 of 1 \(and 1 cut round, not counted\)`).MatchString(more.Stdout) {
		t.Errorf("want exit 1 advising a --duration from the round that finished, got %d:\n%s%s", more.Code, more.Stdout, more.Stderr)
	} else if m5[1] != m[1] {
		followAdvice(t, ns, m5[1])
	}
	// Adversary try 51 F3: a round the --qps pacing stopped is said as
	// stopped (not "still running one interval after"), is not counted,
	// and its time is no round's time.
	cut := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "2s", "--qps", "0.5")
	t.Logf("--duration 2s --qps 0.5: exit %d\n%s%s", cut.Code, cut.Stdout, cut.Stderr)
	if cut.Code != 1 || !strings.Contains(cut.Stdout, "cut after ") || strings.Contains(cut.Stdout, "still running") || strings.Contains(cut.Stdout, "it took") ||
		!regexp.MustCompile(`Rounds with a bound: +0 of 0 \(and 1 cut round, not counted\)`).MatchString(cut.Stdout) ||
		!strings.Contains(cut.Stderr, "raise --qps, or give a --duration of several rounds") {
		t.Errorf("want the round said as stopped by --qps, not counted, exit 1, got %d:\n%s%s", cut.Code, cut.Stdout, cut.Stderr)
	}
}

// followAdvice runs the series with the --duration advised: two rounds
// find the bound, exit 0, and any other round was cut, in the series'
// words.
func followAdvice(t *testing.T, ns, duration string) {
	t.Helper()
	r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", duration, "--qps", "0.5", "-o", "json")
	var s struct {
		Rounds []struct {
			Found bool   `json:"found"`
			Cut   bool   `json:"cut"`
			Error string `json:"error"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("--duration %s: exit %d, not JSON: %v\n%s%s", duration, r.Code, err, r.Stdout, r.Stderr)
	}
	found := 0
	for i, rd := range s.Rounds {
		switch {
		case rd.Found:
			found++
		case !rd.Cut || !seriesCut.MatchString(rd.Error):
			t.Errorf("round %d neither found the bound nor was cut in the series' words: %+v", i+1, rd)
		}
	}
	if r.Code != 0 || found < 2 {
		t.Errorf("the advice --duration %s followed: exit %d, %d rounds found the bound, want exit 0 and two: %s%s", duration, r.Code, found, r.Stdout, r.Stderr)
	}
}

// Fresh user try 51 F2, adversary try 51 F12: --max-requests spent in
// every round exited 1, with no bracket and no "raise --max-requests"
// (docs/probe.md: per round, exit 11 and the bracket), and the note said
// "the rates and the depth are the other rounds'" with no other round. On
// the package's real v1.37.2: exit 11 as the one-shot probe, its fix, and
// a note that says nothing was measured.
func TestProbeIntervalEveryRoundOutOfBudget(t *testing.T) {
	_, ns := newNamespace(t, shared, "every-round-budget")
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "3s", "--max-requests", "2")
	t.Logf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	if r.Code != 11 || !strings.Contains(r.Stderr, "raise --max-requests") || !strings.Contains(r.Stderr, "no round found the bound, so nothing was measured") || strings.Contains(r.Stderr, "other rounds'") {
		t.Errorf("want exit 11, raise --max-requests and a note that nothing was measured, got %d: %q", r.Code, r.Stderr)
	}
}

func fmtPtr[T any](p *T) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}
