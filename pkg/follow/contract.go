package follow

import (
	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// The Watch contract is judged by the one judge of a stream
// (watchstream.Contract, built for each stream the session opens): an
// event that breaks it is named on its own line and counted
// (Stats.ContractBreaches), and the command then fails, as a list whose
// answer broke the List contract does (adversary try 19: events of other
// names under `watch cm a`, an event at RV 3 after RV 11, exit 0;
// adversary try 20 #4: changes below a streaming list's end bookmark, a
// state newer than it, a change below a bookmark).

// inState reports the open stream sending an initial state (RV unset, 0,
// or a streaming list before its end bookmark): in key order, so neither
// its order nor its RVs say anything of a resume point.
func (s *Session) inState() bool { return s.contract != nil && s.contract.InState() }

// breached records one breach.
func (s *Session) breached(why string) {
	s.stats.ContractBreaches++
	if s.stats.FirstBreach == "" {
		s.stats.FirstBreach = text.Echo(why)
	}
}
