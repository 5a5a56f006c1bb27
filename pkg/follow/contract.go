package follow

import (
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The Watch contract, as every API server keeps it: a watch sends only
// objects the request asked for (its namespace, selectors and NAME), and
// after its initial state (if any) sends changes in RV order, each after
// the RV it started from. An event that breaks it is named on its own line
// and counted (Stats.ContractBreaches): the command then fails, as a list
// whose answer broke the List contract does (adversary try 19: events of
// other names under `watch cm a`, an event at RV 3 after RV 11, exit 0).

// contractFloor is the RV every next change of the open stream must be
// after (ok false: none is known, while the stream sends a state in key
// order).
type contractFloor struct {
	rv   uint64
	ok   bool
	what string // what set it, for the breach's words
}

// openFloor is the floor of a stream opened from start (an exact RV, or
// "" / "0" for a state first).
func (s *Session) openFloor(start string) {
	n, ok := rv.Parse(start)
	s.floor = contractFloor{rv: n, ok: ok && n > 0 && !s.inState, what: "the RV this watch started from"}
}

// breachOf says how the change m breaks the contract ("" when it does
// not), and moves the floor past it.
func (s *Session) breachOf(m apiclient.ItemMeta) string {
	if s.excludes == nil {
		s.excludes = s.Target.Matcher()
	}
	if why := s.excludes(m); why != "" {
		return "outside the request: " + why
	}
	n, ok := rv.Parse(m.ResourceVersion)
	if s.inState || !ok {
		return ""
	}
	if s.floor.ok && n <= s.floor.rv {
		return fmt.Sprintf("out of order: RV %d is not after RV %d (%s)", n, s.floor.rv, s.floor.what)
	}
	s.floor = contractFloor{rv: n, ok: true, what: "this stream's change before it"}
	return ""
}

// breached records one breach.
func (s *Session) breached(why string) {
	s.stats.ContractBreaches++
	if s.stats.FirstBreach == "" {
		s.stats.FirstBreach = text.Echo(why)
	}
}
