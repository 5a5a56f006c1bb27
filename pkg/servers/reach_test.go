package servers

import (
	"fmt"
	"strings"
	"testing"
)

// Fresh user try 19 #2: probe --endpoints --from-rv 99999999 said "every
// server serves it" of an RV ahead of every server, while explain-error
// --check --servers said "no server has reached RV 99999999". One rule
// (ReachOf) decides for both, at every RV: below the window, inside it,
// between a lagging server's cache and the newest RV, at the newest and
// past it. A server ahead of which the RV is never "starts" in the
// reconnect verdict and is always named by explain-error.
func TestReachIsOneRuleForReconnectAndExplain(t *testing.T) {
	servers := func() []*Server {
		ss := []*Server{
			// follows storage (lag 0 right after a consistent list)
			{Endpoint: "a", CurrentRV: 1521, CurrentKnown: true, CacheRV: 1521, CacheKnown: true, Oldest: 643, WindowKnown: true},
			// lags: its cache is behind
			{Endpoint: "b", CurrentRV: 1521, CurrentKnown: true, CacheRV: 1500, CacheKnown: true, Oldest: 700, WindowKnown: true},
			// no watch cache: reads storage, always current
			{Endpoint: "c", CurrentRV: 1519, CurrentKnown: true, CacheRV: 1519, CacheKnown: true, Oldest: 669, WindowKnown: true, Source: "storage"},
		}
		for _, s := range ss {
			s.setWatchCache("configmaps")
			s.setLag(s.CurrentRV, "")
		}
		return ss
	}
	for _, rv := range []uint64{1, 650, 1000, 1510, 1521, 1522, 99999999} {
		ss := servers()
		v := Decide(ss, rv)
		var cross []CrossAnswer
		for _, s := range ss {
			cross = append(cross, CrossAnswer{Endpoint: s.Endpoint, CacheRV: s.CacheRV, CacheKnown: s.CacheKnown, Follows: follows(s), measured: s})
		}
		findings := strings.Join(tooLargeFindings(cross, rv), "\n")
		ahead := 0
		for _, s := range ss {
			if ReachOf(s, rv, v.NewestCurrent).Ahead > 0 {
				ahead++
			}
		}
		for i, a := range v.Reconnect.Answers {
			reach := ReachOf(ss[i], rv, v.NewestCurrent)
			if (reach.Ahead > 0) != (a.Answer == AnswerTooLarge) {
				t.Errorf("RV %d, server %s: %s, but it serves up to %d", rv, a.Endpoint, a.Answer, reach.UpTo)
			}
			if reach.Ahead > 0 {
				if a.By != reach.Ahead || a.ServesUpTo != reach.UpTo {
					t.Errorf("RV %d, server %s: by %d up to %d, want %d up to %d", rv, a.Endpoint, a.By, a.ServesUpTo, reach.Ahead, reach.UpTo)
				}
				if ahead < len(ss) && !strings.Contains(findings, "server "+a.Endpoint+" is ") {
					t.Errorf("RV %d: explain-error does not name %s, which has not reached it: %s", rv, a.Endpoint, findings)
				}
			} else if strings.Contains(findings, "server "+a.Endpoint+" is ") {
				t.Errorf("RV %d: explain-error names %s, which serves it: %s", rv, a.Endpoint, findings)
			}
		}
		if all := strings.Contains(findings, fmt.Sprintf("no server has reached RV %d", rv)); all != (ahead == len(ss)) {
			t.Errorf("RV %d: %d of %d servers ahead of it, explain-error says %q", rv, ahead, len(ss), findings)
		}
		if rv == 99999999 && ahead != len(ss) {
			t.Errorf("RV %d is past every server: %+v", rv, v.Reconnect.Answers)
		}
	}
}
