package watchstream

import "io"

// FromReader decodes a recorded watch stream (the body of a raw watch, one
// JSON event after another) as if it came from the server: for tests,
// benchmarks and replays of captured streams.
func FromReader(r io.Reader) *Stream {
	return newStream("replay", io.NopCloser(r), func() {})
}
