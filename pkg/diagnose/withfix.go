package diagnose

import (
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// WithFix returns err with the fix for its resourceVersion error after it,
// as one line "Reason: message: fix": the server's message keeps its words,
// loses its closing period (no "too old.: Do"), and gets the Status reason
// in front when it does not start with one ("Expired: The resourceVersion
// for the provided list is too old: ..."; a TooLarge already reads
// "Timeout: Too large ..."). It unwraps to err, so exit codes still read it.
// Without a fix it is err.
func WithFix(err error) error {
	d := FromError(err, Context{})
	if err == nil || d.Fix == "" {
		return err
	}
	msg := Prefixed(string(apierrors.ReasonForError(err)), strings.TrimRight(err.Error(), ". "))
	return &fixedError{err: err, text: msg + ": " + d.Fix}
}

type fixedError struct {
	err  error
	text string
}

func (e *fixedError) Error() string { return e.text }
func (e *fixedError) Unwrap() error { return e.err }
