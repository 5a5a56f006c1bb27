//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// servedClaim is who list -o json says served a list's pages.
type servedClaim struct {
	FirstPageFrom     string `json:"firstPageFrom"`
	ContinuePagesFrom string `json:"continuePagesFrom"`
	StorageRequests   *int   `json:"storageRequests"`
	CacheRequests     *int   `json:"cacheRequests"`
}

// listServed is what list -o json claims about who served its requests.
type listServed struct {
	Pages             int          `json:"pages"`
	ServedBy          *servedClaim `json:"servedBy"`
	CurrentRVServedBy *servedClaim `json:"currentRVServedBy"`
	Restarted         bool         `json:"restarted"`
}

// checkListPages (issue 25 H41, H44): who list says served each request,
// held to the server's list counters on every cell. A 7-page list of
// podtemplates (which nothing else lists) moves apiserver_cache_list_total
// (or apiserver_storage_list_total{storage="watchcache"} on v1.37) and
// storage's count by exactly the counts list gives (storageRequests,
// cacheRequests: page 1 and the continue pages apart, and up to v1.36 the
// watch cache's one-item storage list for the current RV of a consistent
// read); where list says a source is unknown it gives no count, and every
// request is still counted somewhere. After --rv 0, list's current-RV
// check (a consistent list of one item) is one request more, with its own
// counts.
var checkListPages = claimCheck{"list-pages", func(t *testing.T, cell framework.Cell, c *framework.Cluster) {
	cs, ns := framework.Namespace(t, c, "list-pages")
	for i := 0; i < 13; i++ {
		if _, err := cs.CoreV1().PodTemplates(ns).Create(context.Background(), &corev1.PodTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "pt-" + strconv.Itoa(i)},
			Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "none"}}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	s := newServer(t, c)
	for _, k := range []struct {
		name string
		args []string
	}{
		{"consistent", nil},
		{"rv=0", []string{"--rv", "0"}},
	} {
		before := s.metrics()
		r := framework.Run(t, c.Kubeconfig, time.Minute, append([]string{"list", "podtemplates", "-n", ns, "--limit", "2", "-o", "json"}, k.args...)...)
		after := s.metrics()
		var got listServed
		if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || r.Code != 0 || got.ServedBy == nil || got.Restarted {
			t.Fatalf("%s list: exit %d (%v): %s%s", k.name, r.Code, err, r.Stdout, r.Stderr)
		}
		cache := listsFromCache(after, "podtemplates") - listsFromCache(before, "podtemplates")
		storage := listsFromStorage(after, "podtemplates") - listsFromStorage(before, "podtemplates")
		sb := got.ServedBy
		t.Logf("%s list, %d page(s): page 1 %s, continues %s, storage requests %v, cache requests %v (check: %+v); counters: cache +%v, storage +%v",
			k.name, got.Pages, sb.FirstPageFrom, sb.ContinuePagesFrom, countOrUnknown(sb.StorageRequests), countOrUnknown(sb.CacheRequests), got.CurrentRVServedBy, cache, storage)
		record(cell, "list pages "+k.name, strings.TrimSpace(strconv.Itoa(got.Pages)+" page(s): cache +"+strconv.FormatFloat(cache, 'f', -1, 64)+", storage +"+strconv.FormatFloat(storage, 'f', -1, 64)))
		// What list claims, the current-RV check (after --rv 0) included:
		// a count it gives must be what the counter moved; without one,
		// the pages are still all counted somewhere.
		claims := []*servedClaim{sb}
		if got.CurrentRVServedBy != nil {
			claims = append(claims, got.CurrentRVServedBy)
		}
		wantStorage, wantCache, storageKnown, cacheKnown := 0, 0, true, true
		for _, c := range claims {
			if c.StorageRequests == nil {
				storageKnown = false
			} else {
				wantStorage += *c.StorageRequests
			}
			if c.CacheRequests == nil {
				cacheKnown = false
			} else {
				wantCache += *c.CacheRequests
			}
		}
		pages := float64(got.Pages + len(claims) - 1)
		switch {
		case storageKnown && storage != float64(wantStorage):
			t.Errorf("%s list: %d storage request(s) claimed, storage served %v (cache +%v)", k.name, wantStorage, storage, cache)
		case cacheKnown && cache != float64(wantCache):
			t.Errorf("%s list: %d watch-cache request(s) claimed, the cache served %v (storage +%v)", k.name, wantCache, cache, storage)
		case cache+storage < pages:
			t.Errorf("%s list: %v requests read, the counters moved cache +%v, storage +%v", k.name, pages, cache, storage)
		}
		if sb.FirstPageFrom == "storage" && sb.ContinuePagesFrom == "storage" && !storageKnown {
			t.Errorf("%s list: every page from storage, yet no count of them", k.name)
		}
		if got.Pages > 1 && strings.Contains(r.Stdout, "one storage round trip") {
			t.Errorf("%s list: one round trip claimed for %d pages", k.name, got.Pages)
		}
	}
}}

