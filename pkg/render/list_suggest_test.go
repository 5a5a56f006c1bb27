package render

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// walkRecorded walks one recorded real List answer (pkg/listing/testdata)
// served for every request, reading at most one page.
func walkRecorded(t *testing.T, file string, tg apiclient.Target, o listing.WalkOptions) *listing.WalkResult {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "listing", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	o.MaxPages = 1
	w, err := listing.Walk(context.Background(), c, tg, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

var configmaps = apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}

func human(t *testing.T, r ListReport) string {
	t.Helper()
	var out bytes.Buffer
	if err := NewPrinter(&out, &out, "", true).List(r); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Issue 25 C8: a page with a continue token and no remainingItemCount (a
// label selector: the server does not count) leaves the total unknown; a
// last page (no continue token) tells it exactly.
func TestRVOnlyTotalIsUnknownWithoutACount(t *testing.T) {
	o := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 1}}
	sel := apiclient.Target{Resource: configmaps, Namespace: "rec", LabelSelector: "app=demo"}
	r := NewListReport(ListQuery{Target: sel, Walk: o, RVOnly: true}, walkRecorded(t, "selector-page1.json", sel, o))
	if r.EstimatedTotal != nil {
		t.Fatalf("a total of %d claimed without a count", *r.EstimatedTotal)
	}
	if out := human(t, r); strings.Contains(out, "in the collection\n") || !strings.Contains(out, "how many are in the collection is unknown") {
		t.Fatalf("label selector, --rv-only:\n%s", out)
	}
	name := apiclient.Target{Resource: configmaps, Namespace: "rec", FieldSelector: "metadata.name=a"}
	r = NewListReport(ListQuery{Target: name, Walk: o, RVOnly: true, Name: "a"}, walkRecorded(t, "name-page1.json", name, o))
	if r.EstimatedTotal == nil || *r.EstimatedTotal != 1 {
		t.Fatalf("the last page: total %v, want 1", r.EstimatedTotal)
	}
}

// Issue 25 D16: "Watch from here" narrows the watch as the list was
// narrowed and carries the user's context; the human output shows the
// name and selectors.
func TestWatchFromHereCarriesScopeAndContext(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	genericclioptions.NewConfigFlags(true).AddFlags(fs)
	if err := fs.Parse([]string{"--kubeconfig", "/k/first", "--context", "one", "--token", "secret"}); err != nil {
		t.Fatal(err)
	}
	o := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 500}}
	tg := apiclient.Target{Resource: configmaps, Namespace: "rec", LabelSelector: "app=demo", FieldSelector: "metadata.name=a,status!=x"}
	q := ListQuery{Target: tg, Walk: o, Name: "a", FieldSelector: "status!=x", Context: suggest.From(fs, nil)}
	r := NewListReport(q, walkRecorded(t, "name-page1.json", tg, o))
	want := "kubectl watchrv watch configmaps a -n rec -l app=demo --field-selector 'status!=x' --rv 739 --kubeconfig /k/first --context one --token \"$WATCHRV_TOKEN\""
	if r.WatchCommand != want {
		t.Fatalf("watch command:\n%s\nwant\n%s", r.WatchCommand, want)
	}
	out := human(t, r)
	for _, w := range []string{"Name: +a\n", "Selector: +app=demo\n", "Field selector: +status!=x\n", regexp.QuoteMeta(want), "WATCHRV_TOKEN"} {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "secret") {
		t.Errorf("the token is printed:\n%s", out)
	}
	var js bytes.Buffer
	if err := NewPrinter(&js, &js, FormatJSON, false).List(r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		WatchCommand string `json:"watchCommand"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.WatchCommand != want {
		t.Errorf("-o json watchCommand %q (%v)", got.WatchCommand, err)
	}
}

// Issue 25 D17, adversary try 44 B: a list RV no watch can start from
// (one --rv refuses, or "0", which no storage gives) is never suggested,
// nor is watch --rv list, which takes the same server's list RV and
// stops there: the advice suggests no command and says why.
func TestARefusedRVIsNotSuggested(t *testing.T) {
	o := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 500}}
	tg := apiclient.Target{Resource: configmaps, Namespace: "rec", FieldSelector: "metadata.name=a"}
	for _, v := range []string{"-7", "abc", "18446744073709551616", "0"} {
		w := walkRecorded(t, "name-page1.json", tg, o)
		for i := range w.Attempts[0].Pages {
			w.Attempts[0].Pages[i].ResourceVersion = v
		}
		r := NewListReport(ListQuery{Target: tg, Walk: o, Name: "a"}, w)
		out := human(t, r)
		if r.WatchCommand != "" || strings.Contains(out, "kubectl watchrv") || !strings.Contains(r.WatchAdvice, "no watch starts from it") {
			t.Errorf("RV %s:\n%s", v, out)
		}
	}
}

// Issue 25 F34: a cluster-scoped resource says so (and that -n is
// ignored); --rv 0 says "possibly stale" once; the Server line stays short
// when /metrics was not read, the reason in a note.
func TestListSmallTexts(t *testing.T) {
	ns := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}}
	o := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 500}}
	tg := apiclient.Target{Resource: ns}
	r := NewListReport(ListQuery{Target: tg, Walk: o, NamespaceIgnored: "demo"}, walkRecorded(t, "namespaces-page1.json", tg, o))
	if out := human(t, r); !strings.Contains(out, "- (namespaces is cluster-scoped; -n demo is ignored, as kubectl does)") || strings.Contains(out, "(all") {
		t.Errorf("cluster-scoped:\n%s", out)
	}
	o.ResourceVersion = "0"
	tg = apiclient.Target{Resource: configmaps, Namespace: "rec"}
	in := serverinfo.Build("v1.37.2", 37, nil, serverinfo.ForbiddenNote, "configmaps")
	r = NewListReport(ListQuery{Target: tg, Walk: o}, walkRecorded(t, "name-page1.json", tg, o)).WithServer(in)
	var out, errOut bytes.Buffer
	if err := NewPrinter(&out, &errOut, "", true).List(r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "stale"); n != 1 {
		t.Errorf("--rv 0 says stale %d times:\n%s", n, out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "Server:") && len(l) > 120 {
			t.Errorf("a Server line of %d characters: %s", len(l), l)
		}
	}
	if !strings.Contains(errOut.String(), "Note: /metrics is forbidden") {
		t.Errorf("no note of what was assumed: %q", errOut.String())
	}
}

// Issue 25 H41/H44: who served each page, and storage's requests counted
// from the pages read: cache off, every page by storage.
func TestServedByIsPerPage(t *testing.T) {
	tg, o, w := recordedWalk(t) // 3 pages
	off := serverinfo.Build("v1.37.2", 37, &serverinfo.MetricsFacts{WatchCache: serverinfo.No}, "", "configmaps")
	o.ResourceVersion = "0"
	r := NewListReport(ListQuery{Target: tg, Walk: o}, w).WithServer(off)
	if r.ServedBy.StorageRequests == nil || *r.ServedBy.StorageRequests != 3 || !strings.Contains(human(t, r), "every page: storage") || !strings.Contains(human(t, r), "(3 storage requests, one per page)") {
		t.Errorf("cache off, rv=0, 3 pages: %+v\n%s", r.ServedBy, human(t, r))
	}
	if strings.Contains(human(t, r), "one storage round trip") {
		t.Errorf("one round trip claimed for 3 pages")
	}
	v133 := serverinfo.Build("v1.33.13", 33, &serverinfo.MetricsFacts{WatchCache: serverinfo.Yes}, "", "configmaps")
	o.ResourceVersion = ""
	r = NewListReport(ListQuery{Target: tg, Walk: o}, w).WithServer(v133)
	// 2 continue pages from storage, and the cache's one-item list for the
	// current RV (up to v1.36); page 1 from the cache.
	if out := human(t, r); !strings.Contains(out, "page 1: the watch cache") || !strings.Contains(out, "pages 2-3 (continue tokens): storage") ||
		!strings.Contains(out, "(3 storage requests: one per page storage served, and the cache's current-RV read)") ||
		*r.ServedBy.StorageRequests != 3 || *r.ServedBy.CacheRequests != 1 {
		t.Errorf("v1.33, consistent, 3 pages: %+v\n%s", r.ServedBy, out)
	}
	// The cache of the resource not known (v1.33's /metrics is not read):
	// storage's count is still known (it serves page 1, or the cache's RV
	// read), the cache's is not.
	v133unknown := serverinfo.Build("v1.33.13", 33, nil, "not asked", "configmaps")
	r = NewListReport(ListQuery{Target: tg, Walk: o}, w).WithServer(v133unknown)
	if r.ServedBy.StorageRequests == nil || *r.ServedBy.StorageRequests != 3 || r.ServedBy.CacheRequests != nil {
		t.Errorf("v1.33, cache unknown: %+v", r.ServedBy)
	}
}

// Issue 25 H38: without a watch cache (and the storage not known, as it
// never is from the client side), Watch from here says where the watch may
// fail (kine's PrevKv=nil) and gives the --follow form, in the same
// context; with a watch cache, no caveat.
func TestWatchCaveatWithoutAWatchCache(t *testing.T) {
	o := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 500}}
	tg := apiclient.Target{Resource: configmaps, Namespace: "rec", LabelSelector: "app=demo"}
	w := walkRecorded(t, "selector-page1.json", tg, o)
	off := serverinfo.Build("v1.37.2", 37, &serverinfo.MetricsFacts{WatchCache: serverinfo.No}, "", "configmaps")
	r := NewListReport(ListQuery{Target: tg, Walk: o}, w).WithServer(off)
	want := "kubectl watchrv watch configmaps -n rec -l app=demo --rv 739 --follow"
	if !strings.Contains(r.WatchCaveat, "kine") || !strings.Contains(r.WatchCaveat, "PrevKv=nil") || !strings.HasSuffix(r.WatchCaveat, want) || !strings.Contains(human(t, r), "Caveat:") {
		t.Errorf("cache off: caveat %q", r.WatchCaveat)
	}
	on := serverinfo.Build("v1.37.2", 37, &serverinfo.MetricsFacts{WatchCache: serverinfo.Yes}, "", "configmaps")
	if r := NewListReport(ListQuery{Target: tg, Walk: o}, w).WithServer(on); r.WatchCaveat != "" {
		t.Errorf("cache on: caveat %q", r.WatchCaveat)
	}
}
