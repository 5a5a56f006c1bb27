package audit

import (
	"bufio"
	"compress/gzip"
	"io"
)

// Decompressed is br's content, decompressed when it starts with gzip's
// magic (logs rotated as .gz are read as they are, whatever their name),
// and whether it did: the one way every reader of a log (clients'
// sources, explain-error -f) tells gzip from text. A gzip header that
// does not parse is an error; a stream cut short or damaged further on
// is an error of the reads (DescribeEnd says it in words). What follows
// a whole member is read as gzip -d reads it (gzipMembers): another
// member, or zero bytes to the end, are the file's; anything else is an
// error of the reads.
func Decompressed(br *bufio.Reader) (io.Reader, bool, error) {
	magic, err := br.Peek(2)
	if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, false, nil
	}
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, true, err
	}
	gz.Multistream(false)
	return &gzipMembers{br: br, gz: gz}, true, nil
}

// gzipMembers reads the members of a gzip file one after another, as
// gzip -d does: after a whole member (its checksum and size checked)
// comes another member (gzip's magic: files concatenated, or written in
// parts), the end of the file, or zero bytes up to its end (the padding a
// tape, a block device or a copy tool leaves, which gzip -d ignores);
// anything else is gzip.ErrHeader (something appended, or damage), after
// every line before it. gzip.Reader's own multistream read took the
// zeros for a member's header: a whole log with padding after it was
// "ended early ... not gzip data", exit 2 (adversary try 23 F7).
type gzipMembers struct {
	br  *bufio.Reader
	gz  *gzip.Reader
	end error // once set, what every read returns
}

func (m *gzipMembers) Read(p []byte) (int, error) {
	for m.end == nil {
		n, err := m.gz.Read(p)
		if err != io.EOF {
			return n, err
		}
		m.end = m.next()
		if n > 0 {
			return n, nil
		}
	}
	return 0, m.end
}

// next starts the member that follows a whole one; io.EOF when the file
// ends there, or only zero bytes follow to its end.
func (m *gzipMembers) next() error {
	magic, err := m.br.Peek(2)
	switch {
	case len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		if err := m.gz.Reset(m.br); err != nil {
			return err
		}
		m.gz.Multistream(false)
		return nil
	case len(magic) == 1 && magic[0] == 0x1f && err == io.EOF:
		return io.ErrUnexpectedEOF // a member cut in its magic
	case len(magic) == 0:
		return err // the end of the file, or a read error
	}
	return m.zerosToEnd()
}

// zerosToEnd reads what is left of the file: io.EOF when it is zero
// bytes only, gzip.ErrHeader at the first other byte.
func (m *gzipMembers) zerosToEnd() error {
	for {
		b, err := m.br.Peek(m.br.Size())
		for _, c := range b {
			if c != 0 {
				return gzip.ErrHeader
			}
		}
		if _, derr := m.br.Discard(len(b)); derr != nil {
			return derr
		}
		if err != nil {
			return err // io.EOF: zeros to the end; or a read error
		}
	}
}
