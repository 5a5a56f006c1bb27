package diagnose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Read through the context reader, a log gives the same summary as read
// directly: no byte lost or read twice, whatever the reads' sizes.
func TestSummarizeContextSameAsSummarize(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	long := mixedLog + strings.Repeat("x", 3*MaxLineBytes) + " too old resource version: 5 (9)\n" + mixedLog
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(long) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(long)) },
		"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(long)) },
		"data+EOF": func() io.Reader { return iotest.DataErrReader(strings.NewReader(long)) },
	} {
		want, err := Summarize(r(), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SummarizeContext(ctx, r(), 0)
		if err != nil || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Fatalf("%s: %v\n got %+v\nwant %+v", name, err, got, want)
		}
	}
}

// A reader that never answers: cancelling the context ends the scan with
// what was read before, and the context's error.
func TestSummarizeContextCancelled(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.WriteString(pw, mixedLog) // returns once the scanner has read it all
		cancel()
	}()
	s, err := SummarizeContext(ctx, pr, 0)
	want, _ := Summarize(strings.NewReader(mixedLog), 0)
	if !errors.Is(err, context.Canceled) || s.Lines != want.Lines || s.Findings != want.Findings || len(s.Groups) != len(want.Groups) {
		t.Fatalf("err %v, summary %+v, want the %d lines read (%+v)", err, s, want.Lines, want)
	}
}
