package clients

import (
	"sort"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// Report closes the analysis and builds the report: clients ranked by the
// load they cause, each with its resources (most lists first) and patterns.
func (a *Analyzer) Report(sources []string, st audit.Stats) Report {
	a.Close()
	r := Report{
		Sources: sources, Lines: st.Lines, Events: st.Events, Wrapped: st.Wrapped, Unreadable: st.Unreadable,
		Input:    Input{Duplicates: st.Duplicates, Reordered: st.Reordered, Late: st.Late, Sorted: st.Sorted, Cut: st.Cut, Interrupted: st.Interrupted},
		Requests: a.requests, From: a.from, To: a.to, Levels: a.levels,
		AuditIDCollisions: a.open.collisions, OpenDropped: a.open.dropped,
		WatchCache: a.cache.mode, WatchCacheSizes: a.cache.sizes,
		Reads: readRules(a.v, a.cache), Clients: []Client{}, Herds: a.herd.herds,
		HerdsFolded: a.herd.folded,
	}
	if len(r.WatchCacheSizes) == 0 {
		r.WatchCacheSizes = nil
	}
	for res := range r.WatchCacheSizes {
		if !a.sizesMatched[res] {
			r.SizesUnmatched = append(r.SizesUnmatched, res)
		}
	}
	sort.Strings(r.SizesUnmatched)
	if a.v.known {
		r.ServerVersion = a.o.ServerVersion
	}
	for _, b := range st.Examples {
		r.BadLines = append(r.BadLines, BadLine(b))
	}
	if r.Herds == nil {
		r.Herds = []Pattern{}
	}
	type ranked struct {
		c  Client
		st *clientState
	}
	var all []ranked
	for _, c := range a.clients {
		cl := c.key.client()
		cl.Patterns = []Pattern{}
		cl.Resources = resources(c, &cl.Totals, &r.Open)
		for name, rs := range c.resources {
			cl.Patterns = append(cl.Patterns, rs.patterns(cl.Name(), name)...)
		}
		sort.Slice(cl.Patterns, func(i, j int) bool {
			if cl.Patterns[i].Name != cl.Patterns[j].Name {
				return cl.Patterns[i].Name < cl.Patterns[j].Name
			}
			return cl.Patterns[i].Resource < cl.Patterns[j].Resource
		})
		all = append(all, ranked{cl, c})
	}
	if a.fold != nil {
		f := &Folded{MaxClients: a.o.MaxClients}
		f.Clients, f.ClientsAtLeast = a.folded.count()
		for k := range a.clients {
			if a.folded.has(k) {
				f.SeenAgain++
			}
		}
		f.Resources = resources(a.fold, &f.Totals, &r.Open)
		r.Folded = f
	}
	sort.Slice(all, func(i, j int) bool {
		return heavier(all[i].c.Totals, all[j].c.Totals, all[i].c.Name(), all[j].c.Name())
	})
	states := make([]*clientState, len(all))
	for i, x := range all {
		r.Clients = append(r.Clients, x.c)
		states[i] = x.st
	}
	r.Timeline = a.timeline(r.Clients, states)
	return r
}

// resources lists c's resources, heaviest first, adding their totals to
// t and their open watches to open.
func resources(c *clientState, t *Totals, open *int64) []Resource {
	out := []Resource{}
	for name, rs := range c.resources {
		out = append(out, Resource{Resource: name, Totals: rs.totals})
		t.add(rs.totals)
		*open += rs.totals.Watches.Open
	}
	sort.Slice(out, func(i, j int) bool {
		return heavier(out[i].Totals, out[j].Totals, out[i].Resource, out[j].Resource)
	})
	return out
}

// heavier ranks by load: lists that reach storage, then objects returned
// (where the level records them), then lists (pages included), then
// requests; the name breaks ties so that the order is stable.
func heavier(a, b Totals, an, bn string) bool {
	if a.StorageLists != b.StorageLists {
		return a.StorageLists > b.StorageLists
	}
	ao, bo := int64(0), int64(0)
	if a.Objects != nil {
		ao = *a.Objects
	}
	if b.Objects != nil {
		bo = *b.Objects
	}
	if ao != bo {
		return ao > bo
	}
	if al, bl := a.Lists.Total+a.Lists.Continue, b.Lists.Total+b.Lists.Continue; al != bl {
		return al > bl
	}
	if a.Requests != b.Requests {
		return a.Requests > b.Requests
	}
	return an < bn
}

func (t *Totals) add(o Totals) {
	t.Requests += o.Requests
	t.Gets += o.Gets
	t.Other += o.Other
	t.StorageLists += o.StorageLists
	t.StorageUnknown += o.StorageUnknown
	if o.Objects != nil {
		if t.Objects == nil {
			t.Objects = new(int64)
		}
		*t.Objects += *o.Objects
	}
	t.Codes.Expired += o.Codes.Expired
	t.Codes.TooLarge += o.Codes.TooLarge
	t.Codes.Throttled += o.Codes.Throttled
	t.Codes.Server += o.Codes.Server
	l, ol := &t.Lists, o.Lists
	l.Total += ol.Total
	l.Unset += ol.Unset
	l.Zero += ol.Zero
	l.Exact += ol.Exact
	l.NotOlderThan += ol.NotOlderThan
	l.Limit += ol.Limit
	l.Continue += ol.Continue
	w, ow := &t.Watches, o.Watches
	prevEnded, oEnded := w.Timed, ow.Timed
	if oEnded > 0 {
		if prevEnded == 0 || ow.MinSeconds < w.MinSeconds {
			w.MinSeconds = ow.MinSeconds
		}
		if ow.MaxSeconds > w.MaxSeconds {
			w.MaxSeconds = ow.MaxSeconds
		}
		w.MeanSeconds = (w.MeanSeconds*float64(prevEnded) + ow.MeanSeconds*float64(oEnded)) / float64(prevEnded+oEnded)
	}
	w.Total += ow.Total
	w.Unset += ow.Unset
	w.Zero += ow.Zero
	w.Exact += ow.Exact
	w.Streaming += ow.Streaming
	w.StateAndChanges += ow.StateAndChanges
	w.ChangesOnly += ow.ChangesOnly
	w.TimedOut += ow.TimedOut
	w.Early += ow.Early
	w.AtOnce += ow.AtOnce
	w.Error += ow.Error
	w.Open += ow.Open
	w.LifetimeUnknown += ow.LifetimeUnknown
	w.Timed += ow.Timed
}
