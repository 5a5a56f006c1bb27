package main

import (
	"errors"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// failureWords is how watch's summary (Failed:, Failing:) and its notices
// (reconnect, relist) say a failed attempt: a server's answer with its
// status and request, as the error line says it (apiclient.FailureWords),
// never its body alone (fresh user try 27 F3: "Failed: Throttled: ...
// (Too many requests, please try again later.)" said neither 429 nor
// which request). An ERROR event inside a stream is said as the event it
// was: it answered no request. Redacted as every line of the run.
func (r *watchRun) failureWords(err error) string {
	return r.o.redactKubeconfig(r.answerWords(err))
}

func (r *watchRun) answerWords(err error) string {
	what := r.target.Resource.Name()
	var (
		event      *follow.EventError
		incomplete *follow.ListIncompleteError
		list       *follow.ListStepError
	)
	switch {
	case errors.As(err, &event):
		return err.Error()
	case errors.As(err, &incomplete):
		if _, ok := diagnose.StatusOf(incomplete.Err); ok {
			return "the first list did not complete before the watch's time ran out, so no watch was started; its last answer: " + apiclient.FailureWords("list", what, incomplete.Err)
		}
		return err.Error()
	case errors.As(err, &list):
		return apiclient.FailureWords("list", what, list.Err)
	}
	return apiclient.FailureWords("watch", what, err)
}

// noticeWords is a notice's reason with its failure said by failureWords:
// the reason ends with the failure's own words ("relist failed: busy"),
// which are replaced, so that what the session said before them stays.
// A read the retry policy sent again says its retries at the end
// (render.RetriesSaid: the behind check's current-RV read; adversary try
// 27 F5).
func (r *watchRun) noticeWords(reason string, err error) string {
	if err == nil {
		return reason
	}
	own := err.Error()
	if strings.HasSuffix(reason, own) {
		reason = strings.TrimSuffix(reason, own) + r.answerWords(err)
	}
	// A relist that failed says what it was for: the watch's answer,
	// which no RELIST line will name (fresh user try 32 F1: a relist
	// failing with a 500 until --timeout never said the 410 it was for).
	var list *follow.ListStepError
	if errors.As(err, &list) && list.Cause != nil && strings.HasPrefix(reason, relistFailed) {
		// Bounded on its own, so that the relist's own failure after it
		// stays in the note's bound (adversary try 33 F1: a 5000-byte
		// 410 cut the relist's 500 out of the line).
		reason = "relist (after " + text.Shorten(r.answerWords(list.Cause), causeLimit) + ") failed: " + strings.TrimPrefix(reason, relistFailed)
	}
	return reason + render.RetriesSaid(err)
}

// relistFailed begins the session's notice of a relist that failed.
const relistFailed = "relist failed: "

// causeLimit bounds the answer a failed relist was for, in its note.
const causeLimit = 512

// wordedStreak is the run's failure streak whose error says itself by
// failureWords (worded: it still unwraps to the failure, its class and code).
func (r *watchRun) wordedStreak(st *follow.Streak) *follow.Streak {
	if st == nil || st.Err == nil {
		return st
	}
	c := *st
	c.Err = &worded{msg: r.failureWords(st.Err), err: st.Err}
	return &c
}
