package clients

import (
	"bytes"
	"fmt"
	"os"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// BenchmarkMintedClients adds 500,000 one-request clients (a recorded get,
// each with its own user agent: anyone can send one) to an analysis: at
// most DefaultMaxClients are kept apart, so the heap's peak stays bounded
// (issue 25 item 5: 500,000 clients took 1.9 GB, 3.8 KB each).
func BenchmarkMintedClients(b *testing.B) {
	var get audit.Event
	for _, l := range bytes.Split(bytes.TrimSpace(recordedLogB(b)), []byte("\n")) {
		var e audit.Event
		if _, r := audit.Decode(l, &e); r == "" && e.Verb == "get" && e.Done() {
			get = e
			break
		}
	}
	const n = 500_000
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		a := New(Options{})
		t0 := get.StageTimestamp
		for k := 0; k < n; k++ {
			e := get
			e.AuditID, e.UserAgent = fmt.Sprint("minted-", k), fmt.Sprint("minted/", k)
			e.StageTimestamp = t0.Add(time.Duration(k) * time.Millisecond)
			e.RequestReceivedTimestamp = e.StageTimestamp
			a.Add(&e)
			if k%20000 == 0 {
				metrics.Read(s)
				peak = max(peak, s[0].Value.Uint64())
			}
		}
		r := a.Report(nil, audit.Stats{})
		if r.Folded == nil || int64(len(r.Clients))+r.Folded.Clients != n {
			b.Fatalf("%d clients, folded %+v", len(r.Clients), r.Folded)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}
}

func recordedLogB(b *testing.B) []byte {
	data, err := os.ReadFile(recorded)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
