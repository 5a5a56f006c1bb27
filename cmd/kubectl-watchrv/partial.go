package main

import (
	"errors"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// failedTarget is one target of a run over several (an API server of the
// per-server view, a resource of --all) that the plugin could not measure.
type failedTarget struct {
	Name string
	Err  error
}

// partialFailure is the one rule for partial failure in every run over
// several targets (docs/exit-codes.md, "Runs over several targets"):
//
//   - every target answered: nil (the verdict's own exit code applies);
//   - none answered: the first target's failure, with its exit code (4
//     unreachable, 5 TLS, 6, 7, 8, ...);
//   - some answered: exit 12, naming how many failed and the first; the
//     output's verdict is computed over the targets that answered only.
//
// A verdict that fails on its own (an informer that hangs) keeps its code:
// callers apply this rule only when the verdict passed. what is the
// targets' plural noun ("API servers", "resources").
func partialFailure(what string, total int, failed []failedTarget) error {
	if len(failed) == 0 || total == 0 {
		return nil
	}
	first := failed[0]
	reason := reasonOf(first.Err)
	if len(failed) < total {
		return withCode(ExitPartial, fmt.Errorf("%d of %d %s failed (the first, %s: %s: %s): the verdict covers only what was answered: see the NOTE column",
			len(failed), total, what, first.Name, reason, text.OneLine(first.Err.Error())))
	}
	prefix, hint := "", ": see the NOTE column"
	if sameReason(failed, diagnose.FailureForbidden) {
		prefix, hint = "forbidden: ", ": it needs RBAC permission to list and watch them"
	}
	return withCode(targetExitCode(first.Err), fmt.Errorf("%snone of the %d %s could be measured (the first, %s: %s)%s",
		prefix, total, what, first.Name, text.OneLine(first.Err.Error()), hint))
}

// targetExitCode is the exit code of one target's failure, as the same
// failure of a one-target run gives it.
func targetExitCode(err error) int {
	switch {
	case errors.Is(err, apiclient.ErrBudgetExhausted):
		return ExitBudget
	}
	return exitCode(err)
}

func sameReason(failed []failedTarget, f diagnose.Failure) bool {
	for _, t := range failed {
		if diagnose.ClassifyFailure(t.Err) != f {
			return false
		}
	}
	return true
}
