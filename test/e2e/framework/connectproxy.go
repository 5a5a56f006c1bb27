package framework

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// ConnectProxy is an HTTP CONNECT proxy for the tests. It is how clients
// reach addresses that must never be dialled directly here: the API servers'
// documentation-range advertise addresses (through a kubeconfig's proxy-url,
// as users reach private servers through a bastion) and the aggregator's
// Service addresses (through kube-apiserver's egress selector, the way
// konnectivity works). Route maps the requested host:port to a loopback
// host:port; a target it does not know is refused and recorded, so a test can
// fail on any attempt to leave loopback.
type ConnectProxy struct {
	ln    net.Listener
	route func(hostport string) (string, bool)

	mu      sync.Mutex
	seen    []string // every CONNECT target, in order
	refused []string // targets Route did not map
}

// StartConnectProxy serves CONNECT on ln (TCP or Unix) until Close.
func StartConnectProxy(ln net.Listener, route func(hostport string) (string, bool)) *ConnectProxy {
	p := &ConnectProxy{ln: ln, route: route}
	go p.serve()
	return p
}

// Addr is the listener's address (host:port, or the socket path).
func (p *ConnectProxy) Addr() string { return p.ln.Addr().String() }

// Seen returns every CONNECT target asked for so far.
func (p *ConnectProxy) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// Refused returns the targets that Route did not map.
func (p *ConnectProxy) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

// Close stops accepting; tunnels already open end with their peers.
func (p *ConnectProxy) Close() error { return p.ln.Close() }

func (p *ConnectProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *ConnectProxy) handle(c net.Conn) {
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		c.Close()
		return
	}
	target := req.Host
	if target == "" {
		target = req.URL.Host
	}
	p.mu.Lock()
	p.seen = append(p.seen, target)
	p.mu.Unlock()
	if req.Method != http.MethodConnect {
		fmt.Fprintf(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		c.Close()
		return
	}
	dest, ok := p.route(target)
	if !ok || !isLoopbackHostPort(dest) {
		p.mu.Lock()
		p.refused = append(p.refused, target)
		p.mu.Unlock()
		fmt.Fprintf(c, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
		c.Close()
		return
	}
	up, err := net.Dial("tcp", dest)
	if err != nil {
		fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		c.Close()
		return
	}
	fmt.Fprintf(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	splice(c, io.MultiReader(br, c), up)
}

// splice copies both ways until either side ends, then closes both.
func splice(a net.Conn, aReader io.Reader, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(b, aReader); done <- struct{}{} }()
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	<-done
	a.Close()
	b.Close()
	<-done
}

// isLoopbackHostPort reports whether hostport is a literal 127.0.0.0/8 or ::1
// address: the only kind of address a test may dial.
func isLoopbackHostPort(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeRefusingProxy serves, on loopback until t ends, an HTTP proxy that
// answers every CONNECT with code, as a proxy that cannot reach the
// target (502 Bad Gateway) or wants credentials it was not given (407
// Proxy Authentication Required, with its Proxy-Authenticate challenge)
// does: it dials nothing. It returns the proxy's http:// URL, as a
// kubeconfig's proxy-url names it.
func ServeRefusingProxy(t testing.TB, code int) string {
	t.Helper()
	challenge := ""
	if code == http.StatusProxyAuthRequired {
		challenge = "Proxy-Authenticate: Basic realm=\"proxy\"\r\n"
	}
	return "http://" + ServeRaw(t, fmt.Sprintf("HTTP/1.1 %d %s\r\n%sContent-Length: 0\r\nConnection: close\r\n\r\n", code, http.StatusText(code), challenge))
}

// ServeRaw answers every connection on loopback, until t ends, with
// answer as it is, after reading one request's head (a CONNECT to a
// proxy, a GET): for answers no real server or proxy sends whole. It
// returns the listener's host:port.
func ServeRaw(t testing.TB, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					fmt.Fprint(c, answer)
				}
			}()
		}
	}()
	return ln.Addr().String()
}
