package top

import (
	"fmt"
	"strings"
)

// Quiet is what "nothing stands out" may claim of an interval: each claim
// ("no watcher closed as too slow", ...) only where every row (and, for
// APF, every server) measured it as zero. A counter that went down, a
// restart, a family not exposed, a resource without a watch cache or a
// value no server can mean is not measured, and is named in Unmeasured
// instead of claimed quiet, each with what was not measured and why
// ("closed watchers (events: ...: no watch cache for this resource on
// this server ...)"): the sentence carries its own reasons, so it never
// points at a note that is not printed (fresh user try 20 #5).
type Quiet struct {
	Held       []string
	Unmeasured []string
}

// quietClaims are the claims in the order they are said, each with what
// it rests on: whether it was measured, and whether it was zero.
var quietClaims = []struct {
	claim, subject string
	// of: whether every value was measured, whether all were zero, and
	// why those not measured were not.
	of func(*Report) (measured, zero bool, why string)
}{
	{"no watcher closed as too slow", "closed watchers", rowsQuiet(func(r *Row) []Rate { return []Rate{r.Terminated} })},
	{"no 410, 429 or 5xx answer", "410/429/5xx answers", rowsQuiet(func(r *Row) []Rate { return []Rate{r.Code410, r.Code429, r.Code5xx} })},
	{"no APF rejection", "APF rejections", apfQuiet},
	{"no list served by storage", "lists served by storage", rowsQuiet(func(r *Row) []Rate { return []Rate{r.ListsStorage} })},
	{"no event sent to the watchers", "events sent", rowsQuiet(func(r *Row) []Rate { return []Rate{r.Events} })},
}

// QuietOf sorts the claims of a report into those its measurements hold
// and those they cannot (a claim measured and not zero is neither: a
// callout says it).
func QuietOf(r *Report) Quiet {
	var q Quiet
	for _, c := range quietClaims {
		switch measured, zero, why := c.of(r); {
		case !measured:
			q.Unmeasured = append(q.Unmeasured, c.subject+" ("+why+")")
		case zero:
			q.Held = append(q.Held, c.claim)
		}
	}
	return q
}

// rowsQuiet: every row's rates measured, and all zero.
func rowsQuiet(rates func(*Row) []Rate) func(*Report) (bool, bool, string) {
	return func(r *Report) (measured, zero bool, why string) {
		measured, zero = true, true
		var g gaps
		for _, row := range r.Rows {
			for _, rate := range rates(row) {
				if !rate.Known() {
					measured = false
					g.add(row.Server, len(r.Servers), row, rate.Why())
					break
				}
				zero = zero && rate.D() == 0
			}
		}
		return measured, zero, g.text()
	}
}

// apfQuiet: every server measured APF's rejections, and all were zero.
func apfQuiet(r *Report) (measured, zero bool, why string) {
	measured, zero = len(r.Servers) > 0, true
	var whys []string
	for _, s := range r.Servers {
		w := apfUnmeasuredWhy(s)
		if w != "" {
			measured = false
			if len(r.Servers) > 1 {
				w = fmt.Sprintf("server %d: %s", s.Index, w)
			}
			whys = append(whys, w)
			continue
		}
		for _, a := range s.APF {
			zero = zero && a.Rejected.D() == 0
		}
	}
	if len(r.Servers) == 0 {
		whys = append(whys, "no server read")
	}
	return measured, zero, strings.Join(whys, "; ")
}

// apfUnmeasuredWhy is why server s's APF rejections were not measured
// ("" they were).
func apfUnmeasuredWhy(s *Server) string {
	switch {
	case !s.Answered():
		return "not read"
	case s.Restarted:
		return "the server restarted between the two samples"
	case s.apfUnmeasured() != "":
		return s.apfUnmeasured()
	case s.APF == nil:
		return famAPFRejected + ": " + s.Second.Values.notExposed()
	}
	for _, a := range s.APF {
		if !a.Rejected.Known() {
			return "priority level " + a.PriorityLevel + ": " + a.Rejected.Why()
		}
	}
	return ""
}
