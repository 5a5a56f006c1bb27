package audit

import (
	"bytes"
	"context"
	"testing"
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
