package diagnose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestClassifyFailure(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	tooLarge := apierrors.NewTimeoutError("Too large resource version: 999, current: 215", 1)
	tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	cases := []struct {
		err  error
		want Failure
	}{
		{nil, FailureNone},
		{apierrors.NewResourceExpired("too old resource version: 2 (211)"), FailureExpired},
		{apierrors.NewGone("gone"), FailureExpired},
		{tooLarge, FailureTooLarge},
		{apierrors.NewUnauthorized("Unauthorized"), FailureUnauthorized},
		{apierrors.NewForbidden(gr, "", errors.New("nope")), FailureForbidden},
		{apierrors.NewTooManyRequests("slow down", 1), FailureThrottled},
		{apierrors.NewNotFound(gr, "x"), FailureNotFound},
		{apierrors.NewInternalError(errors.New("boom")), FailureServer},
		{apierrors.NewGenericServerResponse(http.StatusBadGateway, "get", gr, "", "", 0, false), FailureServer},
		{errors.New(`Get "https://127.0.0.1:1/api": dial tcp 127.0.0.1:1: connect: connection refused`), FailureUnreachable},
		{errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), FailureTLS},
		// One classifier for everyone: a client-side deadline is "no answer"
		// (exit 4, retried by --follow), never a server timeout nor a stall.
		{fmt.Errorf("list: %w", context.DeadlineExceeded), FailureNoAnswer},
		{&url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: io.ErrUnexpectedEOF}, FailureConnectionBroken},
		{apierrors.NewBadRequest(`unable to parse requirement: found '=', expected: identifier`), FailureBadRequest},
		{apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "a", nil), FailureBadRequest},
	}
	for _, c := range cases {
		if got := ClassifyFailure(c.err); got != c.want {
			t.Errorf("ClassifyFailure(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

// Credentials are a failure of the kubeconfig only when the transport
// said so before anything was sent; a server's answer that quotes the same
// words (a 403, a 500, an ERROR event's Status, wrapped or not) keeps its
// own class (adversary round 6: every command gave exit 2 for them).
func TestCredentialsAreNeverReadFromAServersWords(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	for _, words := range []string{"getting credentials: exec: executable boom failed", `net/http: invalid header field value for "Authorization"`} {
		local := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: errors.New(words)}
		if got := ClassifyFailure(fmt.Errorf("list: %w", local)); got != FailureCredentials {
			t.Errorf("the transport's %q: %s, want Credentials", words, got)
		}
		for _, served := range []struct {
			err  error
			want Failure
		}{
			{apierrors.NewForbidden(gr, "", errors.New(words)), FailureForbidden},
			{apierrors.NewInternalError(errors.New(words)), FailureServer},
			{fmt.Errorf("the watch ended with an ERROR event: %w", apierrors.NewInternalError(errors.New(words))), FailureServer},
			{&url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: apierrors.NewUnauthorized(words)}, FailureUnauthorized},
			{errors.New("ERROR event 500: " + words), FailureOther},
		} {
			if got := ClassifyFailure(served.err); got != served.want {
				t.Errorf("a server's answer quoting %q (%v): %s, want %s", words, served.err, got, served.want)
			}
		}
	}
}

// StatusText names every answer's status, whatever the Status holds.
func TestStatusTextNamesEveryStatus(t *testing.T) {
	for _, c := range []struct {
		st   metav1.Status
		want string
	}{
		{metav1.Status{Code: 500, Reason: metav1.StatusReasonInternalError}, "500 InternalError"},
		{metav1.Status{Code: 503}, "503 Service Unavailable"},
		{metav1.Status{Code: 599}, "599"},
		{metav1.Status{Code: 0}, "a Status without a code"},
		{metav1.Status{Code: 0, Reason: "Conflict"}, "a Status of reason Conflict and no code"},
		{metav1.Status{Code: 500, Reason: "Bad\x1b[2J\nReason"}, "500 Bad\x1b[2J Reason"},
	} {
		if got := StatusText(c.st); got != c.want {
			t.Errorf("StatusText(%+v) = %q, want %q", c.st, got, c.want)
		}
	}
}
