package top

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Bounds are the --check limits (nil: not set).
type Bounds struct {
	// Watchers: per resource, the most watchers summed over the servers
	// measured; the key "" bounds every resource.
	Watchers map[string]WatcherBound
	// Terminated: the most watchers closed as too slow in the interval,
	// every resource and server together.
	Terminated *float64
	// StorageListRatio: the most objects a resource's storage lists may
	// read per object returned in the interval, on any server.
	StorageListRatio *float64
	// Rejected: the most APF rejections in the interval, every server.
	Rejected *float64
}

// WatcherBound is one --max-watchers: the resource as given, resolved.
type WatcherBound struct {
	Given string
	GR    schema.GroupResource
	Max   float64
}

// Set reports whether any bound is given.
func (b Bounds) Set() bool {
	return len(b.Watchers) > 0 || b.Terminated != nil || b.StorageListRatio != nil || b.Rejected != nil
}

// ParseWatcherBound reads one --max-watchers value: RESOURCE=N, or N for
// every resource. The resource is resolved later (discovery).
func ParseWatcherBound(s string) (resource string, max float64, err error) {
	res, n, found := strings.Cut(s, "=")
	if !found {
		res, n = "", s
	}
	res = strings.TrimSpace(res)
	if found && res == "" {
		return "", 0, errors.New("the resource before = is empty")
	}
	if strings.Contains(res, "/") {
		// kubectl names a resource TYPE or TYPE.GROUP, never by its
		// group/version path.
		return "", 0, fmt.Errorf("%q is a path, not a resource: name it as kubectl get does (services, deployments.apps)", res)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(n), 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("%q is not a count of watchers", n)
	}
	return res, float64(v), nil
}

// The bounds a Check checks.
const (
	BoundWatchers         = "watchers"
	BoundTerminated       = "terminated"
	BoundStorageListRatio = "storage-list-ratio"
	BoundRejected         = "rejected"
)

// Check is one bound checked against the interval.
type Check struct {
	// Bound is what is bounded (BoundWatchers, ...), of Resource as given
	// ("" every resource); Flag is the bound as the user gave it (set by
	// the command).
	Bound    string  `json:"bound"`
	Resource string  `json:"resource,omitempty"`
	Flag     string  `json:"flag,omitempty"`
	Max      float64 `json:"max"`
	// Value is the measured value (nil: could not be checked, see Note).
	Value *float64 `json:"value,omitempty"`
	// Crossed: Value is above Max.
	Crossed bool   `json:"crossed"`
	Where   string `json:"where,omitempty"`
	// Note is why the bound was not checked: the reason alone, never
	// "not checked" (the one who prints it says that).
	Note string `json:"note,omitempty"`
	// NotMeasured names what a checked bound left out, and why: the
	// resources without a watch cache of their own on a server that has
	// one, for a bound over the watch caches (--max-terminated). The
	// value is over the rest; with nothing else, the bound is not checked.
	NotMeasured string `json:"notMeasured,omitempty"`
}

// Checked reports whether the bound could be checked.
func (c Check) Checked() bool { return c.Value != nil }

// CheckBounds checks b against r's interval.
func CheckBounds(r *Report, b Bounds) []Check {
	var out []Check
	keys := make([]string, 0, len(b.Watchers))
	for k := range b.Watchers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, checkWatchers(r, b.Watchers[k]))
	}
	if b.Terminated != nil {
		out = append(out, checkTerminated(r, *b.Terminated))
	}
	if b.StorageListRatio != nil {
		out = append(out, checkRatio(r, *b.StorageListRatio))
	}
	if b.Rejected != nil {
		out = append(out, checkRejected(r, *b.Rejected))
	}
	for i := range out {
		out[i] = unmeasuredOn(r, unexposedOn(r, out[i]))
	}
	return out
}

// unmeasuredOn: a server that gave no interval (it did not answer, or it
// restarted) leaves a bound within unknown, never one crossed: every bound
// is a sum or a worst of values that cannot be negative, so a crossing on
// the servers measured holds whatever the others did (adversary try 11: a
// failed server turned a crossed bound into "not checked", exit 12 for
// 14). Each check computes over the servers measured only (measured).
func unmeasuredOn(r *Report, c Check) Check {
	un := unanswered(r)
	if len(un) == 0 {
		return c
	}
	if c.Crossed {
		they := "they"
		if len(un) == 1 {
			they = "it"
		}
		c.Where += fmt.Sprintf(" (%s not measured: %s can only add to it)", serversNamed(un), they)
		return c
	}
	return notChecked(Check{Bound: c.Bound, Resource: c.Resource, Flag: c.Flag, Max: c.Max}, un)
}

