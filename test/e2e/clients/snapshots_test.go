//go:build e2e

package clients

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestClientsSnapshotReadsAreNotKnown is why clients says "not known" of
// exact-RV lists and continued pages from v1.34 (ListFromCacheSnapshot):
// on a real v1.36.3 the same exact list and the same continue token are
// served by the watch cache's snapshot at once, and by etcd once the
// cache's window has moved past their RV (80 s, then 150 writes: the cache
// drops its oldest events, and the snapshots below them, rather than
// grow). The server's list counters of podtemplates say which; the audit
// log has the two alike, and clients counts all four as not known.
func TestClientsSnapshotReadsAreNotKnown(t *testing.T) {
	c := framework.StartCell(t, "v1.36/etcd/cache-on")
	a := c.APIServers[0]
	h := newRawClient(t, a.URL, a.CAFile)
	cs, ns := framework.Namespace(t, c, "snapshots")
	create := func(name string) {
		t.Helper()
		if _, err := cs.CoreV1().PodTemplates(ns).Create(context.Background(), &corev1.PodTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "none"}}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		create("pt-" + strconv.Itoa(i))
	}
	path := "/api/v1/namespaces/" + ns + "/podtemplates"
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
			Continue        string `json:"continue"`
		} `json:"metadata"`
	}
	// N: the watch cache's own RV (an rv=0 list's); the token: of a
	// consistent first page of one item.
	if status, body := h.fetch(path+"?resourceVersion=0", "watchrv-e2e-setup"); !strings.HasPrefix(status, "200") || json.Unmarshal(body, &l) != nil {
		t.Fatalf("rv=0 list: %s %s", status, body)
	}
	n := l.Metadata.ResourceVersion
	if status, body := h.fetch(path+"?limit=1", "watchrv-e2e-setup"); !strings.HasPrefix(status, "200") || json.Unmarshal(body, &l) != nil || l.Metadata.Continue == "" {
		t.Fatalf("a first page of 1: %s %s", status, body)
	}
	exact := path + "?resourceVersion=" + n + "&resourceVersionMatch=Exact"
	cont := path + "?limit=1&continue=" + url.QueryEscape(l.Metadata.Continue)
	served := func(what, agent, p string) string {
		t.Helper()
		before := h.listCounters(t)
		status, body := h.fetch(p, agent)
		after := h.listCounters(t)
		if !strings.HasPrefix(status, "200") {
			t.Fatalf("%s: %s %s", what, status, body)
		}
		cache, storage := after[0]-before[0], after[1]-before[1]
		t.Logf("%s: cache +%v, storage +%v", what, cache, storage)
		switch {
		case cache == 1 && storage == 0:
			return "watch cache"
		case cache == 0 && storage == 1:
			return "storage"
		}
		return "both or neither"
	}
	for _, r := range []struct{ what, agent, path, want string }{
		{"exact list at N, at once", "watchrv-e2e-snapshot-fresh", exact, "watch cache"},
		{"continue, at once", "watchrv-e2e-snapshot-fresh", cont, "watch cache"},
	} {
		if got := served(r.what, r.agent, r.path); got != r.want {
			t.Errorf("%s: served by %s, want the %s", r.what, got, r.want)
		}
	}
	time.Sleep(80 * time.Second)
	for i := 0; i < 150; i++ {
		create("burst-" + strconv.Itoa(i))
	}
	if status, body := h.fetch(path+"?watch=1&timeoutSeconds=1&resourceVersion="+n, "watchrv-e2e-setup"); !strings.Contains(string(body), "too old resource version: "+n) {
		t.Fatalf("the watch cache's window did not move past N=%s (a watch from it: %s %s)", n, status, body)
	}
	for _, r := range []struct{ what, agent, path, want string }{
		{"exact list at N, after the window moved", "watchrv-e2e-snapshot-later", exact, "storage"},
		{"continue, after the window moved", "watchrv-e2e-snapshot-later", cont, "storage"},
	} {
		if got := served(r.what, r.agent, r.path); got != r.want {
			t.Errorf("%s: served by %s, want %s", r.what, got, r.want)
		}
	}

	time.Sleep(time.Second) // the last ends in the log
	rep := runClients(t, "-f", a.AuditLog, "--server-version", "v1.36.3", "--watch-cache", "on")
	for _, agent := range []string{"watchrv-e2e-snapshot-fresh", "watchrv-e2e-snapshot-later"} {
		cl := find(rep, "admin", agent)
		if cl == nil || cl.Lists.Exact != 1 || cl.Lists.Continue != 1 || cl.StorageUnknown != 2 || cl.StorageLists != 0 {
			t.Errorf("%s: want 1 exact list and 1 continued page, both not known: %+v", agent, cl)
		}
	}
	for _, r := range rep.Reads {
		if (r.Mode == "N (Exact)" || r.Mode == "continue (page 2+)") && (r.From != "unknown" || !strings.Contains(r.Why, "the audit log does not tell")) {
			t.Errorf("the rule for %s on v1.36.3: %s (%s)", r.Mode, r.From, r.Why)
		}
	}
}

// fetch sends one GET as admin with the user agent agent and returns its
// status line and body.
func (c *rawClient) fetch(path, agent string) (string, []byte) {
	c.t.Helper()
	conn, err := tls.Dial("tcp", c.host, c.tls)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + c.host + "\r\nUser-Agent: " + agent + "\r\nAuthorization: Bearer " + framework.AdminToken + "\r\nConnection: close\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		c.t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("GET %s: reading: %v", path, err)
	}
	return strings.TrimPrefix(resp.Status, "HTTP/1.1 "), body
}

// listCounters are the server's lists of podtemplates served by the watch
// cache (apiserver_cache_list_total; from v1.37
// apiserver_storage_list_total{storage="watchcache"}) and by storage.
func (c *rawClient) listCounters(t *testing.T) [2]float64 {
	t.Helper()
	_, body := c.fetch("/metrics", "watchrv-e2e-metrics")
	var out [2]float64
	for _, l := range strings.Split(string(body), "\n") {
		if !strings.Contains(l, "podtemplates") {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(l, "apiserver_cache_list_total{"),
			strings.HasPrefix(l, "apiserver_storage_list_total{") && strings.Contains(l, `storage="watchcache"`):
			out[0] += v
		case strings.HasPrefix(l, "apiserver_storage_list_total{"):
			out[1] += v
		}
	}
	return out
}
