package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// BudgetError: the request budget ran out before the bound was found.
type BudgetError struct {
	Resource    string
	MaxRequests int
	// Bracket is set when the search had begun: the oldest RV is in
	// (LastFailing, FirstSucceeding].
	Bracket                      bool
	LastFailing, FirstSucceeding uint64
}

// Error names the limit, not the flag that set it (cmd names the flag).
func (e *BudgetError) Error() string {
	return fmt.Sprintf("the request budget (%d requests) ran out before the bound of %s was found%s", e.MaxRequests, e.Resource, e.Where())
}

// Where says where the bound is known to be, ": the oldest RV is in (a, b]",
// or "" when the search had not begun.
func (e *BudgetError) Where() string {
	if !e.Bracket {
		return ""
	}
	return fmt.Sprintf(": the oldest RV is in (%d, %d]", e.LastFailing, e.FirstSucceeding)
}

func (e *BudgetError) Unwrap() error { return apiclient.ErrBudgetExhausted }

// InterruptedError: the probe was cut by the context's end.
type InterruptedError struct{ Resource string }

func (e *InterruptedError) Error() string { return "interrupted while probing " + e.Resource }

// Unwrap is the cancel that cut the probe, so that every check of an
// interruption (errors.Is context.Canceled) sees it.
func (e *InterruptedError) Unwrap() error { return context.Canceled }

// ForbiddenError: RBAC refused the list or the watch.
type ForbiddenError struct {
	Resource string
	Err      error
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("forbidden: %v: probe needs RBAC permission to list and watch %s", e.Err, e.Resource)
}

func (e *ForbiddenError) Unwrap() error { return e.Err }

// Failure turns the result's error into one actionable error: a
// *BudgetError, an ErrOpaqueRV naming the resource, an *InterruptedError,
// a *ForbiddenError, or the request's own error (nil when nothing failed).
// maxRequests is the budget per probe, named in the budget's error.
func (w *Result) Failure(maxRequests int) error {
	err := w.Err
	if err == nil {
		return nil
	}
	name := w.Target.Resource.Name()
	switch {
	case errors.Is(err, apiclient.ErrBudgetExhausted):
		e := &BudgetError{Resource: name, MaxRequests: maxRequests}
		if s := w.Search; s != nil {
			e.Bracket, e.LastFailing, e.FirstSucceeding = true, s.LastFailing, s.FirstSucceeding
		}
		return e
	case errors.Is(err, ErrOpaqueRV):
		return fmt.Errorf("%s: %w", name, err)
	case errors.Is(err, context.Canceled):
		return &InterruptedError{Resource: name}
	case diagnose.ClassifyFailure(err) == diagnose.FailureForbidden:
		return &ForbiddenError{Resource: name, Err: err}
	}
	return err
}

// Reason is the one-word reason of a failed probe.
func Reason(err error) string {
	var back *OutOfOrderError
	var cut *InterruptedError
	switch {
	case errors.Is(err, ErrOpaqueRV):
		return "OpaqueRV"
	case errors.As(err, &cut):
		return "Interrupted"
	case errors.As(err, &back):
		return "RVsOutOfOrder"
	}
	return sweep.Reason(err)
}

// VerifyError: the verification (Options.Verify) ran and the bound did
// not hold; Reason says how.
type VerifyError struct{ Reason string }

func (e *VerifyError) Error() string {
	return "the verification of the bound failed: " + e.Reason
}

// VerifyFailure is a *VerifyError when the verification ran and failed.
func (w *Result) VerifyFailure() error {
	if w.Verify != nil && !w.Verify.Holds {
		return &VerifyError{Reason: w.Verify.FailureReason}
	}
	return nil
}

// NotOneServers is whether err says the answers of a probe cannot be one
// API server's: RVs that went back (OutOfOrderError), or an answer that
// broke the List or Watch contract (diagnose.ContractError). Nothing drawn
// from such answers is a number to report, nor to judge a server by: no
// window, bound, verification, current or cache RV, lag (the one probe's
// row: render's untrusted; a server's row and the run's verdict over
// servers: pkg/servers). Adversary try 20 #9, try 21 F4/F5.
func NotOneServers(err error) bool { return diagnose.BrokeContract(err) }
