//go:build e2e

package informerlog

import (
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// proxied is the set-up of the tests that cut the informers off one API
// server: a cluster, a namespace holding configmaps a and b, and the
// informer pair watching it through a cutProxy.
type proxied struct {
	t     *testing.T
	c     *framework.Cluster
	cs    kubernetes.Interface
	ns    string
	w     framework.ConfigMapWriter
	proxy *cutProxy
	p     *informerPair
}

func startProxied(t *testing.T, o framework.APIServerOptions, namespace string) *proxied {
	t.Helper()
	c := framework.StartT(t, o)
	cs, ns := framework.Namespace(t, c, namespace)
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("a", nil)
	w.Create("b", nil)
	proxy := newCutProxy(t, strings.TrimPrefix(c.APIServers[0].URL, "https://"))
	kc, err := c.WriteKubeconfigFor("informer-via-proxy.kubeconfig", "https://"+proxy.addr, c.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	p := startInformers(t, kc, ns, artefactDir(t))
	return &proxied{t: t, c: c, cs: cs, ns: ns, w: w, proxy: proxy, p: p}
}

// cutOff changes a, waits until both informers saw it, then freezes them
// and cuts their connections: nothing they do afterwards can move their
// last synced RV. It returns a's new RV and each informer's last synced RV
// (by name): the X its rewatch will start from.
func (s *proxied) cutOff() (seen string, x map[string]string) {
	s.t.Helper()
	seen = s.w.Modify("a").ResourceVersion
	s.p.waitSeen("a", seen)
	s.p.pause()
	s.proxy.cut()
	x = map[string]string{}
	for _, in := range s.p.both() {
		x[in.Name] = lastSync(s.t, in)
	}
	return seen, x
}

// reconnect lets the informers reach the API server again and unfreezes them.
func (s *proxied) reconnect() {
	s.t.Helper()
	s.proxy.restore()
	s.p.resume()
}
