package render

import (
	"crypto/x509"
	"errors"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"net/http"
)

// The hint of a failed server's row (Server.Hint): its fix in the
// plugin's words.

// withHints is the servers with each failed one's hint (Server.Hint), on
// copies: the view stays as measured.
func withHints(ss []*servers.Server, resource string) []*servers.Server {
	out := make([]*servers.Server, len(ss)) // [], never null, in JSON
	for i, s := range ss {
		c := *s
		c.Hint = serverHint(&c, resource)
		if apiclient.NoConnection(c.Err) {
			// Not even a connection: nothing of etcd is known. The
			// bound that ended it is the error's to name (the request's,
			// or the TLS handshake's, which no flag changes).
			c.Hint = "no connection in time (the TCP or TLS handshake did not complete): the server is down or overloaded, or the address is not an API server's; check it, or leave it out of --endpoints"
		}
		if servers.IsNotIP(c.Err) {
			c.Hint = NotIPFix
		}
		out[i] = &c
	}
	return out
}

// NotIPFix is the fix for an address of the EndpointSlices that is no IP
// address (servers.NotIPError).
const NotIPFix = "an API server's address there is an IP address: if the EndpointSlices of Service default/kubernetes are wrong, give the API servers with --endpoints HOST:PORT,..."

// serverHint is the fix for a server that failed (its Reason, and the
// read that failed: FailedRead), in the plugin's words (its flags
// included).
func serverHint(s *servers.Server, resource string) string {
	switch s.Reason {
	case servers.ReasonBudgetExhausted:
		return "raise --max-requests (it applies to each server)"
	case servers.ReasonOpaqueRV:
		return "this resource has no etcd revision to compare"
	case string(diagnose.FailureForbidden):
		return "needs RBAC permission to list and watch " + resource
	case string(diagnose.FailureNoAnswer):
		return noAnswerHint(s.FailedRead())
	case string(diagnose.FailureTimeout):
		// The server answered (504): it ended the request at its
		// timeout, the one the request was sent with (user try 22 #6:
		// "no answer" beside the server's own 504).
		return "the server answered that the request did not complete in time, at the timeout it was sent with: it may be cut off from etcd (a consistent list waits for etcd) or slow; raise --request-timeout to give it longer"
	}
	return failureHint(s.Reason, s.Err)
}

// failureHint is the fix of a row that failed for a reason every row's
// failure can have (a server of --servers, of explain-error --check's):
// the address, its certificate, the credentials, a 429's sender ("" for
// another reason). explain-error's rows had none (adversary try 41: a
// refused proxy's row without its fix).
func failureHint(reason string, err error) string {
	switch reason {
	case string(diagnose.FailureUnreachable):
		return UnreachableFix(err)
	case string(diagnose.FailureTLS):
		return TLSHint(err)
	case string(diagnose.FailureUnauthorized):
		return "the kubeconfig's credentials were rejected by this server"
	case string(diagnose.FailureThrottled):
		// Who sent it, as the error line says (adversary try 28 F2: the
		// watch cache's lag and APF's marked rejection had one hint).
		return ThrottledFix(err)
	}
	return ""
}

// ConnectionFix is the fix of err, a request to one server that got no
// connection to it (diagnose's Unreachable: the address, the proxy) or
// no TLS it could use (TLS: the certificate, the URL's scheme), by its
// class ("" for another): the one fix of every row, every one-endpoint
// line and the line of a run where no server could be measured.
func ConnectionFix(err error) string {
	switch diagnose.ClassifyFailure(err) {
	case diagnose.FailureUnreachable:
		return UnreachableFix(err)
	case diagnose.FailureTLS:
		return TLSHint(err)
	}
	return ""
}

// noAnswerHint is the fix for a server that gave no answer to read: what
// that read waits for, so that the hint says of the request that had no
// answer what the row shows (adversary try 22: "may be cut off from etcd"
// beside a row whose consistent list was answered).
func noAnswerHint(read servers.Read) string {
	const wait = "; raise --request-timeout to wait longer"
	switch read {
	case servers.ReadCache:
		return "no answer to its rv=0 list within the request timeout, though its consistent list (which waits for etcd) was answered: a watch cache answers an rv=0 list from memory, so the server is overloaded or its watch cache for the resource is not ready" + wait
	case servers.ReadWindow:
		return "no answer to a watch of its window search within the request timeout, though its consistent list (which waits for etcd) was answered: the server is overloaded, or API Priority and Fairness queues its watches" + wait
	case servers.ReadNeither:
		return "no answer to its consistent list nor to its rv=0 list (which a watch cache answers even cut off from etcd): the server is not serving, or overloaded; check it, or leave it out of --endpoints"
	}
	return "no answer within the request timeout: the server may be cut off from etcd (a consistent list waits for etcd)" + wait
}

