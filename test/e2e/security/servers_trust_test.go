//go:build e2e

package security

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// rogueAddr is the address a planted EndpointSlice lists: a documentation
// range (EndpointSlice validation refuses loopback), reached only through
// the test's CONNECT proxy, which maps it to the recorder on 127.0.0.77.
const rogueAddr = "198.51.100.77:6443"

// tlsRecorder is an HTTPS server on its own loopback address that records
// every request and its Authorization header: what a rogue address listed
// in the EndpointSlices would get.
type tlsRecorder struct {
	addr string
	mu   sync.Mutex
	auth []string
	n    int
}

func newTLSRecorder(t *testing.T) *tlsRecorder {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.77:0")
	if err != nil {
		t.Fatalf("listening on 127.0.0.77 (loopback): %v", err)
	}
	r := &tlsRecorder{addr: l.Addr().String()}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.n++
		if a := req.Header.Get("Authorization"); a != "" {
			r.auth = append(r.auth, a)
		}
		r.mu.Unlock()
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}`, http.StatusNotFound)
	}))
	srv.Listener = l
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return r
}

func (r *tlsRecorder) seen() (requests int, auth []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, append([]string(nil), r.auth...)
}

// E28 (issue 25): with insecure-skip-tls-verify, `--servers` sent the
// bearer token to any address the `default/kubernetes` EndpointSlices
// list. A slice planted (with the admin client: the plugin writes nothing)
// lists the recorder; no run of --servers may send it a request, and each
// says why in one line, with what to type (exit 2). Controls: the recorder
// does get the token when the user names it with --endpoints, so it would
// have caught a leak; and with TLS verified, the listed address fails the
// handshake before any request reaches it.
func TestServersNeverSendCredentialsToAnUnverifiedListedAddress(t *testing.T) {
	a := shared.APIServers[0]
	apiHost := strings.TrimPrefix(a.URL, "https://")
	rec := newTLSRecorder(t)
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxy := framework.StartConnectProxy(pl, func(target string) (string, bool) {
		switch target {
		case rogueAddr:
			return rec.addr, true
		case apiHost:
			return apiHost, true
		}
		return "", false
	})
	t.Cleanup(func() { proxy.Close() })

	cs, err := shared.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "watchrv-planted", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{strings.Split(rogueAddr, ":")[0]}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](6443)}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("default").Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatalf("planting the EndpointSlice: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.DiscoveryV1().EndpointSlices("default").Delete(context.Background(), slice.Name, metav1.DeleteOptions{})
	})
	_, ns := newNamespace(t, shared, "trust")

	write := func(name, tls string) string {
		p := filepath.Join(t.TempDir(), name)
		content := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + a.URL + "\n" + tls +
			"    proxy-url: http://" + proxy.Addr() + "\nusers:\n- name: u\n  user:\n    token: " + framework.AdminToken +
			"\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: " + ns + "}\ncurrent-context: c\n"
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	insecure := write("insecure.kubeconfig", "    insecure-skip-tls-verify: true\n")
	verified := write("verified.kubeconfig", "    certificate-authority: "+a.CAFile+"\n")

	runs := [][]string{
		{"list", "configmaps", "--servers"},
		{"probe", "configmaps", "--servers"},
		{"explain-error", "--check", "--servers", "Timeout: Too large resource version: 99999999, current: 12"},
	}
	for _, args := range runs {
		t.Run("insecure/"+args[0], func(t *testing.T) {
			before, _ := rec.seen()
			r := framework.Run(t, insecure, time.Minute, append(args, "--request-timeout", "5s")...)
			after, auth := rec.seen()
			if after != before || len(auth) > 0 {
				t.Fatalf("the listed address got %d request(s), credentials %q", after-before, auth)
			}
			line := strings.TrimSpace(r.Stderr)
			if r.Code != 2 || strings.Count(line, "\n") != 0 || !strings.Contains(line, "insecure-skip-tls-verify") || !strings.Contains(line, "--endpoints "+rogueAddr) {
				t.Fatalf("exit %d, want 2 and one line saying why and what to type: %s", r.Code, r.Stderr)
			}
			t.Logf("exit %d: %s", r.Code, line)
		})
	}
	t.Run("verified TLS", func(t *testing.T) {
		before, _ := rec.seen()
		r := framework.Run(t, verified, time.Minute, "list", "configmaps", "--servers", "--request-timeout", "5s")
		if after, auth := rec.seen(); after != before || len(auth) > 0 {
			t.Fatalf("the listed address got %d request(s) over verified TLS: %q", after-before, auth)
		}
		if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, rogueAddr) {
			t.Fatalf("exit %d: the listed address should be a failed row: %s%s", r.Code, r.Stdout, r.Stderr)
		}
		t.Logf("exit %d: %s", r.Code, strings.TrimSpace(r.Stderr))
	})
	t.Run("asked by --endpoints", func(t *testing.T) {
		framework.Run(t, insecure, time.Minute, "list", "configmaps", "--endpoints", rogueAddr, "--request-timeout", "5s")
		if _, auth := rec.seen(); len(auth) == 0 || auth[0] != "Bearer "+framework.AdminToken {
			t.Fatalf("the recorder did not get the token it was given by hand (%q): it could not catch a leak", auth)
		}
	})
	if refused := proxy.Refused(); len(refused) > 0 {
		t.Errorf("the plugin tried to reach %v", refused)
	}
}
