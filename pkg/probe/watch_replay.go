package probe

import (
	"encoding/json"
	"io"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
)

// NewWatchStreamFromReader decodes a recorded watch stream (the body of a
// raw watch, one JSON event after another) as if it came from the server:
// for tests, benchmarks and replays of captured streams.
func NewWatchStreamFromReader(r io.Reader) *WatchStream {
	cr := &countio.Reader{R: r}
	return &WatchStream{URL: "replay", body: io.NopCloser(r), cr: cr, dec: json.NewDecoder(cr), cancel: func() {}}
}
