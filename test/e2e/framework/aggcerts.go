package framework

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"time"
)

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
