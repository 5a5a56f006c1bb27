package main

import (
	"errors"

	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
)

// sentContext is what the watch request last sent, for the diagnosis of
// its answer (a 410 or 504 to it, an ERROR event in its stream): the
// session's one account of it (follow.Session.SentContext).
func (r *watchRun) sentContext() diagnose.Context { return r.session.SentContext(nil) }

// answerContext is what the request that got err sent: as the answer
// carries it (diagnose.AnsweredContext: the query of the request it
// answered), else the list step's (a list) or the watch's (sentContext:
// an ERROR event in its stream). Every diagnosis of an answer in watch is
// given it: a row, an ERROR event, a relist notice, the error line (fresh
// user try 29 F2: the relist notice read the message's numbers as the
// watch's RV; adversary try 30 F1: a relist that sent no RV was told of
// none, and its 504 read as a request for the message's RV).
func (r *watchRun) answerContext(err error) (step string, ctx diagnose.Context) {
	var list *follow.ListStepError
	step, ctx = "the watch", r.sentContext()
	if errors.As(err, &list) {
		step, ctx = "the list", diagnose.Context{Operation: diagnose.OpList, Live: true}
	}
	if sent, ok := diagnose.AnsweredContext(err); ok {
		ctx = sent
	}
	return step, ctx
}

// answerError is requestError of the request that got err, with what it
// sent (answerContext).
func (r *watchRun) answerError(err error) error {
	_, ctx := r.answerContext(err)
	return r.o.sentRequestError(err, r.o.verbs(), r.target.Resource.Name(), ctx)
}
