package top

import (
	"fmt"
	"math"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Server is one API server over one interval: its two samples, or why it
// has none.
type Server struct {
	Index    int    `json:"index"`
	Endpoint string `json:"endpoint"`
	// Version is kubernetes_build_info's git_version ("" not exposed).
	Version string  `json:"version,omitempty"`
	First   *Sample `json:"first,omitempty"`
	Second  *Sample `json:"second,omitempty"`
	// Seconds is Second.At - First.At: the interval every rate of the
	// server is over.
	Seconds float64 `json:"seconds"`
	// Restarted: process_start_time_seconds changed between the samples
	// (the server restarted): no rate is given for this interval.
	Restarted   bool   `json:"restarted,omitempty"`
	RestartNote string `json:"restartNote,omitempty"`
	// EventBytes is what the eventBytes column counts on this server:
	// "sent" (the bytes written to each watcher) or "encoded" (before
	// v1.34: each event's object once per encoding, shared by watchers).
	EventBytes string `json:"eventBytesMeasure,omitempty"`
	// CurrentRVReads: the server's watch cache reads etcd's current RV with
	// a storage list of no object, so listsFromStorage counts those reads
	// too (v1.33 to v1.36; one per consistent list it serves).
	CurrentRVReads bool `json:"currentRVReadsCountedAsStorageLists,omitempty"`
	// Missing names each family the server does not expose (or could not
	// be read), and why.
	Missing []Missing `json:"missing"`
	// Unmapped names series top could not tie to a resource.
	Unmapped []string `json:"unmapped,omitempty"`
	// Unmeasured are the samples of either read that were not a number
	// the server can mean: their cells say "?", their bounds are not
	// checked.
	Unmeasured []Unmeasured `json:"unmeasured,omitempty"`
	// APF is API Priority and Fairness's rejections in the interval.
	APF []APFRate `json:"apfRejected"`
	// Err, Reason: the server could not be read (Reason is one word:
	// Forbidden, Unreachable, ...).
	Err    string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Fix is what to do about Err, in the plugin's words.
	Fix string `json:"fix,omitempty"`
	// ReadRequests is the GETs of /metrics sent to this server for this
	// interval (2, or 1 when the first sample is the previous interval's
	// second; fewer for a server not asked again: it gave no answer to an
	// earlier read of the run).
	ReadRequests int `json:"readRequests"`

	rows []*Row
	// chosen: the rows are the resources asked for (RESOURCE...), not
	// those with load.
	chosen bool
}

// Missing is one family a server does not expose for some column.
type Missing struct {
	Family string `json:"family"`
	Reason string `json:"reason"`
}

// APFRate is one priority level's and flow schema's rejections.
type APFRate struct {
	APFKey
	Rejected Rate `json:"rejected"`
}

// Answered: the server gave both samples.
func (s *Server) Answered() bool { return s.First != nil && s.Second != nil }

// Build computes the server's interval from its two samples (the server's
// Index, Endpoint, samples and ReadRequests set). only, when not empty,
// keeps those resources (each one a row, load or not); otherwise the rows
// are the resources with load.
func (s *Server) Build(only []schema.GroupResource) {
	if !s.Answered() {
		return
	}
	a, b := s.First.Values, s.Second.Values
	s.Version = b.GitVersion
	s.Seconds = s.Second.At.Sub(s.First.At).Seconds()
	if a.ProcessStart != nil && b.ProcessStart != nil && *a.ProcessStart != *b.ProcessStart {
		s.Restarted = true
		s.RestartNote = fmt.Sprintf("the server restarted between the two samples (its process start time went from %s to %s): no rate for this interval; the gauges are the new process's",
			unixTime(*a.ProcessStart), unixTime(*b.ProcessStart))
	}
	s.Missing = b.missingFamilies()
	s.CurrentRVReads = b.AnyCache() && rvReadsCountAsLists(b.Minor)
	s.EventBytes = "sent"
	if b.EventBytesEncoded {
		s.EventBytes = "encoded"
	}
	s.Unmapped = b.Unmapped
	if u := unmeasuredOf(a, b); len(u) > 0 {
		s.Unmeasured = u
	}
	s.APF = s.apfRates()

	grs := map[schema.GroupResource]bool{}
	if len(only) > 0 {
		for _, gr := range only {
			grs[gr] = true
		}
	} else {
		for gr := range a.Resources {
			grs[gr] = true
		}
		for gr := range b.Resources {
			grs[gr] = true
		}
	}
	newest := 0.0
	for _, rv := range b.Resources {
		newest = math.Max(newest, rv[CacheRV])
	}
	s.rows = s.rows[:0]
	s.chosen = len(only) > 0
	for gr := range grs {
		r := s.row(gr, a, b)
		if len(only) == 0 && !r.Active() {
			continue
		}
		if r.CacheRV.Known() && newest > 0 {
			r.CacheRVBehindNewest = ptr(newest - r.CacheRV.V())
		}
		s.rows = append(s.rows, r)
	}
	sort.Slice(s.rows, func(i, j int) bool { return s.rows[i].Name() < s.rows[j].Name() })
}

// Rows are the server's rows of the interval, by name.
func (s *Server) Rows() []*Row { return s.rows }

// Idle is how many resources the server knows that had no load (not
// rows); 0 when the rows are the resources asked for.
func (s *Server) Idle() int {
	if !s.Answered() || s.chosen {
		return 0
	}
	n := 0
	for gr := range s.Second.Values.Resources {
		if !s.hasRow(gr) {
			n++
		}
	}
	return n
}

func (s *Server) hasRow(gr schema.GroupResource) bool {
	for _, r := range s.rows {
		if r.GR() == gr {
			return true
		}
	}
	return false
}

func (s *Server) row(gr schema.GroupResource, a, b *Values) *Row {
	r := &Row{Server: s.Index, Group: gr.Group, Resource: gr.Resource, WatchCache: watchCache(b, gr)}
	for f := Field(0); f < numFields; f++ {
		missing := b.availability(gr, f)
		bad := b.unmeasured(gr, f)
		if bad == "" && !f.gauge() {
			bad = a.unmeasured(gr, f)
		}
		if f.gauge() {
			g := r.gauge(f)
			switch {
			case bad != "":
				g.Unmeasured = bad
				continue
			case missing != "":
				g.Missing = missing
				continue
			}
			g.Value = ptr(b.Resources[gr][f])
			continue
		}
		x := r.rate(f)
		switch {
		case bad != "":
			*x = Rate{Seconds: s.Seconds, Unmeasured: bad}
			continue
		case missing != "":
			*x = Rate{Seconds: s.Seconds, Missing: missing}
			continue
		}
		*x = newRate(a.Resources[gr][f], b.Resources[gr][f], s.Seconds, s.Restarted)
	}
	if r.ListsStorage.D() > 0 && r.StorageFetched.Known() && r.StorageReturned.Known() {
		r.StorageListRatio = ptr(r.StorageFetched.D() / math.Max(r.StorageReturned.D(), 1))
	}
	return r
}

func (s *Server) apfRates() []APFRate {
	a, b := s.First.Values, s.Second.Values
	if !b.Series[famAPFRejected] && !registered(famAPFRejected, b.Minor) {
		return nil
	}
	if a.apfBad != "" || b.apfBad != "" {
		return nil // not measured: named in Unmeasured
	}
	out := []APFRate{}
	for k, v := range b.APF {
		r := newRate(a.APF[k], v, s.Seconds, s.Restarted)
		if r.D() > 0 || r.WentDown || s.Restarted {
			out = append(out, APFRate{APFKey: k, Rejected: r})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rejected.D() > out[j].Rejected.D() })
	return out
}

func unixTime(sec float64) string {
	return time.Unix(int64(sec), 0).UTC().Format("15:04:05Z")
}

// apfUnmeasured is why the APF rejections were not measured ("" they
// were).
func (s *Server) apfUnmeasured() string {
	if !s.Answered() {
		return ""
	}
	if s.Second.Values.apfBad != "" {
		return s.Second.Values.apfBad
	}
	return s.First.Values.apfBad
}
