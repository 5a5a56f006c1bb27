package diagnose

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Failure names why a request failed, in the terms an operator acts on. It
// is the one classifier of transport and HTTP failures: exit codes, retry
// decisions and FromError all read it.
type Failure string

// Failure kinds.
const (
	FailureNone         Failure = ""
	FailureUnreachable  Failure = "Unreachable"
	FailureTLS          Failure = "TLS"
	FailureUnauthorized Failure = "Unauthorized"
	FailureForbidden    Failure = "Forbidden"
	FailureThrottled    Failure = "Throttled"
	FailureNotFound     Failure = "NotFound"
	FailureExpired      Failure = "Expired"
	FailureTooLarge     Failure = "TooLarge"
	// FailureTimeout is the server's own 504 Timeout (not a TooLarge).
	FailureTimeout Failure = "Timeout"
	// FailureNoAnswer: the client stopped waiting (--request-timeout, a
	// deadline, a stalled stream): the server may be up but did not answer.
	FailureNoAnswer Failure = "NoAnswer"
	// FailureConnectionBroken: an open connection or stream broke (reset,
	// unexpected EOF): the request may be repeated.
	FailureConnectionBroken Failure = "ConnectionBroken"
	// FailureBadRequest: 400 or 422, the request itself is wrong (a bad
	// selector, invalid parameters): repeating it cannot help.
	FailureBadRequest Failure = "BadRequest"
	FailureServer     Failure = "ServerError"
	// FailureUnbounded: the answer broke one of the plugin's bounds (a
	// body past the limit of its kind, a paged list that never ends):
	// what sent it is broken or hostile, and repeating it cannot help.
	FailureUnbounded Failure = "Unbounded"
	// FailureCredentials: the kubeconfig's credentials could not be used
	// before anything was sent: its exec plugin failed, or it gave a
	// token no HTTP header can carry (a control byte). Repeating cannot
	// help; the kubeconfig must change.
	FailureCredentials Failure = "Credentials"
	FailureOther       Failure = "Other"
)

// Classified is an error of the plugin's own that knows its class: one
// that no HTTP status or transport error carries (a watch the server ended
// at once, again and again, from an RV ahead of it). ClassifyFailure asks
// it first.
type Classified interface {
	error
	FailureClass() Failure
}

// ClassifyFailure sorts a request error. Expired covers 410 with reason
// Expired and the pre-1.18 reason Gone, as client-go's Reflector does.
func ClassifyFailure(err error) Failure {
	if err == nil {
		return FailureNone
	}
	var own Classified
	if errors.As(err, &own) {
		return own.FailureClass()
	}
	if IsUnbounded(err) {
		return FailureUnbounded
	}
	if IsUnreadableAnswer(err) {
		// An answer came (a client-go *url.Error may carry it, which
		// would read as no connection): the failure is what it said.
		return FailureOther
	}
	if isLocalCredentialFailure(err) {
		return FailureCredentials
	}
	if IsTooLarge(err) {
		return FailureTooLarge
	}
	// An answer is classified by its HTTP status (its Status's code,
	// which the transport sets to it), the reason second: a 401 or 403
	// whose Status says "InternalError" (a proxy's, an aggregated
	// server's) is still a 401 or a 403 (adversary try 16: exit 1).
	var coded apierrors.APIStatus
	if errors.As(err, &coded) {
		switch coded.Status().Code {
		case 401:
			return FailureUnauthorized
		case 403:
			return FailureForbidden
		case 404:
			return FailureNotFound
		case 410:
			return FailureExpired
		case 429:
			return FailureThrottled
		case 400, 422:
			return FailureBadRequest
		case 504:
			return FailureTimeout // a TooLarge 504 is told above, by its cause
		}
		if code := coded.Status().Code; code >= 500 {
			// A server's failure, whatever its Status's reason says (a
			// 500 or a 504 whose body says Unauthorized is no bad
			// credential; adversary tries 17 and 18).
			return FailureServer
		} else if code >= 400 {
			return FailureOther // a 409, 405, ...: never another code's class by its reason
		}
	}
	switch {
	case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
		return FailureExpired
	case apierrors.IsUnauthorized(err):
		return FailureUnauthorized
	case apierrors.IsForbidden(err):
		return FailureForbidden
	case apierrors.IsTooManyRequests(err):
		return FailureThrottled
	case apierrors.IsNotFound(err):
		return FailureNotFound
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return FailureTimeout
	case apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err):
		return FailureServer
	case apierrors.IsBadRequest(err) || apierrors.IsInvalid(err):
		return FailureBadRequest
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if status.Status().Code >= 500 {
			return FailureServer
		}
		return FailureOther
	}
	if isTLSError(err) {
		return FailureTLS
	}
	if isNoAnswer(err) {
		return FailureNoAnswer
	}
	if isBroken(err) {
		return FailureConnectionBroken
	}
	if isNetworkError(err) {
		return FailureUnreachable
	}
	return FailureOther
}

// Retryable reports the failures a Reflector keeps retrying through: the
// server or the network may recover. Everything else (401, 403, 404, 400,
// TLS) stays wrong however often it is repeated.
func (f Failure) Retryable() bool {
	switch f {
	case FailureUnreachable, FailureServer, FailureTimeout, FailureNoAnswer, FailureConnectionBroken, FailureThrottled:
		return true
	}
	return false
}

// isNoAnswer: the client gave up waiting. A *url.Error or net.Error that says
// Timeout, a context deadline, or any error with Timeout() true (a stalled
// watch) counts; a dial timeout is a timeout too (nothing answered).
func isNoAnswer(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout() || strings.Contains(err.Error(), "Client.Timeout exceeded") ||
		strings.Contains(err.Error(), "i/o timeout")
}

