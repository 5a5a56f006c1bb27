package main

import (
	"errors"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// partialExitCode maps the partial-failure rule of a run over several
// targets (sweep.Partial, docs/exit-codes.md "Runs over several targets")
// to its exit code: 12 when some targets answered, the first failure's own
// code when none did.
func partialExitCode(err error) (int, bool) {
	var partial *sweep.PartialError
	if errors.As(err, &partial) {
		if sweep.ContractBroken(partial.Failed) {
			// A measured answer of its own code, as the verdict's
			// hang or wrong state: 1, whatever else failed.
			return ExitFailure, true
		}
		return ExitPartial, true
	}
	var none *sweep.NoneError
	if errors.As(err, &none) {
		return targetExitCode(none.Failed[0].Err), true
	}
	return 0, false
}

// targetExitCode is the exit code of one target's failure, as the same
// failure of a one-target run gives it.
func targetExitCode(err error) int {
	if errors.Is(err, apiclient.ErrBudgetExhausted) {
		return ExitBudget
	}
	return exitCode(err)
}
