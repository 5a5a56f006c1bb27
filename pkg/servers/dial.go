package servers

import (
	"errors"
	"fmt"
	"net/url"
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
	if u.Scheme == "http" {
		c.Host = "http://" + addr
	} else {
		c.Host = "https://" + addr
	}
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
