package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// unusableServer is the one check of the server a run sends to, before any
// request: the URL client-go makes of the kubeconfig's server or --server
// (rest.DefaultServerUrlFor: a host:port alone gets https://, or http://
// without TLS settings, as kubectl's does) must be an http or https URL
// with a host. Another scheme was refused only by net/http, at the first
// request, in its words and as a failure of the run (adversary try 23 F8:
// `Get "ftp://127.0.0.1:18882/api?timeout=32s": unsupported protocol
// scheme "ftp"`, exit 1); a file:// or javascript: server was client-go's
// "host must be a URL or a host:port pair", no field named. Each is the
// kubeconfig's value: exit 2, the field and its fix named. No server at
// all is client-go's default, http://localhost (missingKubeconfig).
func (o *RootOptions) unusableServer(cfg *rest.Config) error {
	u, _, err := rest.DefaultServerUrlFor(cfg)
	web := err == nil && (u.Scheme == "https" || u.Scheme == "http")
	if web && u.Hostname() != "" && validPort(u.Port()) {
		return nil
	}
	why := "is no URL an API server is reached at (an https:// URL, or a host:port)"
	switch w, perr := url.Parse(cfg.Host); {
	case strings.IndexFunc(cfg.Host, unicode.IsControl) >= 0:
		why = "holds a control character (ESC, a newline, ...), which no URL may hold"
	case web && u.Hostname() == "", perr == nil && (w.Scheme == "http" || w.Scheme == "https") && w.Hostname() == "":
		// adversary try 24 F3: "http://" was "a URL of scheme http".
		why = "has no host: an API server is reached at a URL such as https://HOST:PORT"
	case web:
		// adversary try 24 F4: port 99999 reached net/http's dial.
		why = fmt.Sprintf("has port %s, which is no TCP port (1 to 65535)", strconv.Quote(text.Echo(u.Port())))
	case perr == nil && w.Scheme != "" && strings.Contains(cfg.Host, ":/"):
		// The scheme as written (client-go's own reading of file:///x
		// fails before it names one), where one was: "localhost:6443/x"
		// has none.
		why = fmt.Sprintf("is a URL of scheme %s, where an API server is reached at an https:// (or http://) URL", strconv.Quote(text.Echo(w.Scheme)))
	}
	field, fix := o.serverField()
	return withCode(ExitUsage, fmt.Errorf("cannot use the kubeconfig: the server (%s) %s %s: %s", field, strconv.Quote(text.Echo(text.RedactURL(cfg.Host))), why, fix))
}

// serverField names where the run's server comes from, and its fix:
// --server, or the server of the cluster the context (or --cluster)
// names.
func (o *RootOptions) serverField() (field, fix string) {
	f := o.ConfigFlags
	if f.APIServer != nil && *f.APIServer != "" {
		return "given with --server", "give --server an https:// URL, such as https://127.0.0.1:6443"
	}
	fix = "set it to the API server's https:// URL in the kubeconfig (kubectl config view), or give --server"
	raw, err := f.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return "server of the kubeconfig's cluster", fix
	}
	context := raw.CurrentContext
	if f.Context != nil && *f.Context != "" {
		context = *f.Context
	}
	cluster := ""
	if c := raw.Contexts[context]; c != nil {
		cluster = c.Cluster
	}
	if f.ClusterName != nil && *f.ClusterName != "" {
		cluster = *f.ClusterName
	}
	if cluster == "" {
		return "server of the kubeconfig's cluster", fix
	}
	return fmt.Sprintf("server of cluster %s", strconv.Quote(text.Echo(cluster))), fix
}

// validPort: no port (the scheme's), or a TCP port, 1 to 65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}
