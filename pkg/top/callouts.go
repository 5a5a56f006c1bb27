package top

import (
	"fmt"
	"math"
	"sort"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Callout is one row that matters, with what it means and the fix.
type Callout struct {
	// Kind: terminated, storage-list-ratio, code-429, code-5xx, code-410,
	// apf-rejected, watch-imbalance, list-imbalance, most-watchers,
	// most-storage-lists.
	Kind string `json:"kind"`
	// Server is the server's number (0: every server).
	Server   int    `json:"server"`
	Resource string `json:"resource,omitempty"`
	What     string `json:"what"`
	Meaning  string `json:"meaning"`
	Fix      string `json:"fix"`
	// Probe: a probe of Resource shows what the fix needs (how far back
	// a watch can start); the command, in the user's context, is built
	// by cmd with pkg/suggest and set in Command.
	Probe   bool   `json:"-"`
	Command string `json:"command,omitempty"`

	rank float64
}

// MaxCallouts is how many rows are called out.
const MaxCallouts = 3

// Storage-list ratio callout: at least this many objects read, and this
// many read per object returned.
const (
	ratioMinFetched = 100
	ratioCallout    = 10
)

// callouts ranks what the report shows: problems first (watchers closed,
// 429 and 5xx answers, APF rejections, lists that read storage for few
// objects, 410s, an imbalance across servers), then the heaviest load.
func callouts(r *Report) []Callout {
	var all []Callout
	for _, row := range r.Rows {
		all = append(all, rowCallouts(row, len(r.Servers) > 1)...)
	}
	for _, s := range r.Servers {
		for _, a := range s.APF {
			if a.Rejected.D() <= 0 {
				continue
			}
			all = append(all, Callout{
				Kind: "apf-rejected", Server: s.Index, rank: 850 + a.Rejected.D(),
				What:    fmt.Sprintf("%spriority level %s rejected %s in %s (flow schema %s, reason %s)", serverPrefix(s.Index, len(r.Servers)), a.PriorityLevel, counted(a.Rejected.D(), "request"), secs(a.Rejected.Seconds), a.FlowSchema, a.Reason),
				Meaning: "API Priority and Fairness answered them 429 Too Many Requests: the priority level had no free seat and could not queue them",
				Fix:     fmt.Sprintf("find the client of flow schema %s that floods it and slow it down, or give priority level %s more shares (its PriorityLevelConfiguration's nominalConcurrencyShares)", a.FlowSchema, a.PriorityLevel),
			})
		}
	}
	if r.Imbalance != nil {
		all = append(all, r.Imbalance.callouts()...)
	}
	all = append(all, leaders(r)...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank > all[j].rank })
	if len(all) > MaxCallouts {
		all = all[:MaxCallouts]
	}
	if all == nil {
		all = []Callout{}
	}
	return all
}

// storageListTexts are what lists served by storage mean and their fix,
// by what top measured of the row's watch cache: the fix never offers a
// watch cache the server does not have.
func storageListTexts(row *Row) (meaning, fix string) {
	name := row.Name()
	const noIndex = "storage has no index on labels or fields: a selected list reads every object under its prefix (the namespace, or the whole cluster) and returns the few that match"
	switch row.WatchCache {
	case CacheOff:
		return "this server has no watch cache for " + name + ", so every list reads storage (etcd, or kine); " + noIndex,
			"list less often, narrow the lists to a namespace, or turn the watch cache on for " + name + " (kube-apiserver --watch-cache, --watch-cache-sizes)"
	case CacheOn:
		return "these lists were served by storage (etcd, or kine), not by the watch cache; " + noIndex,
			"serve them from the watch cache: use an informer, or list with resourceVersion=0; or narrow the lists to a namespace"
	}
	return "these lists were served by storage (etcd, or kine); whether this server has a watch cache for " + name + " was not measured; " + noIndex,
		"list less often or narrow the lists to a namespace; where the server has a watch cache for " + name + ", an informer or a list with resourceVersion=0 is served from it"
}

func rowCallouts(row *Row, several bool) []Callout {
	var out []Callout
	name := row.Name()
	at := ""
	if several {
		at = fmt.Sprintf(" on server %d", row.Server)
	}
	base := Callout{Server: row.Server, Resource: name}
	if d := row.Terminated.D(); d > 0 {
		c := base
		c.Kind, c.rank = "terminated", 1000+d
		c.What = fmt.Sprintf("watchers of %s closed as too slow%s: %s in %s", name, at, count(d), secs(row.Terminated.Seconds))
		c.Meaning = "the watch cache closed them because their client did not take its events fast enough (the watcher's buffer stayed full past the cache's dispatch timeout); each of those clients has to watch again"
		c.Fix = fmt.Sprintf("find the slow client (starved of CPU, or blocking in its event handler): the API server's audit log names who watches %s (this plugin's clients command reads it)", name)
		out = append(out, c)
	}
	if d := row.Code429.D(); d > 0 {
		c := base
		c.Kind, c.rank = "code-429", 900+d
		c.What = fmt.Sprintf("%s: %s 429 Too Many Requests%s in %s", name, counted(d, "answer"), at, secs(row.Code429.Seconds))
		c.Meaning = "the server refused these requests: API Priority and Fairness (its rejections by priority level are called out apart when seen) or the max-inflight limit"
		c.Fix = "slow the client down; a client that retries at once makes it worse"
		out = append(out, c)
	}
	if d := row.Code5xx.D(); d > 0 {
		c := base
		c.Kind, c.rank = "code-5xx", 880+d
		c.What = fmt.Sprintf("%s: %s (5xx)%s in %s", name, counted(d, "server error answer"), at, secs(row.Code5xx.Seconds))
		c.Meaning = "the server failed these requests: storage unreachable or slow, a timeout, or (504) a list from a resourceVersion the server has not seen"
		c.Fix = "the server's log says which; this plugin's explain-error command explains the message a client got"
		out = append(out, c)
	}
	if row.StorageListRatio != nil && row.StorageFetched.D() >= ratioMinFetched && *row.StorageListRatio >= ratioCallout {
		c := base
		c.Kind, c.rank = "storage-list-ratio", 800+*row.StorageListRatio
		c.What = fmt.Sprintf("lists of %s read %s from storage to return %s%s (%s in %s)", name, counted(row.StorageFetched.D(), "object"), count(row.StorageReturned.D()), at, counted(row.ListsStorage.D(), "list"), secs(row.ListsStorage.Seconds))
		c.Meaning, c.Fix = storageListTexts(row)
		out = append(out, c)
	}
	if d := row.Code410.D(); d > 0 {
		c := base
		c.Kind, c.rank = "code-410", 750+d
		c.What = fmt.Sprintf("%s: %s 410 Gone%s in %s", name, counted(d, "answer"), at, secs(row.Code410.Seconds))
		c.Meaning = "requests from a resourceVersion or a continue token the server no longer has (a watch's 410 is an ERROR event inside a 200 answer and is not counted here)"
		c.Fix = "the client must list again from the current state (no resourceVersion); a probe shows how far back a watch can start"
		c.Probe = true
		out = append(out, c)
	}
	return out
}

