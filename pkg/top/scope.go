package top

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What a --check bound reads on one server. A bound is judged on what the
// server measured, never on what the table happens to show: a resource a
// bound names is read from the samples whether or not it is a row
// (fresh user try 20 #4: --max-watchers services=0 beside RESOURCE
// configmaps read 0 watchers of services, which had 1), and a resource
// whose value was not measured is never counted as 0.

// rowOf is s's row of gr: the row shown, or one built from s's samples
// (an idle resource, or one that is not among the RESOURCE arguments).
func (s *Server) rowOf(gr schema.GroupResource) *Row {
	for _, r := range s.rows {
		if r.GR() == gr {
			return r
		}
	}
	return s.row(gr, s.First.Values, s.Second.Values)
}

// inScope are the rows a bound over every resource reads on s: the
// resources asked for (RESOURCE...), or, without them, every resource
// s's samples name: the rows with load and the idle ones (measured too:
// as no load).
func (s *Server) inScope() []*Row {
	if s.chosen || !s.Answered() {
		return s.rows
	}
	out := append([]*Row{}, s.rows...)
	seen := map[schema.GroupResource]bool{}
	for _, r := range s.rows {
		seen[r.GR()] = true
	}
	var idle []schema.GroupResource
	for _, v := range []*Values{s.First.Values, s.Second.Values} {
		for gr := range v.Resources {
			if !seen[gr] {
				seen[gr] = true
				idle = append(idle, gr)
			}
		}
	}
	sort.Slice(idle, func(i, j int) bool { return nameOf(idle[i]) < nameOf(idle[j]) })
	for _, gr := range idle {
		out = append(out, s.row(gr, s.First.Values, s.Second.Values))
	}
	return out
}

// noCacheOfItsOwn: x has no value because its resource has no watch cache
// on a server that has one (a field of the watch cache: CLOSED, the
// cache's lists). Such a resource is left out of what a bound over the
// watch caches sums, and named; it is never read as 0.
func noCacheOfItsOwn(x Rate) bool {
	return x.Unmeasured == "" && strings.Contains(x.Missing, reasonNotCached)
}

// gaps groups the rows whose rate is not measured by why: "events,
// leases: why" (server-prefixed with several servers), at most
// maxGapNames names a reason.
type gaps struct {
	order []string
	names map[string][]string
}

const maxGapNames = 5

func (g *gaps) add(server, servers int, row *Row, why string) {
	if g.names == nil {
		g.names = map[string][]string{}
	}
	if _, ok := g.names[why]; !ok {
		g.order = append(g.order, why)
	}
	g.names[why] = append(g.names[why], serverPrefix(server, servers)+row.Name())
}

func (g *gaps) empty() bool { return len(g.order) == 0 }

// text is every reason with the rows it holds for, "; "-separated.
func (g *gaps) text() string {
	parts := make([]string, 0, len(g.order))
	for _, why := range g.order {
		names := g.names[why]
		shown := strings.Join(names[:min(len(names), maxGapNames)], ", ")
		if len(names) > maxGapNames {
			shown += fmt.Sprintf(" and %d more", len(names)-maxGapNames)
		}
		parts = append(parts, shown+": "+why)
	}
	return strings.Join(parts, "; ")
}
