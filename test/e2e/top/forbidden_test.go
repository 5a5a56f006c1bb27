//go:build e2e

package top

import (
	"net"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopForbiddenMetrics: a user who may read configmaps but not
// /metrics gets exit 7 and the grant top needs, named.
func TestTopForbiddenMetrics(t *testing.T) {
	cs, ns := framework.Namespace(t, shared, "top-viewer")
	framework.GrantConfigMapReading(t, cs, ns, "nobody")
	res := framework.Run(t, shared.UserKubeconfig, time.Minute, "top", "--once", "--interval", "1s")
	if res.Code != 7 || !strings.Contains(res.Stderr, `nonResourceURLs ["/metrics"], verbs ["get"]`) || strings.Contains(res.Stdout, " 0 ") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant 7 naming the grant, and no zeros", res.Code, res.Stdout, res.Stderr)
	}
}

// TestTopPartial: with one server unreachable, the other's rows are shown,
// the unreachable one is a line with its reason, and the run exits 12.
func TestTopPartial(t *testing.T) {
	u, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	res := framework.Run(t, shared.Kubeconfig, time.Minute, "top", "--interval", "1s", "--endpoints", u.Host+","+dead)
	if res.Code != 12 || !strings.Contains(res.Stdout, "server 2 "+dead+": not read: Unreachable") || !strings.Contains(res.Stdout, "configmaps") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant 12, server 2 unreachable, server 1's rows", res.Code, res.Stdout, res.Stderr)
	}
	r, _ := framework.RunTopJSON(t, shared.Kubeconfig, "--interval", "1s", "--endpoints", u.Host+","+dead)
	if len(r.Servers) != 2 || !r.Servers[0].Answered() || r.Servers[1].Reason != "Unreachable" || r.Imbalance == nil || len(r.Imbalance.Watchers.Unknown) != 1 {
		t.Errorf("servers %+v, imbalance %+v", r.Servers, r.Imbalance)
	}
	// A spread not judged (one server measured) is a note, not a callout.
	for _, c := range r.Callouts {
		if strings.HasSuffix(c.Kind, "-imbalance") || strings.Contains(c.What, "not judged") {
			t.Errorf("callout of a spread not judged: %+v", c)
		}
	}
	if r.Imbalance.Watchers.Judged || r.Imbalance.Lists.Judged {
		t.Errorf("imbalance judged over one server: %+v", r.Imbalance)
	}
	// A server that fails TLS: its request named short, its fix given, and
	// the partial-failure line points where top names it (no NOTE column).
	untrusted, stop := framework.StartUntrustedTLS()
	defer stop()
	tls := framework.Run(t, shared.Kubeconfig, time.Minute, "top", "--interval", "1s", "--endpoints", u.Host+","+untrusted)
	line := ""
	for _, l := range strings.Split(tls.Stdout, "\n") {
		if strings.HasPrefix(l, "server 2 ") {
			line = l
		}
	}
	if tls.Code != 12 || !regexp.MustCompile(`not read: TLS: GET /metrics \(\d+ families\): `).MatchString(line) || !strings.Contains(line, "fix: the server's certificate is signed by an authority that the certificate-authority in use") ||
		strings.Contains(tls.Stdout+tls.Stderr, "name%5B%5D") || len(line) > 600 {
		t.Errorf("exit %d (want 12); server 2's line (%d characters): %s\nstdout: %s\nstderr: %s", tls.Code, len(line), line, tls.Stdout, tls.Stderr)
	}
	if strings.Contains(tls.Stderr, "NOTE column") || !strings.Contains(tls.Stderr, "not read\" lines above the table") {
		t.Errorf("stderr points to what top does not print: %s", tls.Stderr)
	}
	if strings.Contains(tls.Stdout, "1. watchers across servers") {
		t.Errorf("a spread not judged as the top problem:\n%s", tls.Stdout)
	}
}