// ThrottledFix is the fix of a row (one server of several: a
// --servers/--endpoints row, top's) that got err, a 429, by who sent it
// (diagnose.ThrottledBy), in the error line's words (adversary try 28 F2).
func ThrottledFix(err error) string {
	switch diagnose.ThrottledBy(err) {
	case diagnose.ThrottleCacheLag:
		return "the server answered 429 Too Many Requests: its watch cache lags storage (a consistent read it could not serve in time): retry after a while; if it persists, check the watch cache's and etcd's latency"
	case diagnose.ThrottleCacheLagMisfit:
		return "the server answered 429 Too Many Requests, " + diagnose.MisfitCacheLagWords + ": retry later, and check what answers at that address"
	case diagnose.ThrottleAPF:
		return "API Priority and Fairness is throttling (429 Too Many Requests with its X-Kubernetes-PF-* headers): lower --qps or retry later"
	}
	return "the server answered 429 Too Many Requests, not marked as API Priority and Fairness's rejection (the server's max-in-flight limit, or a proxy or a load balancer in front, may have sent it): lower --qps or retry later"
}

// ProxyFix is the fix of a request the kubeconfig's proxy refused or
// could not pass on: the proxy's, never the server address's, which the
// plugin does not dial itself. A proxy that answered CONNECT
// (apiclient.ProxyRefusedError) has the fix of its answer: credentials
// for a 407, the proxy's way to the server for the rest.
func ProxyFix(err error) string {
	if r := apiclient.ProxyRefused(err); r != nil {
		if r.Code == http.StatusProxyAuthRequired {
			return "give the proxy's user name and password in proxy-url of the kubeconfig's cluster (http://USER:PASSWORD@HOST:PORT)"
		}
		return "check that the proxy at proxy-url of the kubeconfig's cluster can reach the server's address (the proxy's rules, its network), or change proxy-url"
	}
	return "check proxy-url of the kubeconfig's cluster, and that the proxy is up"
}

// UnreachableFix is the fix of a server of several (a --servers or
// --endpoints row, top's) that could not be reached: the proxy's when the
// kubeconfig's proxy refused (adversary try 41 F3: "set proxy-url in the
// kubeconfig" beside the proxy-url that refused), else the address's.
// The one fix of every row and every one-endpoint line.
func UnreachableFix(err error) string {
	if apiclient.ProxyRefused(err) != nil {
		return "the kubeconfig's proxy opened no tunnel to this address: " + ProxyFix(err)
	}
	if apiclient.ViaProxy(err) {
		return "the kubeconfig's proxy could not be used (the server's address was not dialled): " + ProxyFix(err)
	}
	return "this address cannot be reached from here: if the servers sit on a private network, set proxy-url in the kubeconfig (a bastion), or give reachable addresses with --endpoints"
}

// TLSHint is the fix of a failed TLS handshake, by what failed: the one
// hint of every command's line and every server row (fresh user try 35
// F5: an unknown authority was told to check the certificate's name;
// adversary try 37 F3: one-server lines had another hint than the rows).
func TLSHint(err error) string {
	var unknown x509.UnknownAuthorityError
	var name x509.HostnameError
	var invalid x509.CertificateInvalidError
	if mm := apiclient.SchemeMismatch(err); mm != nil {
		// Not the certificate: the URL's scheme (adversary try 44 F1,
		// F2). --endpoints addresses are dialled with it too.
		if mm.ServerSpeaksTLS {
			return "this address speaks TLS: write https:// in the kubeconfig's server (or --server); --endpoints addresses are dialled with its scheme"
		}
		return "this address answers in plain HTTP, not TLS: check that it is this cluster's API server (which serves HTTPS); if it is one that serves plain HTTP, write http:// in the kubeconfig's server (or --server); --endpoints addresses are dialled with its scheme"
	}
	switch {
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		// adversary try 36 F5: an expired certificate was told to check
		// the certificate-authority.
		return "the server's certificate is outside its validity dates (expired, or not yet valid by this machine's clock): renew it, or check the clock"
	case errors.As(err, &unknown):
		return "the server's certificate is signed by an authority that the certificate-authority in use (the kubeconfig's, or --certificate-authority) does not hold; check that CA, or that the address is this cluster's API server"
	case errors.As(err, &name):
		// The name it was verified against: the kubeconfig's server, or
		// its tls-server-name when set (adversary try 37 F4).
		return fmt.Sprintf("the server's certificate does not name %q, the name it is verified against (the kubeconfig's server, or its tls-server-name when set); check that the address is this cluster's API server", name.Host)
	}
	return "check the certificate-authority of the kubeconfig, and that the address is this cluster's API server"
}