// isBroken: a connection that was open broke.
func isBroken(err error) bool {
	// "http2: client connection lost": the HTTP/2 health check (a ping
	// unanswered for 15 s after 30 s of silence) closed a connection whose
	// body had stalled mid-way.
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(err.Error(), "unexpected EOF") || strings.Contains(err.Error(), "connection reset by peer") ||
		strings.Contains(err.Error(), "client connection lost")
}

// IsUnbounded reports an error that says it broke one of the plugin's
// bounds (apiclient.BodyTooLargeError, listing's endless-walk errors):
// each has a method Unbounded() bool.
func IsUnbounded(err error) bool {
	var u interface{ Unbounded() bool }
	return errors.As(err, &u) && u.Unbounded()
}

// IsTooLarge reports a 504 whose cause is ResourceVersionTooLarge, or the
// message-only form older servers send: the failure of exit 10 and of a
// relist.
func IsTooLarge(err error) bool {
	st, ok := StatusOf(err)
	if ok && st.Code != 0 && !fitsCode(KindResourceVersionTooLarge, int(st.Code)) {
		// The HTTP status wins (kindcode.go): a 500 carrying the cause is
		// a server error, as its diagnosis says (adversary try 25 F3),
		// and a 429 is a 429 whatever its body's reason or code say (the
		// cacher's lagging 429 among them: a wait, exit 8), not exit 10
		// for the bodies that said Timeout or 504 and exit 8 for those
		// that said TooManyRequests (adversary try 26 F2).
		return false
	}
	if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		return true
	}
	// A 504 by its HTTP status, whatever its reason (adversary try 28 F6:
	// reason TooManyRequests in a 504 made it exit 1 beside a TooLarge row).
	return (apierrors.IsTimeout(err) || ok && st.Code == 504) && MentionsTooLarge(err.Error())
}

// IsStreamReset reports an HTTP/2 stream the server reset with
// INTERNAL_ERROR: the request's timeout= parameter ran out on the server
// side first (seen on v1.37.2 with a server cut off from etcd).
func IsStreamReset(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	// net/http's words, or the plugin's (apiclient.ConnectionLostError).
	return strings.Contains(msg, "stream error") && strings.Contains(msg, "INTERNAL_ERROR") || strings.Contains(msg, "RST_STREAM INTERNAL_ERROR")
}

// IsWatchListRefused reports the 422 of a server that does not serve
// streaming lists (its WatchList feature gate is off): the request is
// fine, the server lacks the feature.
func IsWatchListRefused(err error) bool {
	return err != nil && strings.Contains(err.Error(), phraseWatchListOff)
}

// MentionsTooLarge reports a server message holding the TooLarge phrase
// ("Too large resource version: N, current: M"), the only sign of it in a
// Status without causes.
func MentionsTooLarge(message string) bool {
	return strings.Contains(message, phraseTooLarge)
}

func isTLSError(err error) bool {
	var ua x509.UnknownAuthorityError
	var ci x509.CertificateInvalidError
	var hn x509.HostnameError
	var rh tls.RecordHeaderError
	var cv *tls.CertificateVerificationError
	if errors.As(err, &ua) || errors.As(err, &ci) || errors.As(err, &hn) || errors.As(err, &rh) || errors.As(err, &cv) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "x509:") || strings.Contains(s, "tls:")
}

func isNetworkError(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	if errors.As(err, &dns) || errors.As(err, &op) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "no such host")
}

// StatusText is an answer's status as printed: "500 InternalError", or
// the HTTP text when the server gave no reason ("503 Service Unavailable").
func StatusText(st metav1.Status) string {
	if st.Code == 0 {
		// A Status without its code (a proxy's, a fake's): the HTTP
		// status is not kept by client-go then.
		if st.Reason != "" {
			return "a Status of reason " + text.OneLine(string(st.Reason)) + " and no code"
		}
		return "a Status without a code"
	}
	reason := ReasonWords(st.Code, string(st.Reason))
	if reason == "" || reason == string(metav1.StatusReasonUnknown) {
		reason = http.StatusText(int(st.Code))
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s", st.Code, text.OneLine(reason)))
}

// StatusAnswer is st (StatusText) with message, the server's words, on
// one line: "CODE Reason: message", the reason not said twice when the
// message begins with it (the API server's own Timeout messages do:
// "504 Timeout: request did not complete ...", never "504 Timeout:
// Timeout: ...").
func StatusAnswer(st metav1.Status, message string) string {
	head := StatusText(st)
	if st.Code != 0 && st.Reason != "" && HasPrefixWord(message, string(st.Reason)) {
		return StatusLine(st.Code, string(st.Reason), message)
	}
	return Prefixed(head, withoutClosingPeriod(strings.TrimSpace(message)))
}

// IsAnswer: err is an answer of the server, a Status with its HTTP code
// (an error answer whose body did not come is one, as apiclient reads it).
func IsAnswer(err error) bool {
	st, ok := StatusOf(err)
	return ok && st.Code != 0
}

// StatusOf returns the metav1.Status inside an API error, if there is one.
func StatusOf(err error) (metav1.Status, bool) {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status(), true
	}
	return metav1.Status{}, false
}

// isLocalCredentialFailure: the request was never sent because its
// credentials could not be made or carried. Read only from the transport's
// own error (*url.Error: no response came), never from a server's words: a
// 403 or an ERROR event whose message quotes "getting credentials: " is
// the server's answer, not the kubeconfig's failure.
func isLocalCredentialFailure(err error) bool {
	var ue *url.Error
	if !errors.As(err, &ue) || ue.Err == nil {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(ue.Err, &status) {
		return false
	}
	return IsCredentialPluginError(ue.Err) || IsUnsendableCredential(ue.Err)
}
