package main

import (
	"errors"
	"testing"

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
