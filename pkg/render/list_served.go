package render

import (
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// span is a count known to lie between lo and hi.
type span struct{ lo, hi int }

func (s *span) add(lo, hi int) { s.lo, s.hi = s.lo+lo, s.hi+hi }

func (s span) known() *int {
	if s.lo != s.hi {
		return nil
	}
	n := s.lo
	return &n
}

// servedBy counts the list requests storage and the watch cache served, by
// the rules: a page of a source not known here may be either; the watch
// cache's current-RV list (RVFromStorageList) goes to storage once per
// first page, whoever serves that page (storage serves it, or the cache
// after asking storage); a request whose read is not known (n.Unknown) may
// have been served by either, or by neither.
func servedBy(sv serverinfo.Served, n listing.PageRequests) *ListServedBy {
	var st, ca span
	st.add(0, n.Unknown)
	ca.add(0, n.Unknown)
	for i, part := range []struct {
		from  serverinfo.Server
		pages int
	}{{sv.FirstFrom, n.First}, {sv.ContinueFrom, n.Continues}} {
		n := part.pages
		switch part.from {
		case serverinfo.ByStorage:
			st.add(n, n)
		case serverinfo.ByWatchCache:
			ca.add(n, n)
			if i == 0 && sv.RVFromStorageList {
				st.add(n, n)
			}
		default:
			ca.add(0, n)
			if i == 0 && sv.RVFromStorageList {
				st.add(n, n) // storage serves the page, or the cache's RV read
			} else {
				st.add(0, n)
			}
		}
	}
	return &ListServedBy{Served: sv, StorageRequests: st.known(), CacheRequests: ca.known()}
}
