package servers

import "github.com/watchrv/kubectl-watchrv/pkg/probe"

// Which read of a server failed first: the hint of its row names what
// that read needs, so that a server whose consistent list was answered
// (it reaches etcd) is not told it "may be cut off from etcd" when only
// its rv=0 list, which a watch cache answers from memory, had no answer
// (adversary try 22: that hint beside a row with CURRENT RV and OLDEST
// RV).

// Read names one read of a server's measure.
type Read string

const (
	// ReadConsistent is its consistent list (or the probe's first
	// request, which is one): it waits for etcd.
	ReadConsistent Read = "consistent list"
	// ReadWindow is a watch of its window search, after the consistent
	// list was answered.
	ReadWindow Read = "window search"
	// ReadCache is its rv=0 list, which its watch cache answers.
	ReadCache Read = "rv=0 list"
	// ReadNeither: neither its consistent list nor its rv=0 list had an
	// answer (a silent server), or it was not asked for that reason.
	ReadNeither Read = "consistent list and rv=0 list"
)

// FailedRead is the read whose failure is the server's Error ("" when it
// failed before any read: no client, not dialled again).
func (s *Server) FailedRead() Read { return s.failedRead }

// failAt records err as the server's failure, at read, when it is the
// first (fail keeps the first).
func (s *Server) failAt(read Read, err error) {
	if s.Error == "" {
		s.failedRead = read
	}
	s.fail(err)
	if probe.NotOneServers(err) {
		// Answers in breach of the contract, whichever read gave them:
		// no RV of this server is a number (the table's "?", out of
		// every verdict over servers), as probe's rows in breach give
		// none (adversary try 41 F1).
		s.CurrentRV, s.CurrentKnown = 0, false
		s.CacheRV, s.CacheKnown = 0, false
		s.Lag, s.LagKnown = 0, false
		s.Oldest, s.Width, s.WindowKnown = 0, 0, false
	}
}
