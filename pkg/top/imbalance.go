package top

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Imbalance is how the watchers and the list load spread across servers.
type Imbalance struct {
	Watchers Spread `json:"watchers"`
	Lists    Spread `json:"lists"`
}

// Spread is one load across the servers that answered.
type Spread struct {
	// PerServer is each answering server's load (watchers now, or lists
	// per second), by server number.
	PerServer map[int]float64 `json:"perServer"`
	Total     float64         `json:"total"`
	// Judged: at least two servers were measured and their load is
	// enough to tell (a spread not judged is a note, never a callout).
	// Balanced: every server holds between half and one and a half times
	// a fair share (total / servers); Verdict says it in words.
	Judged   bool   `json:"judged"`
	Balanced bool   `json:"balanced"`
	Verdict  string `json:"verdict"`
	// Unknown names the servers not counted (not answered, or no family).
	Unknown []int `json:"unknown,omitempty"`
}

// Below these totals the spread is not judged: a handful of watches or
// lists is balanced by chance or not at all.
const (
	minWatchersJudged = 10
	minListsJudged    = 1 // per second
)

func imbalanceOf(servers []*Server) *Imbalance {
	im := &Imbalance{
		Watchers: spreadOf(servers, "watchers", minWatchersJudged, func(r *Row) (float64, bool) { return r.Watchers.V(), r.Watchers.Known() }),
		Lists: spreadOf(servers, "lists per second", minListsJudged, func(r *Row) (float64, bool) {
			return r.ListsPerSecond(), r.ListsStorage.Known() || r.ListsCache.Known()
		}),
	}
	return im
}

func spreadOf(servers []*Server, what string, minJudged float64, value func(*Row) (float64, bool)) Spread {
	sp := Spread{PerServer: map[int]float64{}}
	for _, s := range servers {
		if !s.Answered() || s.Restarted {
			sp.Unknown = append(sp.Unknown, s.Index)
			continue
		}
		total, known := 0.0, len(s.rows) == 0
		for _, r := range s.rows {
			v, ok := value(r)
			known = known || ok
			total += v
		}
		if !known && len(s.rows) > 0 {
			sp.Unknown = append(sp.Unknown, s.Index)
			continue
		}
		sp.PerServer[s.Index] = total
		sp.Total += total
	}
	n := len(sp.PerServer)
	unknown := ""
	if len(sp.Unknown) > 0 {
		unknown = fmt.Sprintf(" (not counted: %s)", serversNamed(sp.Unknown))
	}
	if n < 2 {
		sp.Verdict = fmt.Sprintf("not judged: fewer than two servers measured%s", unknown)
		return sp
	}
	fair := sp.Total / float64(n)
	var parts []string
	lo, hi := -1, -1
	for _, s := range servers {
		v, ok := sp.PerServer[s.Index]
		if !ok {
			continue
		}
		parts = append(parts, fmt.Sprintf("server %d %s", s.Index, amount(v, what)))
		if lo < 0 || v < sp.PerServer[lo] {
			lo = s.Index
		}
		if hi < 0 || v > sp.PerServer[hi] {
			hi = s.Index
		}
	}
	list := strings.Join(parts, ", ")
	if sp.Total < minJudged {
		// not judged: neither balanced nor not
		sp.Verdict = fmt.Sprintf("not judged: %s %s in all, too few to tell (%s)%s", amount(sp.Total, what), what, list, unknown)
		return sp
	}
	sp.Judged = true
	sp.Balanced = sp.PerServer[hi] <= 1.5*fair && sp.PerServer[lo] >= 0.5*fair
	if sp.Balanced {
		sp.Verdict = fmt.Sprintf("balanced: %s%s", list, unknown)
		return sp
	}
	worst := hi
	if fair-sp.PerServer[lo] > sp.PerServer[hi]-fair {
		worst = lo
	}
	sp.Verdict = fmt.Sprintf("imbalanced: server %d holds %s of %s %s (a fair share is %s); %s%s",
		worst, amount(sp.PerServer[worst], what), amount(sp.Total, what), what, amount(fair, what), list, unknown)
	return sp
}

func amount(v float64, what string) string {
	if strings.HasSuffix(what, "per second") {
		return rateText(v)
	}
	return count(v)
}

// serversNamed is "server 2" or "servers 1, 3": the noun agrees with the
// list.
func serversNamed(xs []int) string {
	return text.Noun(len(xs), "server") + " " + joinInts(xs)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// callouts are the imbalance's rows that matter.
func (im *Imbalance) callouts() []Callout {
	var out []Callout
	if w := im.Watchers; w.Judged && !w.Balanced {
		out = append(out, Callout{
			Kind: "watch-imbalance", rank: 700 + w.Total,
			What:    "watchers across servers are " + w.Verdict,
			Meaning: "a watch stays on the server it was opened on: after a rolling restart, the server restarted last holds few watches until they end and reconnect",
			Fix:     "kube-apiserver's --goaway-chance (for example 0.001) makes HTTP/2 clients open new connections now and then, so that new watches spread across the servers",
		})
	}
	if l := im.Lists; l.Judged && !l.Balanced {
		out = append(out, Callout{
			Kind: "list-imbalance", rank: 650 + l.Total,
			What:    "lists across servers are " + l.Verdict,
			Meaning: "one server serves most of the lists: a client pinned to it by a long-lived HTTP/2 connection, or a load balancer that does not spread requests",
			Fix:     "kube-apiserver's --goaway-chance spreads HTTP/2 clients across the servers; check the load balancer's algorithm",
		})
	}
	return out
}
