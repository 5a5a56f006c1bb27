package render

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// A TLS failure's hint says what failed, as crypto/tls wraps it (fresh
// user try 35 F5, adversary try 36 F5).
func TestTLSHintSaysWhatFailed(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("Get \"https://127.0.0.1:1/api\": %w", &tls.CertificateVerificationError{Err: err})
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{wrap(x509.UnknownAuthorityError{}), "signed by an authority that the certificate-authority in use (the kubeconfig's, or --certificate-authority) does not hold"},
		{wrap(x509.HostnameError{Host: "127.0.0.1"}), "does not name \"127.0.0.1\", the name it is verified against"},
		{wrap(x509.CertificateInvalidError{Reason: x509.Expired}), "outside its validity dates"},
	} {
		if got := TLSHint(c.err); !strings.Contains(got, c.want) {
			t.Errorf("%v: hint %q, want %q", c.err, got, c.want)
		}
	}
}

// A connection Go words alone has the fix of what failed, in every row
// and line (ConnectionFix, TLSHint, UnreachableFix, ProxyFix): the URL's
// scheme, not the certificate, for a scheme the server does not speak;
// the proxy's credentials for its 407, its way to the server for its 502
// (adversary try 44).
func TestAConnectionsFixIsWhatFailed(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("GET /api: %w", err) }
	for _, c := range []struct {
		err        error
		want, not  string
		connection bool
	}{
		{wrap(&apiclient.SchemeMismatchError{ServerSpeaksTLS: true}), "write https:// in the kubeconfig's server", "certificate-authority", true},
		{wrap(&apiclient.SchemeMismatchError{}), "write http:// in the kubeconfig's server", "certificate-authority", true},
		{wrap(&apiclient.ProxyRefusedError{Proxy: "http://127.0.0.1:1", Code: 407, Status: "Proxy Authentication Required"}), "user name and password in proxy-url", "the server's address was not dialled", true},
		{wrap(&apiclient.ProxyRefusedError{Proxy: "http://127.0.0.1:1", Code: 502, Status: "Bad Gateway"}), "can reach the server's address", "the server's address was not dialled", true},
		{wrap(errors.New("boom")), "", "", false},
	} {
		got := ConnectionFix(c.err)
		if !c.connection {
			if got != "" {
				t.Errorf("%v: fix %q, want none", c.err, got)
			}
			continue
		}
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%v: fix %q, want %q and not %q", c.err, got, c.want, c.not)
		}
		reason := string(diagnose.ClassifyFailure(c.err))
		if hint := failureHint(reason, c.err); hint != got {
			t.Errorf("%v: row hint %q, line fix %q: one fix", c.err, hint, got)
		}
	}
}
