package render

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"
	"testing"
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
