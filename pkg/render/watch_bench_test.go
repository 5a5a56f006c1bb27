package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/follow"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// benchEvents is the size of the replayed stream of the benchmark.
const benchEvents = 20000

// replayedStream builds a stream of n events by replicating the first event
// of a stream captured from the real API server (a MODIFIED configmap, as
// the server sent it with the plugin's metadata-only Accept header), giving
// each copy its own name, UID and increasing RV.
func replayedStream(t testing.TB, n int) []byte {
	seed := strings.TrimSpace(strings.SplitN(string(recordedStream(t, "seed.jsonl")), "\n", 2)[0])
	var ev struct {
		Object struct {
			Metadata apiclient.ItemMeta `json:"metadata"`
		} `json:"object"`
	}
	if err := json.Unmarshal([]byte(seed), &ev); err != nil {
		t.Fatal(err)
	}
	m := ev.Object.Metadata
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		line := strings.Replace(seed, `"name":"`+m.Name+`"`, fmt.Sprintf(`"name":"cm-%d"`, i), 1)
		line = strings.Replace(line, `"uid":"`+m.UID+`"`, fmt.Sprintf(`"uid":"%s%012x"`, m.UID[:24], i), 1)
		line = strings.Replace(line, `"resourceVersion":"`+m.ResourceVersion+`"`, fmt.Sprintf(`"resourceVersion":"%d"`, 1000+i), 1)
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkWatchDecodeRenderJSON decodes and renders 20,000 events to JSON
// lines, as "watch -o json" does (target: at least 50,000 events/s).
func BenchmarkWatchDecodeRenderJSON(b *testing.B) {
	stream := replayedStream(b, benchEvents)
	p := NewPrinter(io.Discard, io.Discard, FormatJSON, true)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := watchstream.FromReader(bytes.NewReader(stream))
		tr := follow.NewTracker()
		n := 0
		for {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if err := p.WatchEvent(NewWatchEventRecord(ev, tr.Observe(ev.Type, ev.Object), "999")); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchEvents {
			b.Fatalf("decoded %d events, want %d", n, benchEvents)
		}
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
