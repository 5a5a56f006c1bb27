package diagnose

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const mixedLog = `I0101 10:00:00.000000       1 shared_informer.go:320] Caches are synced for pods
W0508 18:04:04.833010       1 reflector.go:302] k8s.io/client-go/tools/cache/reflector.go:98: watch of *v1.Endpoints ended with: too old resource version: 38203386 (38203932)
I0101 10:00:01.000000       1 controller.go:100] reconciled default/web
E0105 21:08:43.745893       1 reflector.go:178] k8s.io/client-go/tools/cache/reflector.go:125: Failed to list *v1.Pod: Timeout: Too large resource version: 74171625, current: 68292564
W0508 18:09:04.833010       1 reflector.go:302] k8s.io/client-go/tools/cache/reflector.go:98: watch of *v1.Endpoints ended with: too old resource version: 38203932 (38210000)
Traceback (most recent call last):
kubernetes.client.exceptions.ApiException: (410)
Reason: Gone
HTTP response headers: HTTPHeaderDict({'Content-Type': 'application/json'})
HTTP response body: b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided list is too old.","reason":"Expired","code":410}\n'
I0101 10:00:02.000000       1 controller.go:100] reconciled default/api took 410ms
(410)
Reason: Gone
I0101 10:00:03.000000       1 controller.go:100] done
`

