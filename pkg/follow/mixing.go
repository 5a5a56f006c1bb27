package follow

import (
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// mixingDetector notices signs that the answers of one run came from
// different API servers behind one address: each server has its own watch
// cache, so a list or a stream from a server that lags shows an RV older
// than one already seen, and a relist from a fresh server's RV sent to a
// lagging one gets 504 TooLarge.
type mixingDetector struct {
	highest uint64 // the highest RV any answer carried
	listed  bool   // a list succeeded at highest
	signs   []string
}

// seen records an RV an answer carried.
func (m *mixingDetector) seen(v string) {
	if n, ok := rv.Parse(v); ok && n > m.highest {
		m.highest, m.listed = n, false
	}
}

// listedAt records a successful list; a list RV below one already seen
// means this answer came from a server that is behind.
func (m *mixingDetector) listedAt(v string) string {
	n, why := rv.OfStorage(v)
	if why != "" {
		return "" // no RV of a storage ("0"): no order with the others
	}
	if n < m.highest {
		sign := fmt.Sprintf("the List's RV %d is older than RV %d seen before: likely answered by another API server, %s behind", n, m.highest, text.Count(m.highest-n, "RV"))
		m.signs = append(m.signs, sign)
		return sign
	}
	m.highest, m.listed = n, true
	return ""
}

// failure records a failed watch or list from lastRV.
func (m *mixingDetector) failure(f diagnose.Failure, lastRV string) string {
	n, ok := rv.Parse(lastRV)
	if f != diagnose.FailureTooLarge || !ok || n > m.highest || m.highest == 0 {
		return ""
	}
	sign := fmt.Sprintf("504 TooLarge for RV %d, an RV this run already got from the server: likely answered by another API server that is behind", n)
	m.signs = append(m.signs, sign)
	return sign
}
