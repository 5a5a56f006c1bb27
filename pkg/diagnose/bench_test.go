package diagnose

import (
	"io"
	"strconv"
	"strings"
	"testing"
)

// logGen generates a log of about size bytes, line by line, without holding
// it in memory: 99% ordinary controller and client-go lines (some of them
// mention timeouts, codes, limits and watches without being errors), 1%
// resourceVersion errors in the forms of messages_test.go.
type logGen struct {
	size, done int64
	line       int
	buf        []byte // the current line
	off        int    // how much of it was read
}

var ordinary = []string{
	`I0101 10:00:00.000000       1 controller.go:150] "Reconciled" controller="deployment" namespace="default" name="web-`,
	`I0101 10:00:00.000000       1 shared_informer.go:320] Caches are synced for endpoint slice config `,
	`{"level":"info","ts":"2026-01-01T10:00:00Z","logger":"controller-runtime.metrics","msg":"Starting metrics server","bindAddress":":8080","worker":`,
	`I0101 10:00:00.000000       1 round_trippers.go:632] "Response" verb="GET" url="https://10.0.0.1/api/v1/pods?limit=500" status="200 OK" milliseconds=`,
	`I0101 10:00:00.000000       1 leaderelection.go:258] successfully acquired lease kube-system/kube-controller-manager, timeout 15s, code path `,
	`2026-01-01T10:00:00.000Z INFO  [main] request completed path=/healthz status=200 duration_ms=`,
	`I0101 10:00:00.000000       1 reflector.go:376] Caches populated for *v1.Pod from k8s.io/client-go/informers/factory.go:160 items=`,
	`level=info ts=2026-01-01T10:00:00Z caller=main.go:42 msg="watch started" resource=pods resourceVersion=`,
}

var rvErrors = func() []string {
	var out []string
	for _, s := range samples {
		if s.class != ClassUnrecognized && !strings.Contains(s.text, "\n") {
			out = append(out, s.text)
		}
	}
	return out
}()

func (g *logGen) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if g.off == len(g.buf) {
			if g.done >= g.size {
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
			g.line++
			if g.line%100 == 0 {
				g.buf = append(g.buf[:0], rvErrors[(g.line/100)%len(rvErrors)]...)
			} else {
				g.buf = append(g.buf[:0], ordinary[g.line%len(ordinary)]...)
				g.buf = strconv.AppendInt(g.buf, int64(g.line), 10)
			}
			g.buf = append(g.buf, '\n')
			g.off = 0
			g.done += int64(len(g.buf))
		}
		c := copy(p[n:], g.buf[g.off:])
		n += c
		g.off += c
	}
	return n, nil
}

// BenchmarkScanLog scans a generated 100 MB log with 1% RV errors; the MB/s
// column is the scan throughput.
func BenchmarkScanLog(b *testing.B) {
	const size = 100 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		findings := 0
		g := &logGen{size: size}
		if err := ScanLog(g, func(Finding) { findings++ }); err != nil {
			b.Fatal(err)
		}
		if lines := g.line; findings < lines/100-1 {
			b.Fatalf("%d findings in %d lines", findings, lines)
		}
	}
}

func TestLogGenFindsEveryError(t *testing.T) {
	g := &logGen{size: 1 << 20}
	s, err := Summarize(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Findings != g.line/100 || int64(s.Bytes) < 1<<20 {
		t.Fatalf("%d findings in %d lines (%d bytes), want %d", s.Findings, g.line, s.Bytes, g.line/100)
	}
}
