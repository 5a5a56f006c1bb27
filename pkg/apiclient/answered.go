package apiclient

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// answeredError is a server's error answer (a Status) to one request Get
// sent, with what that request was: an error line says "answered list
// configmaps with 500 ..." of the request that got it, never of every
// request the command sends (fresh user try 25 F1: probe and watch
// --follow said "answered list and watch" of a 500 to one list, or to a
// watch after a list that was answered 200).
type answeredError struct {
	verb string
	sent diagnose.Context
	err  error
	// at is when the answer came: a row that shows it later (a watch's
	// 410 shown after its relist failed) carries the answer's time, not
	// its own (adversary try 34 F2: the row was stamped 4 s after the
	// 410, when the relist gave up).
	at time.Time
}

func (e *answeredError) Error() string { return e.err.Error() }
func (e *answeredError) Unwrap() error { return e.err }

// SentContext is what the request that got the answer sent
// (diagnose.AnsweredContext): every diagnosis of the answer, whoever
// makes it, judges it against that request (adversary try 30 F2: a 429
// "Too large resource version" to a plain watch was said as a lagging
// watch cache's answer to a consistent read, which only a list is).
func (e *answeredError) SentContext() diagnose.Context { return e.sent }

// AnsweredBy is answeredBy for an answer read from a body, where Get
// could not see it: a Status of failure sent with a 200 as the list page
// (client-go takes it as the answer's error, and so does the plugin), so
// that it is judged against the request that got it wherever it is said
// (adversary try 38 F5: probe's fix of a TooLarge in a 200 named the
// consistent list that had just failed).
func AnsweredBy(kind BodyKind, q url.Values, err error) error { return answeredBy(kind, q, err) }

// answeredBy is err, a Status answer to a request of kind with query q,
// marked with that request's verb and what it sent (sentBy); any other
// error as it is.
func answeredBy(kind BodyKind, q url.Values, err error) error {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return err
	}
	verb := "get"
	switch kind {
	case KindWatch:
		verb = "watch"
	case KindList:
		verb = "list"
	}
	return &answeredError{verb: verb, sent: sentBy(kind, q), err: err, at: time.Now()}
}

// sentBy is what a request of kind with query q asked for, as the
// classifier is told it: the operation (a watch, a streaming list, a
// list, its exact or continue form) and its resourceVersion, or that it
// sent none. The answer is the server's own (Live).
func sentBy(kind BodyKind, q url.Values) diagnose.Context {
	ctx := diagnose.Context{Live: true}
	switch kind {
	case KindWatch:
		ctx.Operation = diagnose.OpWatch
		if q.Get("sendInitialEvents") == "true" {
			ctx.Operation = diagnose.OpStreamingList
		}
	case KindList:
		ctx.Operation = diagnose.OpList
		switch {
		case q.Get("continue") != "":
			// The token carries the RV the page is read at: no RV is
			// said sent, nor none (a continue page is answered 410
			// when its token's RV was compacted).
			ctx.Operation = diagnose.OpListContinue
			return ctx
		case q.Get("resourceVersionMatch") == "Exact":
			ctx.Operation = diagnose.OpListExact
		}
	default:
		return ctx
	}
	if v := q.Get("resourceVersion"); v != "" {
		ctx.RequestedResourceVersion = v
	} else {
		ctx.NoResourceVersionSent = true
	}
	return ctx
}

// AnsweredAt is when the Status answer err carries came, as Get marked
// it; false when err carries none.
func AnsweredAt(err error) (time.Time, bool) {
	var a *answeredError
	if errors.As(err, &a) && !a.at.IsZero() {
		return a.at, true
	}
	return time.Time{}, false
}

// AnsweredVerb is the verb of the request whose Status answer err carries
// ("list", "watch", "get"), or "" when err carries none that Get marked.
func AnsweredVerb(err error) string {
	var a *answeredError
	if errors.As(err, &a) {
		return a.verb
	}
	return ""
}

// AnswerWords is the one way a server's error answer is said, by the
// final error line and by a note or warning that quotes it alike:
// "<server> answered <verb> <what> with <status>: <message>" (the verb of
// the request that got it when Get marked one, else verb). ok is false
// when err carries no Status (no connection, a body that broke): its own
// words then say it. A note that quoted a 5xx's body
// alone read an HTML page or "etcdserver: leader changed" as the reason
// itself, without its status nor its request (fresh user try 26 F7).
func AnswerWords(server, verb, what string, err error) (string, bool) {
	w, ok := StatusWords(err)
	if !ok {
		return "", false
	}
	if v := AnsweredVerb(err); v != "" {
		verb = v
	}
	return fmt.Sprintf("%s answered %s %s with %s", server, verb, what, w), true
}

// StatusWords is an answer as AnswerWords says it after "with": its
// status, message and, for a 429, who sent it ("429 Too Many Requests:
// busy (not marked as API Priority and Fairness's rejection)"); false for
// a failure with no answer.
func StatusWords(err error) (string, bool) {
	st, ok := diagnose.StatusOf(err)
	if !ok {
		return "", false
	}
	words := text.OneLine(err.Error())
	if strings.TrimSpace(words) == "" {
		words = "no message"
	}
	return diagnose.StatusAnswer(st, words) + throttledWords(st, err), true
}

// FailureWords is how a note or a warning says a request's failure:
// AnswerWords of "the API server" for an answer, the error's own words
// on one line otherwise.
func FailureWords(verb, what string, err error) string {
	if w, ok := AnswerWords("the API server", verb, what, err); ok {
		return w
	}
	return text.OneLine(err.Error())
}
