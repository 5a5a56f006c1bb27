package framework

// The harness's certificates: every CA and certificate of the e2e clusters
// (a shared serving certificate for an HA control plane, the aggregated
// API's front-proxy and extension CAs, a CA that signed nothing for the TLS
// failure tests) is made here, ECDSA P-256, valid from an hour ago for a day.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// WriteServingCert writes a test CA and a serving certificate it signs, valid
// for every IP and DNS name given, into dir (ca.crt, serving.crt,
// serving.key). With one certificate for all the API servers of a control
// plane, a client verifies TLS whichever address it reached a server by.
func WriteServingCert(dir string, ips []net.IP, dnsNames []string) (*ServingCert, error) {
	ca, err := newCA("watchrv-e2e-ca")
	if err != nil {
		return nil, err
	}
	serving, err := newServingCert(ca, "kube-apiserver", dnsNames, ips)
	if err != nil {
		return nil, err
	}
	s := &ServingCert{
		CAFile:   filepath.Join(dir, "ca.crt"),
		CertFile: filepath.Join(dir, "serving.crt"),
		KeyFile:  filepath.Join(dir, "serving.key"),
	}
	files := map[string][]byte{s.CAFile: ca.certPEM, s.CertFile: serving.certPEM, s.KeyFile: serving.keyPEM}
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// WriteCA writes, at path, the certificate of a fresh CA named cn whose key
// is thrown away: a CA that signed nothing, for a client that must fail to
// verify a server.
func WriteCA(path, cn string) error {
	ca, err := newCA(cn)
	if err != nil {
		return err
	}
	return os.WriteFile(path, ca.certPEM, 0o600)
}

// certKey is one certificate with its key, parsed and in PEM.
type certKey struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
	keyPEM  []byte
}

// newCA makes a self-signed CA. The aggregated setup needs two: the
// front-proxy CA (--requestheader-client-ca-file), which the extension
// server trusts for the aggregator's client certificate, and the
// extension's serving CA (the APIService's caBundle). They must differ from
// the API server's own CA: a front-proxy CA lets its holder claim any user.
// An HA control plane's shared serving certificate has its own CA too.
func newCA(cn string) (*certKey, error) {
	return newCert(cn, nil, nil, nil, nil)
}

// newClientCert makes a client certificate signed by ca.
func newClientCert(ca *certKey, cn string) (*certKey, error) {
	return newCert(cn, ca, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, nil, nil)
}

// newServingCert makes a serving certificate signed by ca for the DNS
// names and IPs given.
func newServingCert(ca *certKey, cn string, dns []string, ips []net.IP) (*certKey, error) {
	return newCert(cn, ca, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, dns, ips)
}

func newCert(cn string, ca *certKey, usage []x509.ExtKeyUsage, dns []string, ips []net.IP) (*certKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  usage,
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	parent, signer := tmpl, key
	if ca == nil {
		tmpl.IsCA = true
		tmpl.BasicConstraintsValid = true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &certKey{
		cert:    cert,
		key:     key,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}
