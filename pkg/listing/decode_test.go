package listing

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"k8s.io/client-go/rest"
)

// hostilePage streams `{"metadata":{...},"items":[ITEM,ITEM,...]}` with n
// items, without holding it: what no API server sends (a fake server of
// test/e2e/framework sends it over HTTP).
type hostilePage struct {
	head, item, tail []byte
	n                int
	buf              []byte
}

func newHostilePage(item string, n int) *hostilePage {
	return &hostilePage{head: []byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[`), item: []byte(item), tail: []byte(`]}`), n: n}
}

func (h *hostilePage) Read(p []byte) (int, error) {
	for len(h.buf) < len(p) && (h.head != nil || h.n > 0 || h.tail != nil) {
		switch {
		case h.head != nil:
			h.buf, h.head = append(h.buf, h.head...), nil
		case h.n > 0:
			h.buf = append(h.buf, h.item...)
			if h.n--; h.n > 0 {
				h.buf = append(h.buf, ',')
			}
		default:
			h.buf, h.tail = append(h.buf, h.tail...), nil
		}
	}
	if len(h.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, h.buf)
	h.buf = h.buf[n:]
	return n, nil
}

// heapGrowth runs f and returns how far the live heap grew, sampled while
// f runs (each sample after a GC, so only what f keeps counts).
func heapGrowth(t *testing.T, f func()) uint64 {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var max uint64
		for {
			select {
			case <-done:
				peak <- max
				return
			default:
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > max {
				max = m.HeapInuse - base
			}
			time.Sleep(time.Millisecond)
		}
	}()
	f()
	runtime.ReadMemStats(&ms)
	close(done)
	p := <-peak
	if ms.HeapInuse > base && ms.HeapInuse-base > p {
		p = ms.HeapInuse - base
	}
	return p
}

// A walk keeps only counters: a page of 900,000 small items (under the
// bound) is decoded in the memory of one item.
func TestDecodePageStreamsItsItems(t *testing.T) {
	const n = 900_000
	var head pageHead
	var got int
	var err error
	grew := heapGrowth(t, func() {
		head, got, err = decodePage(newHostilePage(`{"metadata":{"name":"x","namespace":"default","resourceVersion":"5"}}`, n), MaxPageItems, nil)
	})
	if err != nil || got != n || head.ResourceVersion != "5" {
		t.Fatalf("decodePage: %d items at RV %q, %v; want %d at RV 5", got, head.ResourceVersion, err, n)
	}
	if grew > 50<<20 {
		t.Fatalf("decoding a page of %d items grew the heap by %d MiB: the items are kept", n, grew>>20)
	}
}

// 5 million `{}` items (15 MB, far under the page cap) end at the bound,
// a *apiclient.BoundError (exit 13), and in bounded memory.
func TestDecodePageBoundsItsItems(t *testing.T) {
	var err error
	var got int
	grew := heapGrowth(t, func() {
		_, got, err = decodePage(newHostilePage(`{}`, 5_000_000), MaxPageItems, func(int, ItemMeta) {})
	})
	var b *apiclient.BoundError
	if !errors.As(err, &b) || got != MaxPageItems || diagnose.ClassifyFailure(err) != diagnose.FailureUnbounded {
		t.Fatalf("a page of 5M items: %d read, err %v; want the bound at %d, Unbounded", got, err, MaxPageItems)
	}
	if grew > 50<<20 {
		t.Fatalf("the heap grew by %d MiB", grew>>20)
	}
}

// The streaming decoder reads the recorded pages of a real server as the
// whole-document decode does.
func TestDecodePageMatchesAWholeDecode(t *testing.T) {
	for _, name := range []string{"page1.json", "page3.json", "name-page1.json", "selector-page1.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var whole struct {
			Metadata pageHead `json:"metadata"`
			Items    []struct {
				Metadata ItemMeta `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal(b, &whole); err != nil {
			t.Fatal(err)
		}
		var items []ItemMeta
		head, n, err := decodePage(strings.NewReader(string(b)), MaxPageItems, func(i int, it ItemMeta) {
			if i != len(items) {
				t.Fatalf("%s: item index %d, want %d", name, i, len(items))
			}
			items = append(items, it)
		})
		if err != nil || n != len(whole.Items) || !reflect.DeepEqual(head, whole.Metadata) {
			t.Fatalf("%s: %d items, head %+v, %v; want %d, %+v", name, n, head, err, len(whole.Items), whole.Metadata)
		}
		for i := range items {
			if !reflect.DeepEqual(items[i], whole.Items[i].Metadata) {
				t.Fatalf("%s: item %d differs: %+v vs %+v", name, i, items[i], whole.Items[i].Metadata)
			}
		}
	}
	for _, bad := range []string{`[]`, `{"items":{}}`, `{"items":[{"metadata":1}]}`, `{"metadata":{}`} {
		if _, _, err := decodePage(strings.NewReader(bad), MaxPageItems, nil); err == nil {
			t.Errorf("%s: decoded without an error", bad)
		}
	}
}

// A walk of a page over the item bound ends with the one Unbounded line
// naming the request (List decodes with the same decodePage).
func TestListOverTheItemBoundNamesTheRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, newHostilePage(`{}`, MaxPageItems+1))
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, werr := Walk(context.Background(), c, cmTarget(), WalkOptions{PageOptions: PageOptions{Limit: 5}}, nil)
	for _, err := range []error{werr} {
		if diagnose.ClassifyFailure(err) != diagnose.FailureUnbounded {
			t.Fatalf("want Unbounded, got %v", err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "GET "+srv.URL+"/api/v1/namespaces/recorded/configmaps?limit=5") || !strings.Contains(msg, "100,000 items") || strings.Contains(msg, "\n") {
			t.Fatalf("the line should name the request and the bound: %s", msg)
		}
	}
}

// A paged list's page holds at most its limit from kube-apiserver, and an
// aggregated API that ignores the limit sends far fewer than
// MaxIgnoredLimitItems: more is a broken or hostile answer, and a caller
// that keeps the items (List: relists, streaming, probes) holds a bounded
// few. An rv=0 list may hold more (the watch cache does not page it).
func TestAPagedPageHoldsAtMostItsLimit(t *testing.T) {
	cases := []struct {
		o   PageOptions
		max int
	}{
		{PageOptions{Limit: 500}, MaxIgnoredLimitItems},
		{PageOptions{Limit: 500, Continue: "x", ResourceVersion: "7"}, MaxIgnoredLimitItems},
		{PageOptions{Limit: 500, ResourceVersion: "0"}, MaxPageItems},
		{PageOptions{Limit: 500, ResourceVersion: "7", ResourceVersionMatch: "NotOlderThan"}, MaxPageItems},
		{PageOptions{}, MaxPageItems},
	}
	for _, c := range cases {
		if got := c.o.maxItems(); got != c.max {
			t.Errorf("%+v: at most %d items, want %d", c.o, got, c.max)
		}
	}
	_, n, err := decodePage(newHostilePage(`{}`, MaxIgnoredLimitItems+5), MaxIgnoredLimitItems, func(int, ItemMeta) {})
	var b *apiclient.BoundError
	if !errors.As(err, &b) || n != MaxIgnoredLimitItems || diagnose.ClassifyFailure(err) != diagnose.FailureUnbounded {
		t.Fatalf("a paged page past the bound: %d read, %v", n, err)
	}
}
