package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// recordedWalk walks the List pages recorded from the real v1.37.2 server.
func recordedWalk(t *testing.T) (apiclient.Target, listing.WalkOptions, *listing.WalkResult) {
	t.Helper()
	var pages [][]byte
	for _, n := range []string{"page1.json", "page2.json", "page3.json"} {
		b, err := os.ReadFile(filepath.Join("..", "listing", "testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	i := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(pages[i%3])
		i++
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	tg := apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "recorded"}
	o := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 2}}
	w, err := listing.Walk(context.Background(), c, tg, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tg, o, w
}

func TestListJSONSchema(t *testing.T) {
	tg, o, w := recordedWalk(t)
	var out bytes.Buffer
	p := NewPrinter(&out, &out, FormatJSON, false)
	if err := p.List(NewListReport(ListQuery{Target: tg, Walk: o, RVOnly: false}, w)); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// The stable schema: these fields are promised to scripts.
	for _, k := range []string{"resource", "namespace", "resourceVersion", "itemCount", "pages", "pageResourceVersions", "consistent", "maxItemResourceVersion", "readSemantics"} {
		if _, ok := got[k]; !ok {
			t.Errorf("-o json lacks %q", k)
		}
	}
	if got["resourceVersion"] != "215" || got["itemCount"] != float64(5) || got["pages"] != float64(3) || got["consistent"] != true {
		t.Fatalf("wrong values: %v", got)
	}
}

func TestListHumanOutputFlagsDisagreement(t *testing.T) {
	tg, o, w := recordedWalk(t)
	r := NewListReport(ListQuery{Target: tg, Walk: o, RVOnly: false}, w)
	var out bytes.Buffer
	if err := NewPrinter(&out, &out, FormatWide, false).List(r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"List resourceVersion:", "215", "all 3 pages at RV 215", "PAGE", "kubectl watchrv watch configmaps -n recorded --rv 215"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Fatal("color must be off when not asked for")
	}
	// A server that broke the contract (pages at different RVs) is shouted at.
	w.Final().Pages[2].ResourceVersion = "216"
	r = NewListReport(ListQuery{Target: tg, Walk: o, RVOnly: false}, w)
	out.Reset()
	if err := NewPrinter(&out, &out, "", false).List(r); err != nil {
		t.Fatal(err)
	}
	if r.Consistent == nil || *r.Consistent || !strings.Contains(out.String(), "PAGES DISAGREE") {
		t.Fatalf("disagreeing pages not flagged:\n%s", out.String())
	}
}

func TestNoColorWhenNotATerminal(t *testing.T) {
	p := NewPrinter(&bytes.Buffer{}, &bytes.Buffer{}, "", false)
	if p.Color {
		t.Fatal("a buffer is not a terminal: color must be off")
	}
	var colored bytes.Buffer
	p = NewPrinter(&colored, io.Discard, "", false)
	p.forceColor()
	fmt.Fprint(p.Out, p.Style.Bad.Sprint("x"))
	if s := colored.String(); s != "\x1b[31;1mx\x1b[0;22m" {
		t.Fatalf("an enabled style must color: %q", s)
	}
}

// --rv-only reads one item: its RV is labelled as that item's, never as the
// collection's newest.
func TestListRVOnlyDoesNotClaimTheNewestItem(t *testing.T) {
	tg, o, w := recordedWalk(t)
	var out bytes.Buffer
	if err := NewPrinter(&out, &out, "", false).List(NewListReport(ListQuery{Target: tg, Walk: o, RVOnly: true}, w)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "Newest item RV") || !strings.Contains(out.String(), "RV of the item read") {
		t.Fatalf("--rv-only output:\n%s", out.String())
	}
}

// A list at an explicit RV (exact under the legacy rule, or not older than)
// may carry an RV outside the watch window: no "watch from here" is offered.
func TestListAtAnRVSuggestsNoWatchStart(t *testing.T) {
	tg, o, w := recordedWalk(t)
	o.ResourceVersion = "100"
	r := NewListReport(ListQuery{Target: tg, Walk: o, RVOnly: false}, w)
	var out bytes.Buffer
	if err := NewPrinter(&out, &out, "", false).List(r); err != nil {
		t.Fatal(err)
	}
	if r.WatchCommand != "" || strings.Contains(out.String(), "--rv 215") || strings.Contains(out.String(), "watch configmaps -n recorded --rv 100") || !strings.Contains(out.String(), "not suggested") {
		t.Fatalf("a list at --rv 100 must not suggest a watch start:\n%s", out.String())
	}
}

// Issue 16 item 16: --rv 0 and NotOlderThan return the serving cache's
// newest state, which may lag: a watch start is suggested only once a
// consistent read right after the list finds that RV current.
func TestListAtAnyOrNotOlderThanSuggestsAWatchStartOnlyIfCurrent(t *testing.T) {
	for _, c := range []struct{ rv, match string }{{"0", ""}, {"100", "NotOlderThan"}} {
		tg, o, w := recordedWalk(t)
		o.ResourceVersion, o.ResourceVersionMatch = c.rv, c.match
		r := NewListReport(ListQuery{Target: tg, Walk: o, RVOnly: false}, w)
		if !r.NeedsCurrentRV() || r.WatchCommand != "" {
			t.Fatalf("--rv %s %s: a watch start suggested before the current RV was checked: %+v", c.rv, c.match, r)
		}
		behind := r
		behind.CheckWatchStart("230", nil)
		if behind.WatchCommand != "" || !strings.Contains(behind.WatchAdvice, "found RV 230") {
			t.Fatalf("--rv %s %s: list RV 215, current 230: %q %q", c.rv, c.match, behind.WatchCommand, behind.WatchAdvice)
		}
		r.CheckWatchStart("215", nil)
		var out bytes.Buffer
		if err := NewPrinter(&out, &out, "", false).List(r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "kubectl watchrv watch configmaps -n recorded --rv 215") {
			t.Fatalf("--rv %s %s: list RV 215 is current: want the watch start:\n%s", c.rv, c.match, out.String())
		}
	}
}

// Issue 16 item 20: the byte count is the decoded bodies; a page over
// 128 KiB is gzipped on the wire, so the output says which.
func TestListTransferSaysDecoded(t *testing.T) {
	tg, o, w := recordedWalk(t)
	r := NewListReport(ListQuery{Target: tg, Walk: o, RVOnly: false}, w)
	var out bytes.Buffer
	if err := NewPrinter(&out, &out, "", false).List(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "KiB decoded in") || strings.Contains(out.String(), "gzips") {
		t.Fatalf("small pages: want 'decoded', no gzip note:\n%s", out.String())
	}
	r.PageDetails[0].Bytes = 129 << 10
	out.Reset()
	if err := NewPrinter(&out, &out, "", false).List(r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "the server gzips a body over 128 KiB") {
		t.Fatalf("a page over 128 KiB: want the gzip note:\n%s", out.String())
	}
}
