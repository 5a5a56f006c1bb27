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

// listServed is what list -o json claims about who served its pages.
type listServed struct {
	Pages    int `json:"pages"`
	ServedBy *struct {
		FirstPageFrom     string `json:"firstPageFrom"`
		ContinuePagesFrom string `json:"continuePagesFrom"`
		StorageRequests   *int   `json:"storageRequests"`
	} `json:"servedBy"`
	Restarted              bool   `json:"restarted"`
	CurrentResourceVersion string `json:"currentResourceVersion"`
}

// checkListPages (issue 25 H41, H44): who list says served each page,
// held to the server's list counters on every cell. A 7-page list of
// podtemplates (which nothing else lists) moves apiserver_cache_list_total
// (or apiserver_storage_list_total{storage="watchcache"} on v1.37) and
// storage's count by what list claims: page 1 and the continue pages apart,
// every page counted; a page whose source list says is unknown may be
// either, and the totals still add up. After --rv 0, list's current-RV
// check (a consistent list of one item) is one more list.
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
		t.Logf("%s list, %d page(s): page 1 %s, continues %s, storage requests %v; counters: cache +%v, storage +%v",
			k.name, got.Pages, sb.FirstPageFrom, sb.ContinuePagesFrom, countOrUnknown(sb.StorageRequests), cache, storage)
		record(cell, "list pages "+k.name, strings.TrimSpace(strconv.Itoa(got.Pages)+" page(s): cache +"+strconv.FormatFloat(cache, 'f', -1, 64)+", storage +"+strconv.FormatFloat(storage, 'f', -1, 64)))
		var wantCache, wantStorage, either float64
		for _, part := range []struct {
			from  string
			pages int
		}{{sb.FirstPageFrom, 1}, {sb.ContinuePagesFrom, got.Pages - 1}} {
			switch part.from {
			case "watch cache":
				wantCache += float64(part.pages)
			case "storage":
				wantStorage += float64(part.pages)
			default:
				either += float64(part.pages)
			}
		}
		if got.CurrentResourceVersion != "" {
			either++ // the current-RV check: a consistent list of one item
		}
		if cache < wantCache || storage < wantStorage || cache+storage != wantCache+wantStorage+either {
			t.Errorf("%s list: claims %v page(s) from the watch cache, %v from storage, %v either; the counters moved cache +%v, storage +%v", k.name, wantCache, wantStorage, either, cache, storage)
		}
		if sb.StorageRequests != nil && float64(*sb.StorageRequests) != wantStorage {
			t.Errorf("%s list: storageRequests %d, but %v page(s) claimed from storage", k.name, *sb.StorageRequests, wantStorage)
		}
		if sb.StorageRequests != nil && either == 0 && float64(*sb.StorageRequests) != storage {
			t.Errorf("%s list: %d storage request(s) claimed, storage served %v", k.name, *sb.StorageRequests, storage)
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
