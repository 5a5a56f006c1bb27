package apiclient

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// answeredError is a server's error answer (a Status) to one request Get
// sent, with what that request was: an error line says "answered list
// configmaps with 500 ..." of the request that got it, never of every
// request the command sends (fresh user try 25 F1: probe and watch
// --follow said "answered list and watch" of a 500 to one list, or to a
// watch after a list that was answered 200).
type answeredError struct {
	verb string
	err  error
}

func (e *answeredError) Error() string { return e.err.Error() }
func (e *answeredError) Unwrap() error { return e.err }

// answeredBy is err, a Status answer to a request of kind, marked with
// that request's verb; any other error as it is.
func answeredBy(kind BodyKind, err error) error {
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
	return &answeredError{verb: verb, err: err}
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
