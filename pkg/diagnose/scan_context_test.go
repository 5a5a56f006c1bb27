package diagnose

import (
	"context"
	"errors"
	"io"
	"reflect"
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
		// DeepEqual: a diagnosis holds pointers (its Request, its Type),
		// equal by what they point at.
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v\n got %+v\nwant %+v", name, err, got, want)
		}
	}
}

// A reader that never answers: cancelling the context ends the scan with
// what was read before, and the context's error. The context is cancelled
// when the scanner asks for more after the whole log was handed to it (the
// context reader reads r only when asked), so every line was scanned.
func TestSummarizeContextCancelled(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.WriteString(pw, mixedLog) }()
	r := &cancelWhenDrained{r: pr, want: len(mixedLog), cancel: cancel}
	s, err := SummarizeContext(ctx, r, 0)
	want, _ := Summarize(strings.NewReader(mixedLog), 0)
	if !errors.Is(err, context.Canceled) || s.Lines != want.Lines || s.Findings != want.Findings || len(s.Groups) != len(want.Groups) {
		t.Fatalf("err %v, summary %+v, want the %d lines read (%+v)", err, s, want.Lines, want)
	}
}

// cancelWhenDrained calls cancel on the first Read after want bytes were
// returned, then blocks in r like a terminal that stays open.
type cancelWhenDrained struct {
	r      io.Reader
	n      int
	want   int
	cancel func()
}

func (c *cancelWhenDrained) Read(p []byte) (int, error) {
	if c.n >= c.want {
		c.cancel()
	}
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
