package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Failure names why a request failed, in the terms an operator acts on.
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
	FailureTimeout      Failure = "Timeout"
	FailureServer       Failure = "ServerError"
	FailureOther        Failure = "Other"
)

// ClassifyFailure sorts a request error. Expired covers 410 with reason
// Expired and the pre-1.18 reason Gone, as client-go's Reflector does.
func ClassifyFailure(err error) Failure {
	if err == nil {
		return FailureNone
	}
	switch {
	case IsTooLarge(err):
		return FailureTooLarge
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
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if status.Status().Code >= 500 {
			return FailureServer
		}
		return FailureOther
	}
	var stalled *StalledError
	if errors.As(err, &stalled) {
		return FailureTimeout
	}
	if isTLSError(err) {
		return FailureTLS
	}
	if isNetworkError(err) {
		return FailureUnreachable
	}
	return FailureOther
}

// IsTooLarge reports a 504 whose cause is ResourceVersionTooLarge, or the
// message-only form older servers send.
func IsTooLarge(err error) bool {
	if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		return true
	}
	return apierrors.IsTimeout(err) && strings.Contains(err.Error(), "Too large resource version")
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
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	if errors.As(err, &dns) || errors.As(err, &op) {
		return true
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "no such host") ||
		strings.Contains(s, "Client.Timeout exceeded") || strings.Contains(s, "i/o timeout")
}

// StatusOf returns the metav1.Status inside an API error, if there is one.
func StatusOf(err error) (metav1.Status, bool) {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status(), true
	}
	return metav1.Status{}, false
}
