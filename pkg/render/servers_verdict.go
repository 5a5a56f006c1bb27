package render

import (
	"fmt"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
	"slices"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// The verdict lines of the per-server view: what every server answered, the
// reconnect range they have in common, and the one-line verdict.

// serversVerdict is the verdict block under the table. Every claim names
// the servers it holds for: a server that did not answer a read is never
// counted as if it had.
func serversVerdict(r ServersReport) [][2]string {
	v := r.Verdict
	var kv [][2]string
	see := r.seeCommands()
	if len(r.Servers) == 0 {
		return nil // nothing measured: no verdict is drawn from nothing
	}
	kv = append(kv, [2]string{"Answered", answeredText(r)})
	if v.CommonKnown {
		key := "Every server"
		if see.measured != "" {
			key = "Every measured server"
		}
		kv = append(kv, [2]string{key, commonText(v, r.Servers, r.Mode == "probe", see)})
	}
	if rc := v.Reconnect; rc != nil {
		kv = append(kv, [2]string{fmt.Sprintf("Reconnect from RV %d", rc.ResourceVersion), reconnectText(rc, r.Mode == "probe", r.Servers, see)})
	}
	if v.LargestLagServer != "" {
		lag := fmt.Sprintf("%s, server %s", text.Count(v.LargestLag, "RV"), v.LargestLagServer)
		if v.LargestLag == 0 {
			lag = "0: " + zeroLagText(v, see)
		}
		kv = append(kv, [2]string{"Largest lag", lag})
	}
	if len(v.NoWatchCache) > 0 {
		kv = append(kv, [2]string{"No watch cache", strings.Join(v.NoWatchCache, ", ") + ": no watch cache for this resource there (see the NOTE column); it reads storage directly, so it has no lag and its rv=0 list is storage's current RV"})
	}
	return kv
}

// zeroLagText says what a lag of 0 shows: a watch cache that has seen the
// current RV where a server has one, an rv=0 list that reached it where
// whether it has one is not known.
func zeroLagText(v servers.Verdict, see seeCommands) string {
	if see.notOwn != "" {
		return see.every("rv=0 list") + " reached the current RV right after a consistent list (" + see.notOwn + ")"
	}
	who := see.every("watch cache")
	if len(v.NoWatchCache) > 0 {
		who = "the watch cache of " + see.every("server") + " that has one"
	}
	if len(v.NewestUnknown) > 0 {
		who += " that was read"
	}
	if len(v.CacheUnknown) > 0 {
		return see.every("rv=0 list") + " reached the current RV right after a consistent list (read from the server's watch cache, or from storage where it has none: " + cacheUnknownText(v, see) + ")"
	}
	return who + " has seen the current RV"
}

// followsText is the upper side of the common range when every server
// that gave an RV keeps up with storage: a server without a watch cache
// reads storage, one with a cache follows it, and one of which that is not
// known showed only that its rv=0 list reached the current RV.
func followsText(v servers.Verdict, see seeCommands) string {
	if len(v.NoWatchCache) == v.Servers {
		return "(" + see.no("server") + " has a watch cache for this resource: each reads storage, always current)"
	}
	who := see.every("server")
	if len(v.NewestUnknown) > 0 {
		who += " whose cache RV was read"
	}
	var parts []string
	if len(v.NoWatchCache) > 0 {
		parts = append(parts, strings.Join(v.NoWatchCache, ", ")+" read storage directly, with no watch cache for this resource")
		who = strings.Replace(who, "every ", "every other ", 1)
	}
	switch {
	case see.notOwn != "":
		parts = append(parts, who+" serves up to the current RV: its rv=0 list reached it right after a consistent list ("+see.notOwn+")")
	case len(v.CacheUnknown) > 0:
		parts = append(parts, who+" serves up to the current RV: its rv=0 list reached it right after a consistent list (from its watch cache, or from storage if it has none: "+cacheUnknownText(v, see)+")")
	default:
		parts = append(parts, who+" follows storage: its watch cache reached the current RV right after a consistent list")
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// answeredText counts the servers that answered every read, and names
// those that answered only some, or none.
func answeredText(r ServersReport) string {
	v := r.Verdict
	var partly, none, broke []string
	for _, s := range r.Servers {
		switch {
		case s.Error == "":
		case s.Reason == sweep.ReasonContractBreach:
			// An answer, not a failure to answer: said as the error line
			// says it (adversary try 38 F3: "failed: X (Other)" above
			// "1 of 2 API servers answered in breach").
			broke = append(broke, s.Endpoint)
		case s.Answered():
			partly = append(partly, s.Endpoint+" ("+s.Reason+")")
		default:
			none = append(none, s.Endpoint+" ("+s.Reason+")")
		}
	}
	within := ""
	if len(broke) > 0 {
		// Those are answers too: the count is of the others (adversary
		// try 39 F4: "0 of 2 servers; answered in breach: X").
		within = " within the List and Watch contract"
	}
	out := fmt.Sprintf("%d of %s%s", v.Answered, text.Count(v.Servers, "server"), within)
	if in := r.Interrupted; in != nil {
		out = fmt.Sprintf("%d of the %s%s measured before the signal (of %d)", v.Answered, text.Count(in.Done, "server"), within, in.Of)
	}
	if len(broke) > 0 {
		out += "; answered in breach of it: " + strings.Join(broke, ", ")
	}
	if len(partly) > 0 {
		out += "; only partly: " + strings.Join(partly, ", ")
	}
	if len(none) > 0 {
		out += "; failed: " + strings.Join(none, ", ") // no answer, or none that could be read (a 403, a body cut or empty)
	}
	return out
}

func commonText(v servers.Verdict, ss []*servers.Server, probe bool, see seeCommands) string {
	if v.CommonEmpty {
		return fmt.Sprintf("no RV is served by %s now: server %s forgets below RV %d, server %s has seen only up to RV %d",
			see.every("server"), v.CommonFromServer, v.CommonFrom, v.CommonToServer, v.CommonTo)
	}
	high := followsText(v, see)
	if v.CommonToLagging {
		high = fmt.Sprintf("(above %d server %s has not seen the RV and does not catch up: 504 on a relist, a watch held)", v.CommonTo, v.CommonToServer)
	}
	unknownTo := newestUnknownText(v, ss)
	if !v.CommonFromKnown {
		// No window was measured: below which RV a server answers 410 is
		// unknown, so no range is claimed, only the 504 side.
		why := "no window was searched (" + see.window + " finds each server's oldest RV)"
		if probe {
			why = see.no("server") + "'s window was measured (see the NOTE column)"
		}
		who := see.any("server")
		if len(v.NewestUnknown) > 0 {
			who = "the servers whose cache RV was read"
		}
		return fmt.Sprintf("a reconnect from an RV up to %d gets no 504 from %s %s%s; whether it gets 410 is unknown: %s",
			v.CommonTo, who, high, unknownTo, why)
	}
	covered := v.Covered(ss)
	all := len(covered) == len(ss)
	low := fmt.Sprintf("(below %d server %s answers a watch with 410)", v.CommonFrom, v.CommonFromServer)
	if v.CommonFrom <= 1 {
		low = "(nothing has expired on " + see.any("server") + ")"
		if len(v.OldestUnknown) > 0 {
			low = "(nothing has expired on the servers whose window was measured)"
		}
	}
	who := see.every("server")
	if !all {
		who = strings.Join(covered, ", ") + " (the servers whose window and cache RV were measured)"
		if len(covered) == 0 {
			who = see.no("server") + " known to serve all of it (its bounds were measured on different servers)"
		}
	}
	out := fmt.Sprintf("a reconnect from any RV in [%d, %d] is served at once by %s %s %s", v.CommonFrom, v.CommonTo, who, low, high)
	var unknownFrom []string
	for _, e := range v.OldestUnknown {
		if !slices.Contains(v.NewestUnknown, e) {
			unknownFrom = append(unknownFrom, e)
		}
	}
	if len(unknownFrom) > 0 {
		out += "; not known for " + strings.Join(unknownFrom, ", ") + ": its oldest RV was not measured, a reconnect to it may get 410"
	}
	return out + unknownTo
}

func reconnectText(rc *servers.Reconnect, probe bool, ss []*servers.Server, see seeCommands) string {
	var bad, ok, no504 []string
	ahead := 0
	for _, a := range rc.Answers {
		switch a.Answer {
		case servers.AnswerExpired:
			bad = append(bad, fmt.Sprintf("%s answers 410 Expired (%s below its oldest)", a.Endpoint, text.Count(a.By, "RV")))
		case servers.AnswerTooLarge:
			// Ahead of what the server serves (servers.ReachOf): never
			// "serves it" (fresh user try 19 #2).
			ahead++
			of := "its cache"
			if a.AheadOfCurrent {
				of = fmt.Sprintf("the newest current RV %d", a.ServesUpTo)
			}
			bad = append(bad, fmt.Sprintf("%s answers 504 TooLarge on a relist (%s ahead of %s)", a.Endpoint, text.Count(a.By, "RV"), of))
		case servers.AnswerUnknown:
			bad = append(bad, a.Endpoint+" unknown")
		case servers.AnswerNotTooLarge:
			no504 = append(no504, a.Endpoint)
		default:
			ok = append(ok, a.Endpoint)
		}
	}
	why := "the newest current RV: an informer that just listed on the freshest server"
	if rc.Why == "given" {
		why = "--from-rv"
	}
	out := "(" + why + ") "
	if len(bad) == 0 && len(no504) == 0 {
		return out + see.every("server") + " serves it"
	}
	if ahead == len(rc.Answers) {
		out += see.no("server") + " has reached it: "
	}
	parts := bad
	if ahead > 0 {
		parts = append(parts, "a watch from it is held silently until the server gets there (kine without a watch cache ends it at once)")
	}
	if len(ok) > 0 {
		parts = append(parts, "served by "+strings.Join(ok, ", "))
	}
	if len(no504) > 0 {
		what := "no window searched"
		if probe {
			what = "its window was not measured"
		}
		parts = append(parts, fmt.Sprintf("%s; 410 not known (%s)", no504Text(no504, len(no504) == len(rc.Answers), ss, see), what))
	}
	return out + strings.Join(parts, "; ")
}

func oneLineVerdict(v servers.Verdict) string {
	parts := []string{}
	if v.Answered < v.Servers {
		parts = append(parts, fmt.Sprintf("%d of %s answered every read (see the NOTE column)", v.Answered, text.Count(v.Servers, "server")))
	}
	if v.LargestLag > 0 {
		parts = append(parts, fmt.Sprintf("server %s lags %s", v.LargestLagServer, text.Count(v.LargestLag, "RV")))
	}
	if v.CommonEmpty {
		parts = append(parts, fmt.Sprintf("no common window (oldest %d on %s > cache RV %d on %s)", v.CommonFrom, v.CommonFromServer, v.CommonTo, v.CommonToServer))
	}
	return strings.Join(parts, "; ")
}

func firstWords(s string, n int) string {
	w := strings.Fields(s)
	if len(w) > n {
		return strings.Join(w[:n], " ") + " ..."
	}
	return s
}

// cacheUnknownText names the servers of which it is not known whether
// they have a watch cache for the resource.
func cacheUnknownText(v servers.Verdict, see seeCommands) string {
	if len(v.CacheUnknown)+len(v.NoWatchCache) >= v.Answered+v.AnsweredPartly {
		return "which is not known here: " + see.metrics + " shows each server's watch cache"
	}
	return "not known for " + strings.Join(v.CacheUnknown, ", ")
}

// no504Text says why the servers no504 answer no 504 to the reconnect (its
// RV is at most their cache RV), by what was measured of each one's watch
// cache (Server.WatchCache): one with none serves the RV from storage, and
// where that is not known, the RV is at most what its rv=0 list returned,
// whoever served it. all: every server answered so.
func no504Text(no504 []string, all bool, ss []*servers.Server, see seeCommands) string {
	state := map[string]string{}
	for _, s := range ss {
		state[s.Endpoint] = s.WatchCache
	}
	groups := map[string][]string{}
	for _, e := range no504 {
		st := state[e]
		if st != servers.CacheOn && st != servers.CacheOff {
			st = servers.CacheUnknown
		}
		groups[st] = append(groups[st], e)
	}
	why := map[string]string{
		servers.CacheOn:      "the RV is within the watch cache there",
		servers.CacheOff:     "no watch cache there: storage serves every RV up to its current one",
		servers.CacheUnknown: "the RV is at most the one its rv=0 list returned, from its watch cache or, where it has none, from storage",
	}
	var parts []string
	for _, st := range []string{servers.CacheOn, servers.CacheOff, servers.CacheUnknown} {
		eps := groups[st]
		if len(eps) == 0 {
			continue
		}
		if all && len(groups) == 1 {
			return see.no("server") + " answers 504 (" + why[st] + ")"
		}
		parts = append(parts, "no 504 from "+strings.Join(eps, ", ")+" ("+why[st]+")")
	}
	return strings.Join(parts, "; ")
}

// notOwn says, for a resource the API servers are not known to serve
// themselves (serverinfo.ServesSeen, the one decision: a built-in group,
// the facts list reads (Server), or a watch cache a server's /metrics
// showed), whose cache or storage their
// rv=0 lists read; "" for their own. Then no "its watch cache" and no
// "follows storage" is said of them (adversary try 21 F8).
func (r ServersReport) notOwn() string {
	seen := false
	for _, s := range r.Servers {
		if s.Metrics != nil && s.Metrics.Found() {
			seen = true
		}
	}
	if serves, why := serverinfo.ServesSeen(r.Resource, r.Server, seen); serves != serverinfo.Yes {
		return "from the watch cache or the storage of the server that serves " + text.Echo(r.Resource) + ", which is not known to be this API server: " + why
	}
	return ""
}

// NeedsServer: the verdict names whose cache or storage the servers'
// lists read, and only the facts list reads (Server) can tell that they
// are the servers' own: nothing the run read showed it.
func (r ServersReport) NeedsServer() bool { return r.Server == nil && r.notOwn() != "" }

// newestUnknownText names the servers up to which RV a reconnect is
// served is not known of (Verdict.NewestUnknown), each with what its row
// shows: no RV at all, or a current RV and no cache RV (its rv=0 list
// failed: adversary try 22, "no RV was read from it" beside a row with
// CURRENT RV and OLDEST RV).
func newestUnknownText(v servers.Verdict, ss []*servers.Server) string {
	var none, noCache []string
	for _, e := range v.NewestUnknown {
		i := slices.IndexFunc(ss, func(s *servers.Server) bool { return s.Endpoint == e })
		if i >= 0 && ss[i].CurrentKnown {
			noCache = append(noCache, e)
		} else {
			none = append(none, e)
		}
	}
	out := ""
	if len(none) > 0 {
		out += "; not known for " + strings.Join(none, ", ") + ": no RV was read from it"
	}
	if len(noCache) > 0 {
		out += "; not known for " + strings.Join(noCache, ", ") + ": its cache RV was not read (see the NOTE column), only its current RV"
	}
	return out
}
