package top

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Report is one interval of top over every server: the stable schema of
// -o json|yaml.
type Report struct {
	// Interval is the --interval asked for; each server's Seconds is the
	// measured one.
	Interval string    `json:"interval"`
	Time     time.Time `json:"time"`
	// Refresh counts the intervals shown so far (1 for --once).
	Refresh int       `json:"refresh"`
	Servers []*Server `json:"servers"`
	// Rows are every server's rows, by Sort (descending), then name.
	Sort string `json:"sort"`
	Rows []*Row `json:"rows"`
	// Idle is how many resources had no load in the interval (not rows).
	Idle      int        `json:"idle"`
	Callouts  []Callout  `json:"callouts"`
	Imbalance *Imbalance `json:"imbalance,omitempty"`
	Checks    []Check    `json:"checks,omitempty"`
	Cost      Cost       `json:"metricsCost"`
}

// Cost is what the interval's reads of /metrics cost.
type Cost struct {
	Reads int `json:"reads"`
	// Bytes is the /metrics text of the Read reads whose answer was read
	// (a refused or unreadable answer's body is not in it).
	Bytes int64 `json:"bytes"`
	Read  int   `json:"read"`
	// Filtered: every server that answered honoured name[] (sent only the
	// families top asks for); Unfiltered names the servers that sent
	// everything.
	Filtered   bool  `json:"filtered"`
	Unfiltered []int `json:"unfiltered,omitempty"`
	// Families is how many families top asks for.
	Families int `json:"families"`
}

// Assemble builds the report of servers (each Built) sorted by sortKey.
func Assemble(servers []*Server, interval time.Duration, sortKey string, refresh int) *Report {
	r := &Report{Interval: interval.String(), Time: time.Now().UTC(), Refresh: refresh, Servers: servers, Sort: sortKey, Rows: []*Row{}, Callouts: []Callout{}}
	r.Cost = Cost{Families: len(Families)}
	answered := 0
	for _, s := range servers {
		r.Rows = append(r.Rows, s.rows...)
		r.Idle += s.Idle()
		r.Cost.Reads += s.ReadRequests
		for _, smp := range []*Sample{s.First, s.Second} {
			if smp == nil {
				continue
			}
			if s.ReadRequests == 2 || smp == s.Second {
				r.Cost.Bytes += smp.Bytes
				r.Cost.Read++
			}
		}
		if s.Second != nil {
			answered++
			if !s.Second.Filtered {
				r.Cost.Unfiltered = append(r.Cost.Unfiltered, s.Index)
			}
		}
	}
	r.Cost.Filtered = answered > 0 && len(r.Cost.Unfiltered) == 0
	SortRows(r.Rows, sortKey)
	if len(servers) > 1 {
		r.Imbalance = imbalanceOf(servers)
	}
	r.Callouts = callouts(r)
	return r
}

// SortKeys are the --sort values, each a column, largest first ("name":
// by resource name).
var SortKeys = []string{"watchers", "events", "bytes", "terminated", "lists", "storage-lists", "ratio", "errors", "received", "objects", "name"}

// SortValue is the value row r is sorted by under key.
func SortValue(r *Row, key string) float64 {
	switch key {
	case "watchers":
		return r.Watchers.V()
	case "events":
		return r.Events.PS()
	case "bytes":
		return r.EventBytes.PS()
	case "terminated":
		return r.Terminated.D()
	case "lists":
		return r.ListsPerSecond()
	case "storage-lists":
		return r.ListsStorage.PS()
	case "ratio":
		if r.StorageListRatio == nil {
			return 0
		}
		return *r.StorageListRatio
	case "errors":
		return r.Errors()
	case "received":
		return r.CacheReceived.PS()
	case "objects":
		return r.Objects.V()
	}
	return 0
}

// SortRows sorts rows by key, largest first, then by name and server.
func SortRows(rows []*Row, key string) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if key != "name" {
			if va, vb := SortValue(a, key), SortValue(b, key); va != vb {
				return va > vb
			}
		}
		if a.Name() != b.Name() {
			return a.Name() < b.Name()
		}
		return a.Server < b.Server
	})
}

// ValidSortKey reports whether key is a --sort value.
func ValidSortKey(key string) bool {
	for _, k := range SortKeys {
		if k == key {
			return true
		}
	}
	return false
}

// SortKeysText lists the --sort values for a message.
func SortKeysText() string { return strings.Join(SortKeys, ", ") }

// num writes a count without a fraction when it has none.
func num(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}
