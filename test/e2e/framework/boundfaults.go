package framework

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Faults of answers within their byte cap whose content, decoded, would
// take unbounded memory (found by an adversary with a hostile fake
// server: a page of tiny items, a /metrics of a million series).
const (
	// FaultTinyItems: every list page is 10 million `{}` items, 30 MB,
	// far under the page cap.
	FaultTinyItems Fault = "tiny-items"
	// FaultManySeries: /metrics is 400,000 series of the families top
	// and probe --metrics read, 45 MB, under the /metrics cap.
	FaultManySeries Fault = "many-series"
	// FaultLongMetricsLine: /metrics has a 2 MiB line.
	FaultLongMetricsLine Fault = "long-metrics-line"
	// FaultLongNames: a paged list that never ends, every page 500 items
	// of 253-byte names (the longest a name may be) with a new continue
	// token: each page is small and valid, their names add up without end.
	FaultLongNames Fault = "long-names"
	// FaultBigPage: every list of configmaps (paged or not) is one page
	// of 1.2 million valid objects with 200-byte names, labels and
	// annotations, no continue token: about 260 MiB, just past the page
	// cap, under the million-items bound of an unpaged list only in its
	// first 1,000,000. Decoded whole it takes gigabytes (found by an
	// adversary: streaming's counting list decodes it, and its failure is
	// not in the report).
	FaultBigPage Fault = "big-page"
)

// boundFault answers what the bound faults change, and reports whether it
// did.
func (s *FaultServer) boundFault(w http.ResponseWriter, r *http.Request, watch bool) bool {
	p := r.URL.Path
	switch {
	case s.Fault == FaultTinyItems && strings.HasSuffix(p, "/configmaps") && !watch:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		s.write(w, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"100"},"items":[`)
		block := strings.Repeat(`{},`, 10_000)
		for i := 0; i < 1000 && r.Context().Err() == nil; i++ {
			if !s.write(w, block) {
				return true
			}
		}
		s.write(w, `{}]}`)
	case s.Fault == FaultLongNames && strings.HasSuffix(p, "/configmaps") && !watch:
		page := 0
		fmt.Sscanf(r.URL.Query().Get("continue"), "page-%d", &page)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		var b strings.Builder
		fmt.Fprintf(&b, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"100","continue":"page-%d"},"items":[`, page+1)
		for i := 0; i < 500; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			name := fmt.Sprintf("p%d-i%d-", page, i)
			fmt.Fprintf(&b, `{"metadata":{"name":"%s%s","namespace":"default","resourceVersion":"100","uid":"u-%d-%d"}}`, name, strings.Repeat("n", 253-len(name)), page, i)
		}
		b.WriteString(`]}`)
		s.write(w, b.String())
	case s.Fault == FaultBigPage && strings.HasSuffix(p, "/configmaps") && !watch:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		s.write(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[`)
		var b strings.Builder
		pad := strings.Repeat("n", 200)
		for i := 0; i < 1_200_000 && r.Context().Err() == nil; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			name := "big-" + strconv.Itoa(i) + "-"
			b.WriteString(`{"metadata":{"name":"` + name + pad[len(name):] + `","namespace":"default","resourceVersion":"100","labels":{"x":"y"},"annotations":{"a":"b","c":"d"}}}`)
			if b.Len() > 32<<10 {
				if !s.write(w, b.String()) {
					return true
				}
				b.Reset()
			}
		}
		b.WriteString(`]}`)
		s.write(w, b.String())
	case s.Fault == FaultManySeries && p == "/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.WriteHeader(200)
		fams := []string{"apiserver_request_total", "apiserver_longrunning_requests", "watch_cache_capacity"}
		for _, f := range fams {
			s.write(w, "# TYPE "+f+" gauge\n")
		}
		var b strings.Builder
		for i := 0; i < 400_000 && r.Context().Err() == nil; i++ {
			fmt.Fprintf(&b, "%s{code=\"200\",group=\"\",resource=\"r%d\",verb=\"LIST\",version=\"v1\"} 1\n", fams[i%3], i)
			if b.Len() > 32<<10 {
				if !s.write(w, b.String()) {
					return true
				}
				b.Reset()
			}
		}
		s.write(w, b.String())
	case s.Fault == FaultLongMetricsLine && p == "/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.WriteHeader(200)
		s.write(w, "# TYPE apiserver_request_total counter\napiserver_request_total{resource=\""+strings.Repeat("a", 2<<20)+"\"} 1\n")
	default:
		return false
	}
	return true
}

func (s *FaultServer) write(w io.Writer, b string) bool {
	n, err := io.WriteString(w, b)
	s.Sent.Add(int64(n))
	return err == nil
}
