package apiclient

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// AnswerWait bounds how long a get or list waits for its answer to begin
// (its status and headers) when the request has no time bound of its own
// (no --request-timeout): a server that accepts the connection and never
// answers held list, probe, streaming and top for ever (fresh user try
// 19: top hung; the others were bounded only by discovery's 32 s, and not
// at all once discovery was cached). It is above the API server's own
// request timeout as it is by default (60 s), but a server may be
// configured with a longer one (adversary try 20 #3: --request-timeout=5m,
// an aggregated API answering at 90 s): a --request-timeout given by the
// user is then the bound, and AnswerWait does not apply (the request has
// a deadline), and its error says so (DeadlineError). The body, once it
// has begun, is not bounded by it (a large list streams for as long as it
// takes); a watch is bounded by its own --timeout and stall watchdog.
const AnswerWait = 75 * time.Second

// answerWait is AnswerWait (a unit test lowers it); 0: none
// (NoAnswerWait).
var answerWait = AnswerWait

// NoAnswerWait lifts AnswerWait for the run: the user gave
// --request-timeout 0, which kubectl reads as "no time bound" (adversary
// try 21 F10: the 75 s still cut a list, and its error advised giving a
// --request-timeout, the flag just given). Called once, before any request.
func NoAnswerWait() { answerWait = 0 }

// awaitAnswer gives req, when it is no watch and has no deadline, a
// cancellation that fires if no answer has begun within AnswerWait.
// answered, called once the round trip returned, says whether it fired
// (the request then failed for it); release ends the watch of the request
// (at its body's close, or at once when it has none).
func awaitAnswer(req *http.Request) (_ *http.Request, fired func() bool, release func()) {
	if _, ok := req.Context().Deadline(); ok || answerWait <= 0 || kindOf(req, 0) == KindWatch {
		return req, func() bool { return false }, func() {}
	}
	ctx, cancel := context.WithCancel(req.Context())
	var late atomic.Bool
	t := time.AfterFunc(answerWait, func() {
		late.Store(true)
		cancel()
	})
	return req.WithContext(ctx), func() bool { t.Stop(); return late.Load() }, cancel
}
