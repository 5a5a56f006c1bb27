package main

import (
	"errors"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// TestASeriesRetriesAreSaidOverTheSeries (adversary try 52 F6: every
// round of probe --interval 1s --duration 3s failed "in 3 attempts", and
// the error line, the last round's failure, ended "(after 6 retries and
// 1.80 s waiting, ...)": 3 attempts are 2 retries, the 6 the three
// rounds'). Each line's counts are of what it names: the run's retries
// on a series' line are said over the series' rounds; a series of one
// round, and a single probe, say them as the run's, as before; the failed
// read's own retries, when it carries more, are its own.
func TestASeriesRetriesAreSaidOverTheSeries(t *testing.T) {
	const line = "a watch from RV 1 told nothing about the window in 3 attempts"
	run := &apiclient.RetryWait{Retries: 6, Millis: 1800}
	last := errors.New(line)
	for _, tc := range []struct {
		name string
		err  error
		run  *apiclient.RetryWait
		want string
	}{
		{"three rounds", ofSeries(withCode(ExitFailure, last), 3), run,
			line + " (the run's requests, over the series' 3 rounds: after 6 retries and 1.80 s waiting, by the plugin's backoff)"},
		{"two rounds, too few found", ofSeries(withCode(ExitFailure, errors.New("only 1 of 2 rounds found the bound of configmaps: no rate can be measured")), 2), run,
			"only 1 of 2 rounds found the bound of configmaps: no rate can be measured (the run's requests, over the series' 2 rounds: after 6 retries and 1.80 s waiting, by the plugin's backoff)"},
		{"one round", ofSeries(withCode(ExitFailure, last), 1), run,
			line + " (after 6 retries and 1.80 s waiting, by the plugin's backoff)"},
		{"a single probe", withCode(ExitFailure, last), run,
			line + " (after 6 retries and 1.80 s waiting, by the plugin's backoff)"},
		{"no retries", ofSeries(withCode(ExitFailure, last), 3), nil, line},
		{"the read's own, more than the run's", ofSeries(withCode(ExitFailure, &apiclient.RetriedError{Err: last, Wait: apiclient.RetryWait{Retries: 2, Millis: 600}}), 3), nil,
			line + " (after 2 retries and 600.0 ms waiting, by the plugin's backoff)"},
	} {
		if got := retryWaitsSaid(tc.err.Error(), tc.err, tc.run); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, tc.want)
		}
		if exitCode(tc.err) != ExitFailure {
			t.Errorf("%s: exit %d, want %d", tc.name, exitCode(tc.err), ExitFailure)
		}
	}
}