func countOrUnknown(p *int) any {
	if p == nil {
		return "unknown"
	}
	return *p
}

var (
	watchFromHere = regexp.MustCompile(`(?m)^Watch from here: +(kubectl watchrv watch .*)$`)
	caveatFollow  = regexp.MustCompile(`(?m)^Caveat: +.*kine.*: (kubectl watchrv watch .*--follow.*)$`)
)

// listSuggestion runs list and returns its Watch from here command and the
// --follow command of its caveat ("" when it has none).
func listSuggestion(t *testing.T, c *framework.Cluster, args ...string) (watch, follow string) {
	t.Helper()
	r := framework.Run(t, c.Kubeconfig, time.Minute, append([]string{"list"}, args...)...)
	m := watchFromHere.FindStringSubmatch(r.Stdout)
	if r.Code != 0 || m == nil {
		t.Fatalf("list %v: exit %d, no Watch from here:\n%s%s", args, r.Code, r.Stdout, r.Stderr)
	}
	if f := caveatFollow.FindStringSubmatch(r.Stdout); f != nil {
		follow = f[1]
	}
	return m[1], follow
}

// pastedEvents runs a pasted watch (-o json) and returns its records.
func pastedEvents(t *testing.T, line string, extra ...string) (framework.Result, []map[string]any) {
	t.Helper()
	r := framework.RunPasted(t, line, nil, 2*time.Minute, append(extra, "-o", "json")...)
	var recs []map[string]any
	for _, l := range strings.Split(r.Stdout, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			recs = append(recs, m)
		}
	}
	return r, recs
}

// checkWatchFromHereNoCache (issue 25 H38, etcd): without a watch cache
// list's Watch from here carries the caveat (the plugin cannot tell etcd
// from kine), and on etcd the pasted watch delivers a change of an object
// last written before the compaction point (its previous value is kept).
var checkWatchFromHereNoCache = claimCheck{"h38-watch-from-here-etcd", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	cs, ns := framework.Namespace(t, c, "h38")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("old", nil)
	w.Create("fill", nil)
	cur := currentRV(t, c, ns)
	if err := c.Compact(context.Background(), int64(cur)); err != nil {
		t.Fatal(err)
	}
	watch, follow := listSuggestion(t, c, "configmaps", "-n", ns)
	if follow == "" {
		t.Fatalf("no caveat with a --follow command without a watch cache")
	}
	want := w.Modify("old").ResourceVersion
	r, recs := pastedEvents(t, watch, "--max-events", "1", "--timeout", "20s")
	if len(recs) == 0 || recs[0]["type"] != "MODIFIED" || recs[0]["name"] != "old" || recs[0]["resourceVersion"] != want {
		t.Errorf("on etcd the pasted %s must deliver MODIFIED old at %s: exit %d %s%s", watch, want, r.Code, r.Stdout, r.Stderr)
	}
}}

// kineWatchFromHere (issue 25 H38, kine): list's Watch from here, pasted
// after an object last written below kine's compaction point changed at
// m, fails there with PrevKv=nil, as the caveat says; the caveat's
// --follow command relists.
func kineWatchFromHere(t *testing.T, watch, follow string, m uint64) {
	if follow == "" {
		t.Fatalf("no caveat with a --follow command on kine without a watch cache")
	}
	r, recs := pastedEvents(t, watch, "--timeout", "10s")
	failed := false
	for _, e := range recs {
		if e["type"] == "ERROR" && strings.Contains(fmt.Sprint(e["status"]), "PrevKv=nil") && strings.Contains(fmt.Sprint(e["status"]), "modRevision="+strconv.FormatUint(m, 10)) {
			failed = true
		}
	}
	if !failed {
		t.Errorf("on kine the pasted %s should fail at %d with PrevKv=nil (what the caveat says): exit %d %s%s", watch, m, r.Code, r.Stdout, r.Stderr)
	}
	f := framework.RunPasted(t, follow, nil, 2*time.Minute, "--timeout", "6s")
	if s := sessionLine.FindStringSubmatch(f.Stdout + f.Stderr); s == nil || s[2] == "0" {
		t.Errorf("the caveat's %s did not relist: exit %d %s%s", follow, f.Code, f.Stdout, f.Stderr)
	}
}
