package servers

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// DefaultRequestTimeout bounds each request to one server when the
// kubeconfig flags set no --request-timeout: a server whose etcd link hangs
// answers a consistent list only at its own 60 s timeout, and one stuck
// server must not hold the whole view.
const DefaultRequestTimeout = 10 * time.Second

// ConfigFor is cfg pointed at one server, https://addr, with everything
// else kept: credentials, proxy-url (rest.CopyConfig keeps Proxy), the CA,
// the User-Agent. TLS is still verified, against the name of the
// kubeconfig's server: that is the name the serving certificate was issued
// for, not the server's own address. Insecure stays as the kubeconfig set it.
func ConfigFor(cfg *rest.Config, addr string) (*rest.Config, error) {
	c := rest.CopyConfig(cfg)
	u, err := url.Parse(cfg.Host)
	if err != nil || u.Host == "" {
		// rest.Config allows a bare host:port.
		u, err = url.Parse("https://" + cfg.Host)
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL, password included
		}
		return nil, fmt.Errorf("cannot parse the kubeconfig's server %q: %w", text.RedactURL(cfg.Host), err)
	}
	scheme := "https"
	if u.Scheme == "http" {
		scheme = "http"
	}
	// Built from its parts, once (an IPv6 zone escaped as a URL writes
	// it), and read back: client-go reads again a host it cannot parse
	// with a scheme put before it, and quotes it so, in net/url's words
	// ("https://https://...": adversary try 19).
	host := (&url.URL{Scheme: scheme, Host: addr}).String()
	if hu, err := url.Parse(host); err != nil || hu.Host != addr {
		return nil, fmt.Errorf("%q is not host:port of an IP address or a DNS name", text.Echo(addr))
	}
	c.Host = host
	c.APIPath = ""
	if c.TLSClientConfig.ServerName == "" && !c.TLSClientConfig.Insecure {
		if host := u.Hostname(); host != "" {
			c.TLSClientConfig.ServerName = host
		}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultRequestTimeout
	}
	return c, nil
}

// ClientFor builds the API client of one server.
func ClientFor(cfg *rest.Config, addr string) (*apiclient.Client, error) {
	c, err := ConfigFor(cfg, addr)
	if err != nil {
		return nil, err
	}
	return apiclient.NewClient(c)
}

// UnverifiedError: the servers were found in the cluster's EndpointSlices,
// and the kubeconfig does not verify who answers at an address: its
// credentials would go to any address listed there, one that is no API
// server of the cluster included (anyone who can write an EndpointSlice in
// default can list one). Only the addresses the user gives by hand, and
// the kubeconfig's own server, are dialled then.
type UnverifiedError struct {
	// Listed are the addresses of the EndpointSlices that would get the
	// credentials (the kubeconfig's own server left out), in order.
	Listed []string
	// Why names what turns verification off: "insecure-skip-tls-verify",
	// or "plain http" for an http:// server.
	Why string
}

func (e *UnverifiedError) Error() string {
	return fmt.Sprintf("the kubeconfig does not verify the API server's identity (%s), so its credentials would go to whatever answers at the addresses the cluster lists (%s)", e.Why, listed(e.Listed))
}

func listed(addrs []string) string {
	const shown = 5
	if len(addrs) <= shown {
		return strings.Join(addrs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(addrs[:shown], ", "), len(addrs)-shown)
}

// CheckDialable is the one rule of where the kubeconfig's credentials may
// go in a per-server run. With TLS verified (the kubeconfig's CA, against
// the name of its server: ConfigFor), any address the EndpointSlices list:
// one that is not an API server of the cluster fails the handshake before
// a request, credentials and all, is sent. Without it (insecure-skip-tls-
// verify, or an http:// server), only the addresses given by hand and the
// kubeconfig's own server: an UnverifiedError names the others.
func CheckDialable(cfg *rest.Config, found Found) error {
	if found.From != FromEndpointSlice {
		return nil
	}
	why := ""
	switch {
	case cfg.TLSClientConfig.Insecure:
		why = "insecure-skip-tls-verify"
	case hostURL(cfg.Host).Scheme == "http":
		why = "plain http"
	default:
		return nil
	}
	own := ownAddress(cfg.Host)
	var others []string
	for _, e := range found.Endpoints {
		if e != own {
			others = append(others, e)
		}
	}
	if len(others) == 0 {
		return nil
	}
	return &UnverifiedError{Listed: others, Why: why}
}

// hostURL parses the kubeconfig's server, a bare host:port too.
func hostURL(host string) *url.URL {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		if u2, err2 := url.Parse("https://" + host); err2 == nil {
			return u2
		}
		return &url.URL{}
	}
	return u
}

// ownAddress is the kubeconfig's server as host:port (the scheme's port
// when it names none).
func ownAddress(host string) string {
	u := hostURL(host)
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