// measured: server i gave an interval (not unanswered).
func measured(r *Report, i int) bool {
	for _, s := range r.Servers {
		if s.Index == i {
			return s.Answered() && !s.Restarted
		}
	}
	return false
}

// boundFields are the fields each bound reads (rejected reads APF's
// family, not a field of a row).
var boundFields = map[string][]Field{
	BoundWatchers:         {Watchers},
	BoundTerminated:       {Terminated},
	BoundStorageListRatio: {ListsStorage, StorageFetched, StorageReturned},
}

// unexposedOn: a bound is checked only where every family it reads was
// exposed. A server without the family has no rows for it, so its sum is
// 0 and would pass; the family is named as under "Not exposed" (the same
// list, so the two never disagree).
//
// A bound already crossed stays crossed: every bound is a sum or a worst
// over the servers of values that cannot be negative, so what a server
// did not expose can only add to it.
func unexposedOn(r *Report, c Check) Check {
	if !c.Checked() || c.Crossed {
		return c
	}
	for _, s := range r.Servers {
		if !s.Answered() {
			continue
		}
		v := s.Second.Values
		fams := []string{}
		for _, f := range boundFields[c.Bound] {
			fams = append(fams, v.family(f))
		}
		if c.Bound == BoundRejected {
			fams = append(fams, famAPFRejected)
		}
		for _, fam := range fams {
			for _, sample := range []*Values{s.First.Values, v} {
				if why := sample.mistyped[fam]; why != "" {
					// Not measured at all: no row may read it, so the
					// sum over the rows says nothing.
					return unknownOn(Check{Bound: c.Bound, Resource: c.Resource, Flag: c.Flag, Max: c.Max}, s.Index, Unmeasured{Family: fam, Why: why}.String())
				}
			}
		}
		for _, m := range s.Missing {
			for _, fam := range fams {
				if m.Family == fam {
					return unknownOn(Check{Bound: c.Bound, Resource: c.Resource, Flag: c.Flag, Max: c.Max}, s.Index, m.Family+": "+m.Reason)
				}
			}
		}
	}
	return c
}

// unanswered names the servers whose interval has no rates.
func unanswered(r *Report) []int {
	var out []int
	for _, s := range r.Servers {
		if !s.Answered() || s.Restarted {
			out = append(out, s.Index)
		}
	}
	return out
}

func notChecked(c Check, servers []int) Check {
	c.Note = fmt.Sprintf("%s: no interval measured there", serversNamed(servers))
	return c
}

// unknownOn: the bound is not checked, because of why on server.
func unknownOn(c Check, server int, why string) Check {
	c.Note = fmt.Sprintf("server %d: %s", server, why)
	return c
}

func checkWatchers(r *Report, wb WatcherBound) Check {
	c := Check{Bound: BoundWatchers, Resource: wb.Given, Max: wb.Max}
	per := map[string]float64{}
	var gap *Row // a row whose watchers are not known
	for _, s := range r.Servers {
		if !measured(r, s.Index) {
			continue
		}
		rows := s.inScope()
		if wb.Given != "" {
			// The resource named, read from the samples whether or
			// not it is a row of the table.
			rows = []*Row{s.rowOf(wb.GR)}
		}
		for _, row := range rows {
			if !row.Watchers.Known() {
				if gap == nil {
					gap = row
				}
				continue
			}
			per[row.Name()] += row.Watchers.V()
		}
	}
	worst, name := 0.0, ""
	for n, v := range per {
		if v > worst || (v == worst && n < name) {
			worst, name = v, n
		}
	}
	if gap != nil && worst <= wb.Max {
		// Crossed is known from the rest (watchers only add); within
		// is not.
		return unknownOn(c, gap.Server, gap.Watchers.Why())
	}
	c.Value = ptr(worst)
	c.Crossed = worst > wb.Max
	if name != "" {
		c.Where = fmt.Sprintf("%s: %s watchers", name, count(worst))
		measured := 0
		for _, s := range r.Servers {
			if s.Answered() {
				measured++
			}
		}
		if measured > 1 {
			// The servers summed: those measured, not those asked.
			c.Where += fmt.Sprintf(" over %s", text.Count(measured, "server"))
		}
	}
	return c
}

