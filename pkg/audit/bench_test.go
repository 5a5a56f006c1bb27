package audit

import (
	"bytes"
	"context"
	"io"
	"runtime/metrics"
	"testing"
	"time"
)

// BenchmarkRead reads ~32 MiB of the recorded real lines (repeated) with
// the default workers; MB/s is of input.
func BenchmarkRead(b *testing.B) {
	lines := recordedLines(b)
	one := join(lines)
	data := bytes.Repeat(one, (32<<20)/len(one)+1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if _, err := Read(context.Background(), []Source{{Name: "bench", R: bytes.NewReader(data)}}, Options{}, func(*Event) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode is one goroutine decoding the recorded lines.
func BenchmarkDecode(b *testing.B) {
	lines := recordedLines(b)
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var e Event
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if _, r := Decode(l, &e); r != "" {
				b.Fatal(r)
			}
		}
	}
}

// peakHeap samples the live heap every few milliseconds while run runs and
// reports its peak (MiB): what a memory target of a read is about.
func peakHeap(b *testing.B, run func()) {
	b.Helper()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	run()
	close(done)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// BenchmarkReadLongLines reads 4 RequestResponse list lines of 64 MiB
// each (a recorded list, its item repeated; generated as it is read): the
// heap's peak stays a few MiB, not a line (issue 25 item 5: 10 lines of
// 250 MiB peaked at 2.2 GB RSS).
func BenchmarkReadLongLines(b *testing.B) {
	l := recordedList(b)
	n := l.items(64 << 20)
	b.SetBytes(4 * 64 << 20)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var srcs []io.Reader
		for k := 0; k < 4; k++ {
			srcs = append(srcs, l.reader(n))
		}
		peakHeap(b, func() {
			st, err := Read(context.Background(), []Source{{Name: "bench", R: io.MultiReader(srcs...)}}, Options{}, func(*Event) error { return nil })
			if err != nil || st.Events != 4 {
				b.Fatalf("%v: %d events", err, st.Events)
			}
		})
	}
}
