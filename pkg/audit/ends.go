package audit

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// DescribeEnd says how a source that ended early ends, in words a person
// can act on.
func DescribeEnd(err error) string {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the gzip stream is cut short (the file was still being written or copied, or was truncated)"
	case errors.Is(err, gzip.ErrChecksum):
		return "the gzip data fails its checksum (the file is damaged)"
	case errors.Is(err, gzip.ErrHeader):
		return "what follows is not gzip data (a damaged file, or something appended to it)"
	case errors.As(err, &corrupt):
		return fmt.Sprintf("the gzip data is corrupt at compressed byte %d (the file is damaged)", int64(corrupt))
	}
	return "a read error: " + err.Error()
}
