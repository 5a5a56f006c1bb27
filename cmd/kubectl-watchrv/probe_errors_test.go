package main

import (
	"errors"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// The probe's typed failures carry the limit and the reason; cmd names
// the flags, in the words the docs show.
func TestProbeErrorsNameTheFlags(t *testing.T) {
	b := &probe.BudgetError{Resource: "configmaps", MaxRequests: 3, Bracket: true, LastFailing: 4, FirstSucceeding: 9}
	err := withCode(ExitBudget, budgetError{b})
	if got, want := err.Error(), "the request budget (--max-requests 3) ran out before the bound of configmaps was found: the oldest RV is in (4, 9]: raise --max-requests"; got != want {
		t.Errorf("budget: %q\nwant     %q", got, want)
	}
	if exitCode(err) != ExitBudget || !errors.Is(err, apiclient.ErrBudgetExhausted) {
		t.Errorf("budget: exit %d, chain %v", exitCode(err), errors.Is(err, apiclient.ErrBudgetExhausted))
	}
	b.Bracket = false
	if got, want := (budgetError{b}).Error(), "the request budget (--max-requests 3) ran out before the bound of configmaps was found: raise --max-requests"; got != want {
		t.Errorf("budget before the search: %q", got)
	}
	v := verifyError(&probe.VerifyError{Reason: "a watch from RV 7 failed"})
	if got, want := v.Error(), "--verify failed: a watch from RV 7 failed: run probe again"; got != want || exitCode(v) != ExitFailure {
		t.Errorf("verify: %q (exit %d)", got, exitCode(v))
	}
	if verifyError(nil) != nil {
		t.Error("no verification failure is no error")
	}
}

// A probe --interval series whose --duration held one round exits 1
// saying so with the flags: why (a round longer than --interval, most of
// it waiting for --qps) and the --duration to give (fresh user try 49 F2:
// "only 1 of 1 rounds found the bound"); more rounds say how many found
// it (docs/probe.md, docs/exit-codes.md).
func TestOneRoundSaysTheDuration(t *testing.T) {
	slow := probe.Pace{Asked: time.Second, Duration: 2 * time.Second, Longest: 2430 * time.Millisecond, LongestPaced: 2200 * time.Millisecond}
	kept := probe.Pace{Asked: time.Second, Duration: 2 * time.Second, Longest: 300 * time.Millisecond}
	for _, tc := range []struct {
		few  probe.TooFewRoundsError
		want string
	}{
		// Fresh user try 50 F1: a cut round gives no --duration to advise.
		// Adversary try 51 F3: the round stopped by the rate limit is said
		// as it ran, and only then is --qps the fix.
		{probe.TooFewRoundsError{Found: 0, Rounds: 0, Cut: 1, Held: 1, Resource: "configmaps", Pace: probe.Pace{Asked: time.Second, Duration: 2 * time.Second, CutAfter: 2 * time.Second, CutPaced: true}},
			"--duration 2s held only one round, and it was cut before it finished (after 2.00s): one round measures no rate of configmaps, and how long a round takes is not known: raise --qps, or give a --duration of several rounds"},
		{probe.TooFewRoundsError{Found: 0, Rounds: 0, Cut: 1, Held: 1, Resource: "configmaps", Pace: probe.Pace{Asked: time.Second, Duration: 2 * time.Second, CutAfter: 3 * time.Second}},
			"--duration 2s held only one round, and it was cut before it finished (after 3.00s): one round measures no rate of configmaps, and how long a round takes is not known: give a --duration of several rounds"},
		// Fresh user try 51 F8: retries are the plugin's, said as such.
		{probe.TooFewRoundsError{Found: 1, Rounds: 1, Held: 1, Resource: "configmaps", Pace: probe.Pace{Asked: time.Second, Duration: 2 * time.Second, Longest: 1370 * time.Millisecond, LongestRetried: 800 * time.Millisecond, Steady: 1370 * time.Millisecond}},
			"--duration 2s held only one round (it took 1.37s, longer than --interval 1s, 0.80s of it the plugin's backoff before sending failed requests again), and one round measures no rate of configmaps: give --duration 3s or more"},
		{probe.TooFewRoundsError{Found: 1, Rounds: 1, Held: 1, Resource: "configmaps", Pace: slow}, "--duration 2s held only one round (it took 2.43s, longer than --interval 1s, 2.20s of it waiting for --qps), and one round measures no rate of configmaps: give --duration 5s or more"},
		{probe.TooFewRoundsError{Found: 0, Rounds: 1, Held: 1, Resource: "configmaps", Pace: kept}, "--duration 2s held only one round, and one round measures no rate of configmaps: give --duration 3s or more"},
		// Fresh user try 52 F3: one round finished (2.42 s, most of it the
		// server's answers), the next was cut: the --duration is advised
		// from the one that finished, as when none was cut.
		{probe.TooFewRoundsError{Found: 1, Rounds: 1, Cut: 1, Held: 2, Resource: "configmaps", Pace: probe.Pace{Asked: time.Second, Duration: 3 * time.Second, Longest: 2420 * time.Millisecond, LongestPaced: 1180 * time.Millisecond, Steady: 2420 * time.Millisecond, CutAfter: 1580 * time.Millisecond}},
			"--duration 3s held only one round that finished (it took 2.42s, longer than --interval 1s, 1.24s of it waiting for the server's answers), the next one cut before it finished (after 1.58s, not counted), and one round measures no rate of configmaps: give --duration 5s or more"},
		{probe.TooFewRoundsError{Found: 1, Rounds: 1, Cut: 1, Held: 2, Resource: "configmaps", Pace: probe.Pace{Asked: time.Second, Duration: 3 * time.Second, Longest: 300 * time.Millisecond, Steady: 300 * time.Millisecond, CutAfter: 2 * time.Second, CutPaced: true}},
			"--duration 3s held only one round that finished, the next one cut before it finished (after 2.00s, not counted), and one round measures no rate of configmaps: give --duration 3s or more"},
		{probe.TooFewRoundsError{Found: 1, Rounds: 2, Cut: 1, Held: 3, Resource: "configmaps", Pace: kept}, "only 1 of 2 rounds found the bound of configmaps (and 1 cut round, not counted): no rate can be measured"},
	} {
		few := tc.few
		err := withCode(ExitFailure, tooFewRoundsError(outOfOrderError(&few)))
		var typed *probe.TooFewRoundsError
		if err.Error() != tc.want || exitCode(err) != ExitFailure || !errors.As(err, &typed) {
			t.Errorf("got %q (exit %d)\nwant %q (exit 1)", err, exitCode(err), tc.want)
		}
	}
}
