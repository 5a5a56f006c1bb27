package main

import (
	"context"
	"errors"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// countRetryWaits puts the run's requests under one stopwatch, whose
// retry waits (Retry.Wait notes each on the stopwatches it is nested in)
// the run's cost carries: every command's JSON cost and final error line
// say them, from the one count (adversary try 26 F3: a probe waited out
// 60 s of a server's Retry-After and said none of it).
func (o *RootOptions) countRetryWaits(ctx context.Context) context.Context {
	ctx, sw := apiclient.StartStopwatch(ctx)
	o.ledger.CountRetriesOf(sw)
	return ctx
}

// withRetryWaits is a final error line with the run's retry waits said at
// its end: "... retry later (after 2 retries and 60.00 s waiting, as the
// server's Retry-After asked: ...)". A wait the plugin added is never
// hidden, and an error after one is not read as the first answer. err is
// the failure line says (the first retry's cause is said unless it is
// that same failure: render.RetryCauseText).
//
// The retries said are the run's less those said on a line of their own
// (Ledger.LineRetryWait), and always the failed read's own when it
// carries them (apiclient.RetriesOf): a read said apart that failed the
// run is said with its retries on the error line too.
func (o *RootOptions) withRetryWaits(line string, err error) string {
	return retryWaitsSaid(line, err, o.ledger.LineRetryWait())
}

// retryWaitsSaid is line with the retries said at its end: run, the
// run's (Ledger.LineRetryWait), or the failed read's own when it carries
// more. A series' final error (seriesError) names one round, or the
// series: the run's retries are said over the series' rounds, never as
// the round's (adversary try 52 F6: "in 3 attempts ... (after 6
// retries ...)", the 6 of three rounds).
func retryWaitsSaid(line string, err error, run *apiclient.RetryWait) string {
	rw, ofTheRun := run, run != nil
	if own := apiclient.RetriesOf(err); own != nil && (rw == nil || own.Retries > rw.Retries) {
		rw, ofTheRun = own, false
	}
	var perTarget sweep.RetriesPerTarget
	if errors.As(err, &perTarget) && perTarget.RetriesPerTarget() {
		// Each row says its server's own retries: the run's sum is of
		// waits at the same time, and its first cause is one server's
		// (adversary try 28 F3).
		if t := render.FanOutRetriesText(rw); t != "" {
			return line + " (" + t + ")"
		}
		return line
	}
	t := render.AfterRetriesText(rw)
	if t == "" {
		return line
	}
	var none *sweep.NoneError
	var partial *sweep.PartialError
	var series *seriesError
	if ofTheRun && errors.As(err, &series) && series.rounds > 1 {
		return line + " (the run's requests, over the series' " + text.Count(uint64(series.rounds), "round") + ": " + t + render.RetryCauseText(rw, err) + ")"
	}
	switch {
	case errors.As(err, &none) && none.OneTarget(), errors.As(err, &partial) && partial.OneTarget():
		// One target: its retries are the run's.
	case none != nil || partial != nil:
		// A run over several targets names one target's failure; its
		// retries are the run's, of any target (fresh user try 31 F6:
		// the secrets watches' 503 retries read as the 403 of configmaps,
		// never sent again).
		return line + " (the run's requests, of any target: " + t + render.RetryCauseText(rw, err) + ")"
	}
	return line + " (" + t + render.RetryCauseText(rw, err) + ")"
}

// seriesError is the final error of a probe --interval series that held
// rounds rounds: its line names one round's failure (the last one that
// failed) or the series', and the run's retries it ends with are the
// series', said so (retryWaitsSaid).
type seriesError struct {
	err    error
	rounds int
}

func (e *seriesError) Error() string { return e.err.Error() }
func (e *seriesError) Unwrap() error { return e.err }

// ofSeries is err, a series' final error, marked as one (seriesError)
// when the series held more than one round.
func ofSeries(err error, rounds int) error {
	if err == nil || rounds < 2 {
		return err
	}
	return &seriesError{err: err, rounds: rounds}
}