// checkTerminated sums the watchers closed as too slow over the
// resources in scope on the servers measured. A resource without a watch
// cache of its own (on a server that has one) has no such count: it is
// left out and named (NotMeasured), never read as 0; when nothing in
// scope was measured, the bound is not checked (fresh user try 20 #4:
// "ok: 0 <= 0" of events, whose CLOSED cell says n/a).
func checkTerminated(r *Report, max float64) Check {
	c := Check{Bound: BoundTerminated, Max: max}
	total, read := 0.0, 0
	var where []string
	var uncached gaps
	gap, gapWhy := 0, "" // a server where a value is not known
	for _, s := range r.Servers {
		if !measured(r, s.Index) {
			continue
		}
		for _, row := range s.inScope() {
			x := row.Terminated
			switch {
			case x.Known():
				read++
				if x.D() > 0 {
					where = append(where, fmt.Sprintf("%s%s %s", serverPrefix(s.Index, len(r.Servers)), row.Name(), count(x.D())))
				}
				total += x.D()
			case noCacheOfItsOwn(x):
				uncached.add(s.Index, len(r.Servers), row, x.Why())
			case gapWhy == "":
				gap, gapWhy = s.Index, x.Why()
			}
		}
	}
	if gapWhy != "" && total <= max {
		// Crossed is known from the rest (counts only add); within is not.
		return unknownOn(c, gap, gapWhy)
	}
	if read == 0 {
		c.Note = "no resource in scope was measured"
		if !uncached.empty() {
			c.Note = uncached.text()
		}
		if len(r.Servers) == 1 {
			c.Note = fmt.Sprintf("server %d: %s", r.Servers[0].Index, c.Note)
		}
		return c
	}
	c.Value = ptr(total)
	c.Crossed = total > max
	c.Where = strings.Join(where, ", ")
	if !uncached.empty() {
		c.NotMeasured = uncached.text()
	}
	return c
}

func checkRatio(r *Report, max float64) Check {
	c := Check{Bound: BoundStorageListRatio, Max: max}
	worst := 0.0
	gap, gapWhy := 0, "" // a row whose ratio is not known
	for _, row := range r.Rows {
		if !measured(r, row.Server) {
			continue
		}
		why := ""
		for _, x := range []Rate{row.ListsStorage, row.StorageFetched, row.StorageReturned} {
			if why == "" && (x.Missing != "" || x.Unmeasured != "") {
				why = x.Why()
			}
		}
		for _, x := range []Rate{row.ListsStorage, row.StorageFetched} {
			if why == "" && !x.Known() {
				// Went down or restarted: the interval holds no
				// difference to judge there.
				why = x.Why()
			}
		}
		if why != "" {
			if gapWhy == "" {
				gap, gapWhy = row.Server, why
			}
			continue
		}
		if row.StorageListRatio != nil && *row.StorageListRatio > worst {
			worst = *row.StorageListRatio
			c.Where = fmt.Sprintf("%s%s: %s read for %s returned in %s", serverPrefix(row.Server, len(r.Servers)), row.Name(), counted(row.StorageFetched.D(), "object"), count(row.StorageReturned.D()), counted(row.ListsStorage.D(), "list"))
		}
	}
	if gapWhy != "" && worst <= max {
		// Crossed is known from the rest (a worst only grows); within
		// is not.
		return unknownOn(Check{Bound: c.Bound, Max: max}, gap, gapWhy)
	}
	c.Value = ptr(math.Round(worst*10) / 10)
	c.Crossed = worst > max
	return c
}

func checkRejected(r *Report, max float64) Check {
	c := Check{Bound: BoundRejected, Max: max}
	total := 0.0
	var where []string
	gap, gapWhy := 0, "" // a server whose rejections are not known
	unknown := func(server int, why string) {
		if gapWhy == "" {
			gap, gapWhy = server, why
		}
	}
	for _, s := range r.Servers {
		if !measured(r, s.Index) {
			continue
		}
		if bad := s.apfUnmeasured(); bad != "" {
			unknown(s.Index, bad)
			continue
		}
		if s.APF == nil {
			unknown(s.Index, famAPFRejected+" "+s.Second.Values.notExposed())
			continue
		}
		for _, a := range s.APF {
			if !a.Rejected.Known() {
				unknown(s.Index, "priority level "+a.PriorityLevel+": "+a.Rejected.Why())
				continue
			}
			total += a.Rejected.D()
			where = append(where, fmt.Sprintf("%spriority level %s %s", serverPrefix(s.Index, len(r.Servers)), a.PriorityLevel, count(a.Rejected.D())))
		}
	}
	if gapWhy != "" && total <= max {
		// Crossed is known from the rest (rejections only add); within
		// is not.
		return unknownOn(c, gap, gapWhy)
	}
	c.Value = ptr(total)
	c.Crossed = total > max
	c.Where = strings.Join(where, ", ")
	return c
}
