package serverinfo

import (
	"fmt"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// RVWentBack is a consistent list whose RV is below the RV a consistent
// list of the same resource gave at the same address before (within
// CacheTTL): one storage's RVs never go back (every API server over it
// answers a consistent list at or above the revision it read when asked),
// so another storage answers there now: another cluster, one created anew
// at that address, or an etcd restored from a backup. A cluster created
// anew with the same serving certificate (kept on disk) is told from the
// server it replaced only so.
type RVWentBack struct {
	// Server is the address (the cache's key), Resource the resource.
	Server, Resource string
	// RV is this run's list RV; Before the highest kept RV above it,
	// seen Ago.
	RV, Before uint64
	Ago        time.Duration
	// Dropped: the facts of the server this run read them from were kept
	// with an RV above RV, so they may be of the server that was there
	// before (the same certificate over another storage): read them again.
	Dropped bool
}

// Text says it, in one line.
func (e *RVWentBack) Text() string {
	s := fmt.Sprintf("the RV of this consistent list of %s, %d, is below RV %d, which a consistent list of it at %s gave %s ago: one storage's RVs never go back, so another storage answers at this address now (another cluster, one created anew, or an etcd restored from a backup); RVs from before (a controller's last RV) are not this storage's",
		text.Echo(e.Resource), e.RV, e.Before, text.Echo(e.Server), e.Ago.Round(time.Second))
	if e.Dropped {
		s += "; the server facts kept from then were dropped and read again"
	}
	return s
}

// SeenRV notes listRV, the RV of a consistent list of in.Resource that
// this run made at the cache's address, beside the facts in (Read's):
// every server's kept facts whose RV for the resource is above it are of
// another storage, and dropped, and the RV going back is returned (nil
// when it did not); in's own, when they were read without an RV yet, keep
// it. No extra request: the list was made anyway. Only resources this API
// server serves itself are noted (an aggregated API's RVs are its own).
func (c *Cache) SeenRV(in *Info, listRV string) *RVWentBack {
	n, ok := rv.Parse(listRV)
	if !c.usable() || in == nil || !ok || in.Resource == "" || in.Serves != Yes {
		return nil
	}
	f := c.read()
	var back *RVWentBack
	dropped := false
	kept := f.Servers[:0]
	for _, s := range f.Servers {
		r := s.Resources[in.Resource]
		if r == nil || r.ListRV <= n {
			kept = append(kept, s)
			continue
		}
		if back == nil || r.ListRV > back.Before {
			back = &RVWentBack{Server: c.Server, Resource: in.Resource, RV: n, Before: r.ListRV, Ago: c.now().Sub(r.ListRVAt)}
		}
		dropped = dropped || s.id() == in.id()
	}
	f.Servers = kept
	changed := back != nil
	if back != nil {
		back.Dropped = dropped
	}
	if s := f.find(in.id()); s != nil {
		if r := s.Resources[in.Resource]; r != nil && r.ListRV == 0 {
			r.ListRV, r.ListRVAt = n, c.now()
			changed = true
		}
	}
	if changed {
		c.write(f)
	}
	return back
}
