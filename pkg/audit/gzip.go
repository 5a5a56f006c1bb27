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
// is an error of the reads (DescribeEnd says it in words).
func Decompressed(br *bufio.Reader) (io.Reader, bool, error) {
	magic, err := br.Peek(2)
	if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, false, nil
	}
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, true, err
	}
	return gz, true, nil
}
