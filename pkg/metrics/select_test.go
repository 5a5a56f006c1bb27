package metrics

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// hostileMetrics streams a /metrics of n series of family, each with the
// labels of apiserver_request_total: what no server sends (a fake server of
// test/e2e/framework sends it over HTTP).
type hostileMetrics struct {
	family string
	i, n   int
	buf    []byte
}

func (h *hostileMetrics) Read(p []byte) (int, error) {
	for len(h.buf) < len(p) && h.i < h.n {
		if h.i == 0 {
			h.buf = append(h.buf, "# TYPE "+h.family+" counter\n"...)
		}
		h.buf = fmt.Appendf(h.buf, "%s{code=\"200\",component=\"apiserver\",dry_run=\"\",group=\"g\",resource=\"r%d\",scope=\"cluster\",subresource=\"\",verb=\"LIST\",version=\"v1\"} 1\n", h.family, h.i)
		h.i++
	}
	if len(h.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, h.buf)
	h.buf = h.buf[n:]
	return n, nil
}

// heapGrowth runs f and returns the most the live heap grew while it ran.
func heapGrowth(f func()) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	done, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var max uint64
		for {
			select {
			case <-done:
				peak <- max
				return
			case <-time.After(time.Millisecond):
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > max {
				max = m.HeapInuse - base
			}
		}
	}()
	f()
	close(done)
	return <-peak
}

// A /metrics of a million series of a wanted family (under the 64 MiB cap
// once gzip is undone: the byte cap does not catch it) ends at the series
// bound with the Unbounded error, in bounded memory.
func TestParseSelectedBoundsTheSeriesKept(t *testing.T) {
	var err error
	grew := heapGrowth(func() {
		_, err = ParseSelected(&hostileMetrics{family: "apiserver_request_total", n: 1_000_000}, []string{"apiserver_request_total"}, true)
	})
	var b *apiclient.BoundError
	if !errors.As(err, &b) || diagnose.ClassifyFailure(err) != diagnose.FailureUnbounded || !strings.Contains(err.Error(), "50,000 series") {
		t.Fatalf("a million series: %v; want the series bound, Unbounded", err)
	}
	t.Logf("heap grew by %d MiB", grew>>20)
	if grew > 150<<20 {
		t.Fatalf("the heap grew by %d MiB", grew>>20)
	}
	// A family not asked for costs nothing, whatever its size.
	var sel *Selected
	grew = heapGrowth(func() {
		sel, err = ParseSelected(&hostileMetrics{family: "other_total", n: 1_000_000}, []string{"apiserver_request_total"}, true)
	})
	if err != nil || len(sel.Families) != 0 || grew > 64<<20 {
		t.Fatalf("a million series not asked for: %v, %+v, heap +%d MiB", err, sel, grew>>20)
	}
}

func TestParseSelectedBoundsLinesAndFamilies(t *testing.T) {
	_, err := ParseSelected(strings.NewReader("# TYPE a counter\na "+strings.Repeat("1", MaxSelectedLine+1)+"\n"), []string{"a"}, true)
	if !errors.Is(err, ErrLineTooLong) || diagnose.ClassifyFailure(err) != diagnose.FailureUnbounded {
		t.Fatalf("a long line: %v", err)
	}
	var decl strings.Builder
	for i := 0; i <= MaxDeclaredFamilies; i++ {
		fmt.Fprintf(&decl, "# TYPE x%d counter\n", i)
	}
	if _, err := ParseSelected(strings.NewReader(decl.String()), []string{"a"}, true); diagnose.ClassifyFailure(err) != diagnose.FailureUnbounded {
		t.Fatalf("%d families declared: %v", MaxDeclaredFamilies+1, err)
	}
}

// ParseSelected in small batches parses the recorded /metrics of real
// servers (and a histogram, whose series spans lines) as one whole parse
// does.
func TestParseSelectedMatchesAWholeParse(t *testing.T) {
	hist := "# HELP h_seconds x\n# TYPE h_seconds histogram\n"
	for i := 0; i < 50; i++ {
		for _, le := range []string{"0.1", "1", "+Inf"} {
			hist += fmt.Sprintf("h_seconds_bucket{r=\"r%d\",le=%q} %d\n", i, le, i)
		}
		hist += fmt.Sprintf("h_seconds_sum{r=\"r%d\"} %d\nh_seconds_count{r=\"r%d\"} %d\n", i, i, i, i)
	}
	defer func(b int) { batchBytes = b }(batchBytes)
	batchBytes = 300
	for _, file := range []string{"testdata/v1.33.5.metrics.txt", "testdata/v1.37.2.metrics.txt"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b) + hist
		whole, err := Parse(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for n := range whole {
			names = append(names, n)
		}
		sort.Strings(names)
		sel, err := ParseSelected(strings.NewReader(text), names, false)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		got, declared := sel.Families, sel.Declared
		if len(got) != len(whole) || len(declared) != len(whole) || len(sel.Mistyped) != 0 {
			t.Fatalf("%s: %d families (%d declared), %v; want %d", file, len(got), len(declared), err, len(whole))
		}
		for _, n := range names {
			w, g := whole[n], got[n]
			if g == nil || g.GetType() != w.GetType() || !reflect.DeepEqual(fmt.Sprint(g.GetMetric()), fmt.Sprint(w.GetMetric())) {
				t.Fatalf("%s: family %s differs:\n%v\nwant\n%v", file, n, g, w)
			}
		}
	}
}
