package diagnose

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// MaxLineBytes is how much of one log line is read; the rest of a longer
// line is skipped, so a pathological line costs no more than a normal one.
const MaxLineBytes = 64 << 10

// maxFindingText is how much of a matching line a Finding keeps.
const maxFindingText = 300

// mergeWindow is how many lines a weak finding (a bare "(410)" or "code:
// 410") waits for the message that completes it: Python's ApiException
// prints the code, the reason and the body on separate lines, the Java
// client's V1Status dump puts code and message 3 lines apart.
const mergeWindow = 4

// Finding is one error found in a log.
type Finding struct {
	Line int    `json:"line"` // 1-based
	Text string `json:"text"` // the line (its first 300 bytes)
	Diagnosis
}

// ScanLog reads a whole log line by line (memory bounded by MaxLineBytes)
// and calls fn for every error it recognizes, in order. Lines are classified
// one by one, except that a line holding only a status code and the line
// that holds the message of the same error are reported once.
func ScanLog(r io.Reader, fn func(Finding)) error {
	_, err := scanLog(r, fn)
	return err
}

type logScanner struct {
	fn      func(Finding)
	pending *Finding // a weak finding waiting for its message
}

func scanLog(r io.Reader, fn func(Finding)) (int, error) {
	br := bufio.NewReaderSize(r, MaxLineBytes)
	sc := &logScanner{fn: fn}
	n := 0
	var long []byte
	for {
		line, err := readLine(br, &long)
		if len(line) > 0 || err == nil {
			n++
			sc.line(n, line)
		}
		if err != nil {
			sc.flush()
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
	}
}

// readLine returns the next line without its end of line, cut at
// MaxLineBytes; the slice is valid until the next read. The first
// MaxLineBytes of an over-long line are copied into *long (reused), and the
// rest of it is skipped.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		*long = append((*long)[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return *long, err
		}
		return *long, nil
	}
	line = bytes.TrimRight(line, "\r\n")
	return line, err
}

func (sc *logScanner) line(n int, line []byte) {
	if sc.pending != nil && n-sc.pending.Line > mergeWindow {
		sc.flush()
	}
	if !worthClassifying(line) {
		return
	}
	text := string(line)
	d := classifyText(text, Context{})
	if !d.Recognized() {
		return
	}
	f := Finding{Line: n, Text: clip(text), Diagnosis: d}
	weak := d.Confidence == ConfidenceLow || d.Kind == KindGone
	if sc.pending != nil {
		if compatible(*sc.pending, f) {
			if weak {
				sc.pending = mergeWeak(*sc.pending, f)
				return
			}
			sc.emit(completeWith(f, *sc.pending))
			sc.pending = nil
			return
		}
		sc.flush()
	}
	if weak {
		sc.pending = &f
		return
	}
	sc.emit(f)
}

func (sc *logScanner) flush() {
	if sc.pending != nil {
		sc.emit(*sc.pending)
		sc.pending = nil
	}
}

func (sc *logScanner) emit(f Finding) { sc.fn(f) }

// compatible reports whether f can be the rest of the weak finding w.
func compatible(w, f Finding) bool {
	if w.Code != 0 && f.Code != 0 && w.Code != f.Code {
		return false
	}
	return w.Class == f.Class || (w.Class == ClassExpired && f.Kind == KindInternalErrorAtCompaction) ||
		(w.Class == ClassOther && f.IsRVProblem())
}

// mergeWeak joins two weak parts of one error ("(410)" then "Reason: Gone").
func mergeWeak(w, f Finding) *Finding {
	out := w
	if out.Code == 0 {
		out.Code = f.Code
	}
	if out.Reason == "" {
		out.Reason = f.Reason
	}
	if out.Code == 410 && (out.Reason == "Expired" || out.Reason == "Gone") && out.Kind == KindGone {
		out.Confidence = ConfidenceMedium
	}
	if out.Source == "" {
		out.Source = f.Source
	}
	return &out
}

// completeWith gives the strong finding f what the weak one knew.
func completeWith(f, w Finding) Finding {
	if f.Code == 0 {
		f.Code = w.Code
	}
	if f.Reason == "" {
		f.Reason = w.Reason
	}
	if f.Source == "" {
		f.Source = w.Source
	}
	return f
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxFindingText {
		return s[:maxFindingText] + "…"
	}
	return s
}
