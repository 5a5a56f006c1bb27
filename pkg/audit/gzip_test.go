package audit

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

// Decompressed reads what follows a whole gzip member as gzip -d does
// (adversary try 23 F7: a whole log with zero padding after it, as a tape,
// a block device or a copy tool leaves, which gzip -d decompresses, was
// "ended early after 3 lines: what follows is not gzip data", exit 2):
// another member (concatenated files) is read on, zero bytes to the end
// are the end, and anything else (something appended, damage) is still
// the error DescribeEnd words, after all that came before it. Its readers
// (explain-error -f, clients' sources, their sorted re-reads) all read
// through it; TestReadCutGzip reads the same files as clients does.
func TestGzipReadsToTheEndGzipDReadsTo(t *testing.T) {
	lines := recordedLines(t)
	first, second := join(lines[:10]), join(lines[10:20])
	one, two := gz(first), gz(second)
	both := slices.Concat(first, second)
	zeros := func(n int) []byte { return make([]byte, n) }
	for _, c := range []struct {
		name string
		data []byte
		want []byte
		end  string // DescribeEnd of the error; "" for none
	}{
		{"one member", one, first, ""},
		{"padded with one zero", slices.Concat(one, zeros(1)), first, ""},
		{"padded with zeros", slices.Concat(one, zeros(100)), first, ""},
		{"padded past the read buffer", slices.Concat(one, zeros(3*readBuf+7)), first, ""},
		{"two members", slices.Concat(one, two), both, ""},
		{"two members and an empty one", slices.Concat(one, gz(nil), two), both, ""},
		{"two members, padded", slices.Concat(one, two, zeros(512)), both, ""},
		{"something appended", slices.Concat(one, []byte("garbage after the stream")), first, "not gzip data"},
		{"zeros, then something", slices.Concat(one, zeros(64), []byte{7}), first, "not gzip data"},
		{"zeros, then a member", slices.Concat(one, zeros(64), two), first, "not gzip data"},
		{"a member cut in its magic", slices.Concat(one, []byte{0x1f}), first, "cut short"},
		{"a second member cut short", slices.Concat(one, two[:len(two)/2]), nil, "cut short"},
		{"cut short", one[:len(one)/2], nil, "cut short"},
		{"damaged", slices.Concat(one[:len(one)-8], []byte{1, 2, 3, 4}, one[len(one)-4:]), nil, "checksum"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, isGzip, err := Decompressed(bufio.NewReaderSize(bytes.NewReader(c.data), readBuf))
			if err != nil || !isGzip {
				t.Fatalf("gzip %v, err %v", isGzip, err)
			}
			got, err := io.ReadAll(r)
			end := ""
			if err != nil {
				end = DescribeEnd(err)
			}
			if (c.end == "") != (err == nil) || !strings.Contains(end, c.end) {
				t.Errorf("ends %q (%v), want %q", end, err, c.end)
			}
			if c.want != nil && !bytes.Equal(got, c.want) {
				t.Errorf("%d bytes read, want the %d of the members", len(got), len(c.want))
			}
			if c.want == nil && !bytes.HasPrefix(first, got) && !bytes.HasPrefix(both, got) {
				t.Errorf("%d bytes read that are not the members' start", len(got))
			}
		})
	}
}

// clients reads a padded and a concatenated log whole, as gzip -d does,
// sorted re-reads included (readAll restarts), with no cut.
func TestReadPaddedAndConcatenatedGzip(t *testing.T) {
	lines := recordedLines(t)
	one, two := gz(join(lines[:10])), gz(join(lines[10:]))
	for name, data := range map[string][]byte{
		"padded":       slices.Concat(one, make([]byte, 4096)),
		"concatenated": slices.Concat(one, two),
		"both":         slices.Concat(one, two, make([]byte, 300)),
	} {
		t.Run(name, func(t *testing.T) {
			want := len(lines)
			if name == "padded" {
				want = 10
			}
			got, st := readAll(t, Options{}, file("a.log.gz", data))
			if len(st.Cut) != 0 || len(got) != want {
				t.Errorf("%d events, cut %+v; want %d and no cut", len(got), st.Cut, want)
			}
		})
	}
}
