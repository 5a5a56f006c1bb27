package clients

import (
	"sort"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// Report closes the analysis and builds the report: clients ranked by the
// load they cause, each with its resources (most lists first) and patterns.
func (a *Analyzer) Report(sources []string, st audit.Stats) Report {
	a.Close()
	r := Report{
		Sources: sources, Lines: st.Lines, Events: st.Events, Wrapped: st.Wrapped, Unreadable: st.Unreadable,
		Requests: a.requests, From: a.from, To: a.to, Levels: a.levels,
		Reads: readRules(a.v), Clients: []Client{}, Herds: a.herd.herds,
	}
	if a.v.known {
		r.ServerVersion = a.o.ServerVersion
	}
	for _, b := range st.Examples {
		r.BadLines = append(r.BadLines, BadLine(b))
	}
	if r.Herds == nil {
		r.Herds = []Pattern{}
	}
	states := map[string]*clientState{}
	for _, c := range a.clients {
		cl := Client{User: c.key.user, UserAgent: c.key.agent, SourceIP: c.key.ip, Resources: []Resource{}, Patterns: []Pattern{}}
		for name, rs := range c.resources {
			cl.Resources = append(cl.Resources, Resource{Resource: name, Totals: rs.totals})
			cl.Totals.add(rs.totals)
			cl.Patterns = append(cl.Patterns, rs.patterns(cl.Name(), name)...)
			r.Open += rs.totals.Watches.Open
		}
		sort.Slice(cl.Resources, func(i, j int) bool {
			return heavier(cl.Resources[i].Totals, cl.Resources[j].Totals, cl.Resources[i].Resource, cl.Resources[j].Resource)
		})
		sort.Slice(cl.Patterns, func(i, j int) bool {
			if cl.Patterns[i].Name != cl.Patterns[j].Name {
				return cl.Patterns[i].Name < cl.Patterns[j].Name
			}
			return cl.Patterns[i].Resource < cl.Patterns[j].Resource
		})
		states[cl.Name()] = c
		r.Clients = append(r.Clients, cl)
	}
	sort.Slice(r.Clients, func(i, j int) bool {
		return heavier(r.Clients[i].Totals, r.Clients[j].Totals, r.Clients[i].Name(), r.Clients[j].Name())
	})
	r.Timeline = a.timeline(r.Clients, states)
	return r
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
	prevEnded := w.TimedOut + w.Early + w.AtOnce + w.Error
	oEnded := ow.TimedOut + ow.Early + ow.AtOnce + ow.Error
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
	w.TimedOut += ow.TimedOut
	w.Early += ow.Early
	w.AtOnce += ow.AtOnce
	w.Error += ow.Error
	w.Open += ow.Open
}

// maxBuckets is the widest timeline: longer logs get buckets of several
// minutes.
const maxBuckets = 60

func (a *Analyzer) timeline(clients []Client, states map[string]*clientState) Timeline {
	if a.from.IsZero() {
		return Timeline{Clients: []TimelineClient{}}
	}
	first := a.from.Unix() / 60
	last := a.to.Unix() / 60
	// Requests received before the first stage in the log (a watch that
	// began earlier) still fall in the first bucket.
	span := last - first + 1
	per := (span + maxBuckets - 1) / maxBuckets
	n := (span + per - 1) / per
	tl := Timeline{Start: time.Unix(first*60, 0).UTC(), BucketSeconds: per * 60, Clients: []TimelineClient{}}
	for i, c := range clients {
		if i >= a.o.Top {
			break
		}
		row := TimelineClient{Client: c.Name(), Lists: make([]int64, n), Watches: make([]int64, n), Expired: make([]int64, n)}
		for m, b := range states[c.Name()].minutes {
			i := (m - first) / per
			if i < 0 {
				i = 0
			}
			if i >= n {
				i = n - 1
			}
			row.Lists[i] += b[0]
			row.Watches[i] += b[1]
			row.Expired[i] += b[2]
		}
		tl.Clients = append(tl.Clients, row)
	}
	return tl
}
