package watchstream

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// FromReader decodes a recorded watch stream (the body of a raw watch, one
// JSON event after another) as if it came from the server: for tests,
// benchmarks and replays of captured streams.
func FromReader(r io.Reader) *Stream {
	return newStream("replay", io.NopCloser(r), func() {})
}

// ReadAll decodes every event of a recorded watch stream, in order: for
// tests, benchmarks and replays, which want the whole stream at once.
func ReadAll(r io.Reader) ([]Event, error) {
	s := FromReader(r)
	var evs []Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, fmt.Errorf("event %d: %w", len(evs), err)
		}
		evs = append(evs, ev)
	}
}

// ReadFile is ReadAll of a recorded stream file (such as the captures under
// pkg/watchstream/testdata): for tests, benchmarks and replays.
func ReadFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	evs, err := ReadAll(f)
	if err != nil {
		return evs, fmt.Errorf("%s: %w", path, err)
	}
	return evs, nil
}