// leaders are the heaviest rows, called out when fewer problems fill the
// three places: the most watchers (of a resource whose events were sent in
// the interval), the most lists from storage.
func leaders(r *Report) []Callout {
	var out []Callout
	var most, lists *Row
	for _, row := range r.Rows {
		// Watchers matter for the events sent to them: with none in the
		// interval, the row is no load of note.
		if row.Watchers.V() > 1 && row.Events.D() > 0 && (most == nil || row.Watchers.V() > most.Watchers.V()) {
			most = row
		}
		if row.ListsStorage.D() > 0 && row.StorageFetched.D() > 0 && (lists == nil || row.ListsStorage.PS() > lists.ListsStorage.PS()) {
			lists = row
		}
	}
	several := len(r.Servers) > 1
	if most != nil {
		sent := ""
		if most.Events.D() > 0 {
			rate, noun := rateText(most.Events.PS()), "events"
			if rate == "1" {
				noun = "event"
			}
			sent = fmt.Sprintf(": %s %s/s sent to them", rate, noun)
			if most.EventBytes.Known() {
				sent += fmt.Sprintf(", %s/s", bytesText(most.EventBytes.PS()))
				if s := serverOf(r, most.Server); s != nil && s.EventBytes == "encoded" {
					sent += " encoded"
				}
			}
		}
		out = append(out, Callout{
			Kind: "most-watchers", Server: most.Server, Resource: most.Name(), rank: 100 + most.Watchers.V(),
			What:    fmt.Sprintf("%s%s has the most watchers: %s%s", serverPrefix(most.Server, boolInt(several)), most.Name(), count(most.Watchers.V()), sent),
			Meaning: "every event of " + most.Name() + " is sent to each watcher that selects it: the watchers multiply the server's event work",
			Fix:     "processes that share one informer per resource (client-go's SharedInformerFactory) open one watch, not one per controller",
		})
	}
	if lists != nil {
		c := Callout{
			Kind: "most-storage-lists", Server: lists.Server, Resource: lists.Name(), rank: 50 + lists.ListsStorage.PS(),
			What:    fmt.Sprintf("%s%s has the most lists served by storage: %s/s (%s read, %s returned)", serverPrefix(lists.Server, boolInt(several)), lists.Name(), rateText(lists.ListsStorage.PS()), counted(lists.StorageFetched.D(), "object"), count(lists.StorageReturned.D())),
			Meaning: "each of them reads storage (etcd, or kine) for every object in its scope",
			Fix:     "a client that polls with lists can watch instead (an informer: one list, then events)",
		}
		switch lists.WatchCache {
		case CacheOn:
			c.Fix += ", or list with resourceVersion=0 from the watch cache"
		case CacheOff:
			c.Meaning = "this server has no watch cache for " + lists.Name() + ": each of them reads storage (etcd, or kine) for every object in its scope"
			c.Fix += ", or list less often; the watch cache (kube-apiserver --watch-cache) would serve lists with resourceVersion=0"
		}
		out = append(out, c)
	}
	return out
}

func serverOf(r *Report, index int) *Server {
	for _, s := range r.Servers {
		if s.Index == index {
			return s
		}
	}
	return nil
}

func serverPrefix(i, n int) string {
	if n > 1 {
		return fmt.Sprintf("server %d: ", i)
	}
	return ""
}

func boolInt(b bool) int {
	if b {
		return 2
	}
	return 1
}

// counted is count(f) and noun, singular for 1 ("1 object", "2.5 objects").
func counted(f float64, noun string) string {
	if f == 1 {
		return "1 " + noun
	}
	return count(f) + " " + text.Plural(noun)
}

func count(f float64) string {
	if f < 0 {
		return num(f)
	}
	if f == float64(uint64(f)) {
		return text.Thousands(uint64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

func secs(s float64) string { return fmt.Sprintf("%.1fs", s) }

// rateText writes a rate with the precision it needs.
func rateText(f float64) string {
	switch {
	case f == 0:
		return "0"
	case f < 10:
		return fmt.Sprintf("%.1f", f)
	}
	return count(float64(int64(f + 0.5)))
}

// bytesText writes a byte count in the plugin's one unit (apiclient.Bytes,
// the request ledger's: B, KiB, MiB).
func bytesText(f float64) string { return apiclient.Bytes(int64(math.Round(f))) }
