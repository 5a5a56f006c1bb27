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
// Without a fix it is err. ctx is what the request sent, as every
// diagnosis of an answer is given it (Context.Live, NoResourceVersionSent):
// the line's fix is then the same as the diagnosis printed above it, and
// an answer no API server gives says so (adversary try 29 F4).
func WithFix(err error, ctx Context) error {
	d := FromError(err, ctx)
	if err == nil || d.Fix == "" {
		return err
	}
	return &fixedError{err: err, text: Prefixed(string(apierrors.ReasonForError(err)), fixedText(err, d))}
}

// FixedMessage is WithFix's line without the reason in front: the
// server's message, why it cannot be an answer when so, and the fix,
// for a line that says the status itself ("... answered list configmaps
// with 410 Expired: <FixedMessage>"); err's own words without a fix.
func FixedMessage(err error, ctx Context) string {
	if err == nil {
		return ""
	}
	d := FromError(err, ctx)
	text := strings.TrimSpace(err.Error())
	if d.Fix != "" {
		text = fixedText(err, d)
	}
	// The line says the status ("504 Timeout"): a message that begins
	// with its reason ("Timeout: Too large ...") says it once.
	if r := string(apierrors.ReasonForError(err)); r != "" {
		text = strings.TrimPrefix(text, r+": ")
	}
	return text
}

func fixedText(err error, d Diagnosis) string {
	msg := strings.TrimRight(err.Error(), ". ")
	if d.Inconsistent != "" {
		msg += ": " + said(d, "its numbers are inconsistent", "it cannot be an API server's answer to this request") + " (" + d.Inconsistent + ")"
	}
	return msg + ": " + d.Fix
}

type fixedError struct {
	err  error
	text string
}

func (e *fixedError) Error() string { return e.text }
func (e *fixedError) Unwrap() error { return e.err }
