package diagnose

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxLineBytes is the read buffer: a line up to this long is classified
// as it is; a longer one is read whole, in pieces of this size, each one
// classified together with the last chunkOverlap bytes before it, so memory
// stays flat whatever the line length.
const MaxLineBytes = 64 << 10

// chunkOverlap is how much of the previous piece of an over-long line is
// read again with the next one: far more than any error message, so an
// error cut by a piece boundary is seen whole in the next chunk.
const chunkOverlap = 4 << 10

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
	// src is the text the finding was read from (its line, or the chunk
	// of a long one), status the Status of a block: read again with the
	// request another line names (completeWith).
	src    string
	status *metav1.Status
}

// ScanLog reads a whole log line by line (memory bounded by MaxLineBytes,
// however long a line is) and calls fn for every error it recognizes, in
// order. Lines are classified one by one, except that a line holding only a
// status code and the line that holds the message of the same error are
// reported once.
func ScanLog(r io.Reader, fn func(Finding)) error {
	_, err := scanLog(r, fn)
	return err
}

type logScanner struct {
	ctx     Context // what the caller knows of the request (one pasted text's)
	fn      func(Finding)
	pending *Finding // a weak finding waiting for its message
	// held is the last strong finding, reported once mergeWindow lines
	// passed: a weak line of the same error may still follow it (the
	// Java client's V1Status dump prints its reason after its message).
	held *Finding
	// stream is the watch request a line before streamLine named,
	// answered 200 OK: an error after it that names no request of its
	// own came in its stream (a watch's 410 is an ERROR event in a 200).
	stream     *Request
	streamLine int
	chunk      []byte // an over-long line's overlap and current piece (reused)
	block      jsonBlock
	// echo is the Status a block closed with on line echoLine: kubectl
	// prints it again on the next line ("Error from server (Timeout):
	// ..."), the same error.
	echo     *Finding
	echoLine int
}

func scanLog(r io.Reader, fn func(Finding)) (int, error) {
	return (&logScanner{fn: fn}).scan(r)
}

// scan reads r line by line, and reports each finding to sc.fn.
func (sc *logScanner) scan(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(&lineEnds{r: r}, MaxLineBytes)
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			n++
			err = sc.longLine(n, br, line)
		case len(line) > 0 || err == nil:
			n++
			text := bytes.TrimRight(line, "\r\n")
			f, ok := find(sc.ctx, n, text, true, false)
			if !ok {
				if r := watchAnswered(text); r != nil {
					sc.stream, sc.streamLine = r, n
				}
			}
			sc.line(n, text, f, ok)
		}
		if err != nil {
			sc.release(n)
			sc.flush()
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
	}
}

// lineEnds reads r with every line end made a LF: a lone CR ends a line
// as LF and CRLF do (adversary try 52 F2: a text with CR-only line ends
// was one line, its 200 OK given to another request's error).
type lineEnds struct {
	r  io.Reader
	cr bool // the last byte read was a CR (made a LF): a LF right after it is dropped
}

func (l *lineEnds) Read(p []byte) (int, error) {
	for {
		n, err := l.r.Read(p)
		out := 0
		for _, b := range p[:n] {
			switch {
			case b == '\r':
				p[out] = '\n'
				out++
				l.cr = true
				continue
			case b == '\n' && l.cr:
			default:
				p[out] = b
				out++
			}
			l.cr = false
		}
		if out > 0 || err != nil || n == 0 {
			return out, err
		}
	}
}

// longLine reads the rest of line n, which starts with first, in pieces
// of MaxLineBytes, and reports the first error found in it (a strong one
// if there is one). Its error is the read error that ended the line, nil
// after its newline.
func (sc *logScanner) longLine(n int, br *bufio.Reader, first []byte) error {
	sc.chunk = append(sc.chunk[:0], first...)
	var found *Finding
	for {
		piece, err := br.ReadSlice('\n')
		more := errors.Is(err, bufio.ErrBufferFull)
		if found == nil || found.Confidence == ConfidenceLow {
			// The chunk is classified before the next piece is added.
			if f, ok := find(sc.ctx, n, sc.chunk, false, true); ok && (found == nil || f.Confidence != ConfidenceLow) {
				found = &f
			}
		}
		keep := min(len(sc.chunk), chunkOverlap)
		copy(sc.chunk, sc.chunk[len(sc.chunk)-keep:])
		sc.chunk = append(sc.chunk[:keep], piece...)
		if more {
			continue
		}
		sc.chunk = bytes.TrimRight(sc.chunk, "\r\n")
		if found == nil || found.Confidence == ConfidenceLow {
			if f, ok := find(sc.ctx, n, sc.chunk, true, true); ok && (found == nil || f.Confidence != ConfidenceLow) {
				found = &f
			}
		}
		sc.release(n) // no Status spans a line this long
		if found != nil {
			sc.add(*found)
		} else {
			sc.expire(n)
		}
		return err
	}
}

