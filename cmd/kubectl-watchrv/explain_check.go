package main

import (
	"context"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// checkNow repeats, once, the request the error came from, so that --check
// says what is true now rather than what is likely: for Expired a watch
// from the RV (closed at its first answer), for TooLarge a list not older
// than it. Only what was tried is claimed.
func checkNow(ctx context.Context, c *apiclient.Client, t apiclient.Target, d diagnose.Diagnosis, requested, current string) *diagnose.Tried {
	rv, ok := apiclient.ParseRV(requested)
	cur, ok2 := apiclient.ParseRV(current)
	if !ok || !ok2 || rv == 0 {
		return nil
	}
	switch d.Class {
	case diagnose.ClassExpired:
		if rv > cur {
			return nil
		}
		r := probe.TryWatch(ctx, c, t, rv, probe.TryOptions{})
		tr := &diagnose.Tried{Request: fmt.Sprintf("a watch from RV %d", rv), Works: r.Outcome == probe.OutcomeOK, Answer: r.Evidence}
		if r.Message != "" {
			tr.Answer += ": " + r.Message
		}
		return tr
	case diagnose.ClassTooLarge:
		_, err := listing.List(ctx, c, t, listing.PageOptions{Limit: 1, ResourceVersion: requested, ResourceVersionMatch: "NotOlderThan"})
		tr := &diagnose.Tried{Request: fmt.Sprintf("a list not older than RV %d", rv), Works: err == nil, Answer: "answered"}
		if err != nil {
			tr.Answer = text.OneLine(err.Error())
		}
		return tr
	}
	return nil
}