func TestScanLogGroups(t *testing.T) {
	var found []Finding
	if err := ScanLog(strings.NewReader(mixedLog), func(f Finding) { found = append(found, f) }); err != nil {
		t.Fatal(err)
	}
	type want struct {
		line int
		kind string
	}
	wants := []want{{2, KindWatchCacheWindow}, {4, KindResourceVersionTooLarge}, {5, KindWatchCacheWindow}, {10, KindEtcdCompactedExactList}, {12, KindGone}}
	if len(found) != len(wants) {
		for _, f := range found {
			t.Logf("%d %s %s", f.Line, f.Kind, f.Text)
		}
		t.Fatalf("got %d findings, want %d", len(found), len(wants))
	}
	for i, w := range wants {
		if found[i].Line != w.line || found[i].Kind != w.kind {
			t.Errorf("finding %d: line %d %s, want line %d %s", i, found[i].Line, found[i].Kind, w.line, w.kind)
		}
	}
	// The Python exception is one finding, with the code of its first line.
	if found[3].Code != 410 {
		t.Errorf("merged Python finding has code %d", found[3].Code)
	}
	if found[4].Reason != "Gone" || found[4].Code != 410 || found[4].Confidence != ConfidenceMedium {
		t.Errorf("bare (410)/Reason: Gone = %+v", found[4])
	}

	s, err := Summarize(strings.NewReader(mixedLog), 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 14 || s.Findings != 5 || len(s.Groups) != 4 || s.Bytes != int64(len(mixedLog)) {
		t.Fatalf("summary: %d lines, %d findings, %d groups, %d bytes", s.Lines, s.Findings, len(s.Groups), s.Bytes)
	}
	g := s.Groups[0]
	if g.Kind != KindWatchCacheWindow || g.Count != 2 || g.FirstLine != 2 || g.LastLine != 5 || len(g.Lines) != 2 || g.MaxGap != "6068" {
		t.Errorf("group 0 = %+v", g)
	}
	if s.Groups[1].Kind != KindResourceVersionTooLarge || s.Groups[2].Kind != KindEtcdCompactedExactList || s.Groups[3].Kind != KindGone {
		t.Errorf("groups not in order of first appearance: %v %v %v", s.Groups[1].Kind, s.Groups[2].Kind, s.Groups[3].Kind)
	}
}

func TestScanLogLongLinesAndNoNewline(t *testing.T) {
	long := strings.Repeat("x", 3*MaxLineBytes) + " too old resource version: 1 (2)"
	text := "too old resource version: 5 (9)\n" + long + "\nTimeout: Too large resource version: 10, current: 9"
	s, err := Summarize(strings.NewReader(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	// The over-long line is read whole; the last line has no newline.
	if s.Lines != 3 || s.Findings != 3 || fmt.Sprint(s.Groups[0].Lines) != "[1 2]" || s.Groups[1].Lines[0] != 3 {
		t.Fatalf("summary = %+v", s)
	}
}

// TestScanLogLongLineErrorAnywhere puts one error at every offset around
// the piece boundaries of a long line (a controller-runtime JSON line with
// a huge object dump, as a real one can be): it is found once, with both
// numbers, wherever it falls.
func TestScanLogLongLineErrorAnywhere(t *testing.T) {
	const msg = `too old resource version: 214 (257)`
	offsets := []int{70000, MaxLineBytes - 10, MaxLineBytes - len(msg)/2, MaxLineBytes, MaxLineBytes - chunkOverlap - 5,
		MaxLineBytes - chunkOverlap + 3, 2*MaxLineBytes - chunkOverlap - len(msg)/2, 2*MaxLineBytes - 2*chunkOverlap + 1}
	for _, at := range offsets {
		line := `{"level":"error","msg":"Reconciler error","object":"` + strings.Repeat("a", at-63) + `","error":"` + msg + `"}` + strings.Repeat(" ", 100000)
		if i := strings.Index(line, msg); i != at {
			t.Fatalf("error at %d, want %d", i, at)
		}
		var found []Finding
		if err := ScanLog(strings.NewReader("ok\n"+line+"\nok\n"), func(f Finding) { found = append(found, f) }); err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].Line != 2 || found[0].RequestedResourceVersion != "214" || found[0].OldestResourceVersion != "257" ||
			!strings.Contains(found[0].Text, msg) {
			t.Errorf("error at byte %d: found %+v", at, found)
		}
	}
}

// TestScanLogLongLineMemoryFlat scans a 32 MiB line with no error and one
// with an error at its end: what is allocated does not grow with the line.
func TestScanLogLongLineMemoryFlat(t *testing.T) {
	allocated := func(r io.Reader) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n := 0
		if err := ScanLog(r, func(Finding) { n++ }); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	const size = 32 << 20
	plain := allocated(io.LimitReader(repeatReader('x'), size))
	tail := allocated(io.MultiReader(io.LimitReader(repeatReader('x'), size), strings.NewReader(" too old resource version: 1 (2)\n")))
	for name, got := range map[string]uint64{"plain": plain, "error at the end": tail} {
		if got > 1<<20 {
			t.Errorf("%s: %d bytes allocated to scan a %d-byte line", name, got, size)
		}
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestCollectorCapsLines(t *testing.T) {
	c := &Collector{MaxLinesPerGroup: 3}
	for i := 1; i <= 10; i++ {
		c.Add(Finding{Line: i, Diagnosis: FromText("too old resource version: 1 (2)")})
	}
	g := c.Summary().Groups[0]
	if g.Count != 10 || len(g.Lines) != 3 || !g.LinesTruncated || g.LastLine != 10 {
		t.Fatalf("group = %+v", g)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestScanLogReadError(t *testing.T) {
	if err := ScanLog(errReader{}, func(Finding) {}); err == nil {
		t.Fatal("want the read error")
	}
}

func TestScanLogEmpty(t *testing.T) {
	s, err := Summarize(strings.NewReader(""), 0)
	if err != nil || s.Lines != 0 || s.Recognized() || s.Groups == nil {
		t.Fatalf("empty = %+v, %v", s, err)
	}
}

func TestPrefilterFindsEveryAnchor(t *testing.T) {
	all := append(strongAnchors(), weakAnchors...)
	for i, a := range all {
		if mask := prefilter().scan([]byte("x " + a + " y")); mask&(1<<uint(i)) == 0 {
			t.Errorf("anchor %d %q not found (mask %b)", i, a, mask)
		}
	}
	// Overlapping and suffix matches ("Watch close" inside "Watch closed").
	if mask := prefilter().scan([]byte("Watch closed, too old resource version: 1")); mask == 0 {
		t.Error("overlapping anchors not found")
	}
	if mask := prefilter().scan([]byte("I0101 10:00:00 controller.go:150] Reconciled default/web")); mask != 0 {
		t.Errorf("ordinary line matched: %b", mask)
	}
}

// TestEveryPhraseIsAnAnchor reads the package's source: every constant
// named phrase* and every string of a package-level []string the matchers
// search (all but knownReasons and weakAnchors) must hold a strong prefilter
// anchor, so that no phrase can be classified by FromText but skipped by
// ScanLog.
func TestEveryPhraseIsAnAnchor(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	var lists [][]ast.Expr
	for _, f := range pkgs["diagnose"].Files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					switch v := vs.Values[i].(type) {
					case *ast.BasicLit:
						if gd.Tok == token.CONST && v.Kind == token.STRING {
							s, err := strconv.Unquote(v.Value)
							if err != nil {
								t.Fatal(err)
							}
							consts[name.Name] = s
						}
					case *ast.CompositeLit:
						if at, ok := v.Type.(*ast.ArrayType); ok && fmt.Sprint(at.Elt) == "string" &&
							name.Name != "knownReasons" && name.Name != "weakAnchors" {
							lists = append(lists, v.Elts)
						}
					}
				}
			}
		}
	}
	var phrases []string
	for name, v := range consts {
		if strings.HasPrefix(name, "phrase") {
			phrases = append(phrases, v)
		}
	}
	for _, l := range lists {
		for _, e := range l {
			switch e := e.(type) {
			case *ast.BasicLit:
				s, _ := strconv.Unquote(e.Value)
				phrases = append(phrases, s)
			case *ast.Ident:
				phrases = append(phrases, consts[e.Name])
			}
		}
	}
	if len(phrases) < 40 {
		t.Fatalf("only %d phrases found in the source", len(phrases))
	}
	for _, p := range phrases {
		if p == "" || prefilter().scan([]byte(p))&strongBits == 0 || !worthClassifying([]byte("x "+p+" y")) {
			t.Errorf("phrase %q holds no prefilter anchor", p)
		}
	}
}