// find classifies one line, or one chunk of a long line. A chunk that
// is not the line's last one leaves an error that starts in its last
// chunkOverlap bytes to the next chunk, which holds it whole.
func find(ctx Context, n int, line []byte, last, long bool) (Finding, bool) {
	if !worthClassifying(line) {
		return Finding{}, false
	}
	text := string(line)
	d := classifyText(text, ctx)
	if !d.Recognized() {
		return Finding{}, false
	}
	at := -1
	if d.Message != "" {
		at = strings.Index(text, d.Message)
	}
	if !last && at >= len(text)-chunkOverlap {
		return Finding{}, false
	}
	shown := text
	if long && at > 100 {
		// Show the error, not the start of a huge line.
		shown = "…" + text[at-100:]
	}
	return Finding{Line: n, Text: clip(shown), Diagnosis: d, src: text}, true
}

// line takes line n, and its finding if it has one, through the JSON
// object the lines may be printing (jsonBlock).
func (sc *logScanner) line(n int, text []byte, f Finding, ok bool) {
	if sc.block.start == 0 {
		sc.block.open(n, text)
	} else if closed, over := sc.block.feed(n, text); closed || over {
		if ok {
			sc.block.held = append(sc.block.held, f)
		}
		if st, isStatus := sc.block.status(sc.ctx); closed && isStatus {
			sc.block.reset()
			sc.add(st)
			sc.echo, sc.echoLine = &st, n
			return
		}
		sc.release(n)
		return
	}
	if sc.block.start != 0 {
		if ok {
			sc.block.held = append(sc.block.held, f)
		}
		return
	}
	echoed := sc.echo != nil && n == sc.echoLine+1 && ok && f.Confidence != ConfidenceLow &&
		f.Class == sc.echo.Class && f.Message == sc.echo.Message
	sc.echo = nil
	switch {
	case echoed:
		sc.expire(n)
	case ok:
		sc.add(f)
	default:
		sc.expire(n)
	}
}

// release gives back the findings of a block that is no Status, line by
// line as they were found.
func (sc *logScanner) release(n int) {
	if sc.block.start == 0 {
		return
	}
	for _, h := range sc.block.reset() {
		sc.add(h)
	}
	sc.expire(n)
}

// expire reports a weak finding that waited too long for its message.
func (sc *logScanner) expire(n int) {
	if sc.pending != nil && n-sc.pending.Line > mergeWindow {
		sc.flush()
	}
	if sc.held != nil && n-sc.held.Line > mergeWindow {
		sc.report(nil)
	}
}

// report reports the held strong finding, then f (nil: none); a strong
// f is held in its turn.
func (sc *logScanner) report(f *Finding) {
	if sc.held != nil {
		sc.fn(*sc.held)
		sc.held = nil
	}
	if f == nil {
		return
	}
	if f.Confidence == ConfidenceLow || f.Kind == KindGone {
		sc.fn(*f)
		return
	}
	sc.held = f
}

// tail reports whether the weak finding w, found after the strong one s,
// is the rest of s: a line that names no request of its own and gives s
// the reason it lacks, with s's code or none (the Java client's V1Status
// dump: "code: 410", "message: too old resource version: ...", then
// "reason: Expired").
func tail(s, w Finding) bool {
	return w.Request == nil && w.RequestUnread == "" && s.Reason == "" && w.Reason != "" &&
		(w.Code == 0 || w.Code == s.Code) && compatible(w, s)
}

// add records a finding, joining a weak one with the message that completes it.
func (sc *logScanner) add(f Finding) {
	sc.expire(f.Line)
	if sc.stream != nil && f.Line-sc.streamLine <= mergeWindow && f.Line > sc.streamLine &&
		(f.Operation == "" || f.Operation == OpWatch || f.Operation == OpStreamingList) && typeFits(f.Type, sc.stream) {
		f = rereadWith(f, sc.stream, sc.ctx)
		sc.stream = nil
	}
	weak := f.Confidence == ConfidenceLow || f.Kind == KindGone
	if weak && sc.pending == nil && sc.held != nil && tail(*sc.held, f) {
		h := completeWith(*sc.held, f, sc.ctx)
		sc.held = &h
		return
	}
	if sc.pending != nil {
		if compatible(*sc.pending, f) {
			if weak && (f.Kind == KindGone || sc.pending.Kind != KindGone) {
				sc.pending = mergeWeak(*sc.pending, f)
				return
			}
			if weak {
				// A message the bare code's line lacked, told at low
				// confidence (its numbers disagree, its wording is cut):
				// it is the error, with the code.
				c := completeWith(f, *sc.pending, sc.ctx)
				sc.pending = &c
				return
			}
			c := completeWith(f, *sc.pending, sc.ctx)
			sc.pending = nil
			sc.report(&c)
			return
		}
		sc.flush()
	}
	if weak {
		sc.report(nil)
		sc.pending = &f
		return
	}
	sc.report(&f)
}

// flush reports what is held and what waits.
func (sc *logScanner) flush() {
	sc.report(nil)
	if sc.pending != nil {
		sc.fn(*sc.pending)
		sc.pending = nil
	}
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxFindingText {
		return s[:maxFindingText] + "…"
	}
	return s
}
