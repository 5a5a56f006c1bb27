package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// MaxSelectedLine bounds one line of /metrics read by ParseSelected: a
// Prometheus sample line is a name, its labels and a value; a megabyte is
// far past any real one, and a server that sends no newline cannot make
// the reader hold its whole answer as one line.
const MaxSelectedLine = 1 << 20

// ErrLineTooLong: a line of /metrics is longer than MaxSelectedLine.
var ErrLineTooLong = errors.New("a line of /metrics is longer than 1 MiB")

// ParseSelected parses only the families named in names out of a /metrics
// text, with the one parser (Parse), and reports every family name the
// text declared (its "# TYPE" lines, kept or not), so that a caller can tell whether a server
// filtered its answer. Lines are sorted out before parsing by their metric
// name: "# HELP NAME", "# TYPE NAME", or a sample "NAME{...} V" / "NAME V";
// a histogram's or summary's NAME_bucket, NAME_sum and NAME_count lines
// belong to NAME, and dropBuckets leaves out the _bucket lines (the sum and
// the count are all a rate needs, and the buckets are most of a histogram).
// Only the kept lines are held, so an old server that ignores the name[]
// filter of /metrics and sends everything costs the bytes, not the memory.
func ParseSelected(r io.Reader, names []string, dropBuckets bool) (Families, map[string]bool, error) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	seen := map[string]bool{}
	var kept bytes.Buffer
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			if name, bucket, ok := lineFamily(line, want); ok {
				if bytes.HasPrefix(line, []byte("# TYPE ")) {
					seen[name] = true
				}
				if want[name] && !(bucket && dropBuckets) {
					kept.Write(line)
					kept.WriteByte('\n')
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	f, err := Parse(&kept)
	if err != nil {
		return nil, nil, err
	}
	return f, seen, nil
}

// readLine reads one line without its newline, at most MaxSelectedLine
// bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		line = append(line, chunk...)
		if len(line) > MaxSelectedLine {
			return nil, ErrLineTooLong
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// lineFamily names the family a line belongs to; ok is false for a
// comment that is neither HELP nor TYPE. bucket: a NAME_bucket sample of
// a wanted NAME.
func lineFamily(line []byte, want map[string]bool) (name string, bucket, ok bool) {
	s := string(line)
	if strings.HasPrefix(s, "#") {
		f := strings.Fields(s)
		if len(f) >= 3 && (f[1] == "HELP" || f[1] == "TYPE") {
			return f[2], false, true
		}
		return "", false, false
	}
	end := strings.IndexAny(s, "{ \t")
	if end < 0 {
		end = len(s)
	}
	name = s[:end]
	if name == "" {
		return "", false, false
	}
	if want[name] {
		return name, false, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, found := strings.CutSuffix(name, suffix); found && want[base] {
			return base, suffix == "_bucket", true
		}
	}
	return name, false, true
}
