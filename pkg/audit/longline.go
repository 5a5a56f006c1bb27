package audit

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// longLine reads the rest of a line longer than the read buffer (chunk is
// its first part, err what reading it returned) and decodes it: whole up
// to gatherBytes (holding one of the pipeline's gather slots), else in one
// pass (fastDecodeFrom), keeping only the fields an Event has. A line
// longer than MaxLineBytes is counted and not decoded. eof reports the end
// of the source (the line had no newline); a read error is in s.err.
func (s *stream) longLine(br *bufio.Reader, chunk []byte, err error, line, off int64, o *Options, p *pipeline) (pb *batch, eof bool) {
	pb = &batch{first: line, offset: off, pre: true, done: closed}
	pb.lines = 1
	lr := &lineReader{br: br, pending: chunk, err: err}
	p.gather <- struct{}{}
	defer func() { <-p.gather }()
	buf := make([]byte, 0, 4*readBuf)
	for len(buf) < gatherBytes && lr.more() {
		n := min(len(lr.pending), gatherBytes-len(buf))
		buf = append(buf, lr.pending[:n]...)
		lr.take(n)
	}
	var e Event
	var reason string
	wrapped := false
	if !lr.more() {
		// Whole: every form Decode reads.
		if lr.size > int64(o.MaxLineBytes) {
			reason = ReasonTooLong
		} else if line := bytes.TrimSpace(buf); len(line) > 0 {
			wrapped, reason = Decode(line, &e)
		} else {
			pb.lines = 0
		}
	} else {
		// Too long to hold: the log backend's form, in one pass.
		if fastDecodeFrom(lr, buf, &e) && e.isEvent() {
			reason = e.finish()
		} else {
			reason = ReasonLongNotPlain
		}
		for lr.more() {
			lr.take(len(lr.pending))
		}
		if lr.size > int64(o.MaxLineBytes) {
			reason = ReasonTooLong
		}
	}
	pb.size = lr.size
	pb.result(&e, line, wrapped, reason)
	if lr.err != nil && !errors.Is(lr.err, io.EOF) {
		s.err = lr.err
	}
	return pb, lr.err != nil
}

// lineReader reads what is left of one line from br: the bytes up to and
// including its newline, then io.EOF (for a scanner: the line's end).
type lineReader struct {
	br      *bufio.Reader
	pending []byte // read from br, not yet taken
	err     error  // br's error after pending: ErrBufferFull, nil (newline), EOF or a failure
	size    int64  // bytes taken so far
	ended   bool
}

// more makes pending non-empty; false at the line's end.
func (l *lineReader) more() bool {
	for len(l.pending) == 0 {
		if l.ended || !errors.Is(l.err, bufio.ErrBufferFull) {
			l.ended = true
			return false
		}
		l.pending, l.err = l.br.ReadSlice('\n')
	}
	return true
}

func (l *lineReader) take(n int) {
	l.pending = l.pending[n:]
	l.size += int64(n)
}

func (l *lineReader) Read(p []byte) (int, error) {
	if !l.more() {
		return 0, io.EOF
	}
	n := copy(p, l.pending)
	l.take(n)
	return n, nil
}
