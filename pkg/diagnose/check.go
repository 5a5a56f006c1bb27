package diagnose

import (
	"fmt"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Check compares the RV of an error with a cluster's current RV, read now
// (explain-error --check). The current RV of a consistent list is etcd's
// current revision, shared by every resource stored in the same etcd.
type Check struct {
	Resource                 string `json:"resource"`
	Namespace                string `json:"namespace,omitempty"`
	CurrentResourceVersion   string `json:"currentResourceVersion"`
	RequestedResourceVersion string `json:"requestedResourceVersion,omitempty"`
	Behind                   string `json:"behind,omitempty"` // current - requested
	Ahead                    string `json:"ahead,omitempty"`  // requested - current
	Verdict                  string `json:"verdict"`
	// ServedBy says who served the consistent read of the current RV, from
	// what is known of the server ("" when nothing was read of it).
	ServedBy string `json:"servedBy,omitempty"`
	// NoWatchCache: the resource has no watch cache on this server now,
	// from its /metrics (set only for a text that names a watch cache).
	NoWatchCache bool `json:"noWatchCache,omitempty"`
	// WatchCache: the resource has a watch cache on this server now, from
	// its /metrics (set only for a text that names storage as the watch's
	// answerer: NamesWatchAnswerer).
	WatchCache bool `json:"watchCache,omitempty"`
	// Tried is the request repeated now to check the verdict (nil when
	// nothing was tried: then the verdict claims nothing about it).
	Tried *Tried `json:"tried,omitempty"`
	// RequestFrom says where the collection asked came from: the error's
	// URL (RequestFromURL), --resource (RequestFromFlag), or --resource's
	// default where the text names none (RequestFromDefault). What one
	// resource's watch cache answers says nothing of another's window:
	// only the first two are the error's own request (Reconcile).
	RequestFrom string `json:"requestFrom,omitempty"`
	// TextServer is the server the text's URL names when its address is
	// not the one checked (host:port): said, never weighed (one server
	// has several addresses: adversary try 51 F10), fresh user try 50 F2.
	TextServer    string `json:"textServer,omitempty"`
	CheckedServer string `json:"checkedServer,omitempty"`
	// Untried says why nothing was tried although the RVs were compared
	// (the error's request is no list or watch: a GET of one object).
	Untried string `json:"untried,omitempty"`
}

// GetOfOne reports whether r reads one object with a GET, as the API
// server serves its URL (a name outside the /watch/ path, whatever its
// query): no list or watch to ask again (fresh user try 51 F3:
// ".../configmaps/a?resourceVersion=100&watch=true" was tried as a watch
// of a).
func (r *Request) GetOfOne() bool { return r != nil && r.Name != "" && r.Operation == "" }

// UntriedGet is why a GET of one object is not asked again.
func (r *Request) UntriedGet() string {
	return fmt.Sprintf("nothing tried: the text's URL is a GET of %s (the API server watches one object only on its /watch/ path), which is not asked again", r.says())
}

// Where Check.RequestFrom's collection came from.
const (
	RequestFromURL     = "url"
	RequestFromType    = "type" // the one resource of the Go type the text names
	RequestFromFlag    = "resource-flag"
	RequestFromDefault = "resource-default"
)

// sameRequest: the check asked the error's own collection.
func (c Check) sameRequest() bool { return c.RequestFrom != RequestFromDefault }

// Tried is one request made by --check and its answer.
type Tried struct {
	Request string `json:"request"`
	Works   bool   `json:"works"`
	// Refused: the server refused it with the error's own class (a 410
	// for an Expired RV, a 504 for a TooLarge one), not another failure.
	Refused bool `json:"refused,omitempty"`
	// Held: the server held the request, a connection made, and the
	// request's own time bound ended it before any answer: a list not
	// older than an RV a watch cache has not reached is held (up to 3 s)
	// before its 504, so a --request-timeout shorter than that hold cuts
	// it (fresh user try 41 F2): no answer, neither works nor fails.
	Held bool `json:"held,omitempty"`
	// Broken: the connection broke before the answer (its body cut,
	// mid-event too, or reset): no answer, neither works nor fails, said
	// in Answer as every cut body is said.
	Broken bool `json:"broken,omitempty"`
	// EndedAtOnce: the server answered the watch and ended its stream
	// before any event (kine without a watch cache does, for an RV ahead
	// of it): an answer that neither starts the watch nor refuses it.
	EndedAtOnce bool   `json:"endedAtOnce,omitempty"`
	Answer      string `json:"answer"`
	// Inconsistent says why the refusal's numbers cannot come from one
	// answer to the request tried (the damaged-numbers rule, consistency.go,
	// as every --endpoints row applies it): such a refusal confirms
	// nothing, and Reconcile lowers the confidence (adversary try 28 F7).
	Inconsistent string `json:"inconsistent,omitempty"`
}

// HeldBound is how long a watch cache holds a list not older than an RV
// it has not reached before its 504 TooLarge (the cacher's wait for the
// RV, seen as ~3 s on v1.30 to v1.37): only a request time bound under it
// ends such a list before its answer, as the held sentence says (adversary
// try 43 F1: "held" of a 3.9 s bound, beside "up to 3 s").
const HeldBound = 3 * time.Second

// HeldAnswerBound is the least request time bound that shows the answer
// to such a held list: the hold's 3 s and the time the 504 takes to come.
// A bound under it may end the list first, with no answer or with the
// 504's status and no body (adversary try 44 F4: --request-timeout 3s,
// exit 4 "check that the cluster is up" in 3 runs of 4 on a healthy server).
const HeldAnswerBound = HeldBound + time.Second

// sentence is the request tried, as the verdict ends with it: after the
// RVs compared, which "Checked now" heads already (so not "checked now"
// again).
func (t *Tried) sentence() string {
	if t.Works {
		return fmt.Sprintf("tried: %s works (%s)", t.Request, t.Answer)
	}
	if t.Inconsistent != "" {
		return fmt.Sprintf("tried: %s is refused (%s), but that answer's numbers are inconsistent (%s), so it confirms nothing: whether the RV is still served was not checked", t.Request, t.Answer, t.Inconsistent)
	}
	if t.Broken {
		return fmt.Sprintf("tried: %s got no answer: %s", t.Request, t.Answer)
	}
	if t.EndedAtOnce {
		return fmt.Sprintf("tried: %s was answered, and the server ended its stream before any event: it neither started nor was refused", t.Request)
	}
	if t.Held {
		return fmt.Sprintf("tried: %s was held until the request's time bound ended it (%s): a watch cache holds a list not older than an RV it has not reached up to 3 s before its 504 TooLarge; a request time bound of %s or more shows the answer", t.Request, t.Answer, HeldAnswerBound)
	}
	return fmt.Sprintf("tried: %s fails (%s)", t.Request, t.Answer)
}

// Now is the cluster's current RV as --check read it (a consistent list),
// and what is known of that read: the storage whose current revision it
// is, and who served it. Both are words chosen from the server's known
// facts (serverinfo: ListSource, StorageName); "" when none were read, and
// then no server is named.
type Now struct {
	ResourceVersion string
	Storage         string
	ServedBy        string
	// NoWatchCache and WatchCache: the server's /metrics shows no watch
	// cache, or one, for the resource now (read only for a text that names
	// who answered a watch: NamesWatchAnswerer).
	NoWatchCache, WatchCache bool
}

// watchAnswerer is who answers a request with the kind's words: the watch
// cache (its window's 410, its 429 while it catches up) or storage (etcd's
// compaction, where no watch cache serves the watch); "" for a kind that
// does not tell. One rule for both classes: a server whose /metrics shows
// the other answerer now weighs against the text (fresh user try 29 F6).
// The 504 "Too large resource version" tells neither: storage answers a
// list from an RV it has not reached with the same words (etcd3 store's
// validateMinimumResourceVersion; fresh user try 30 F2: a server without
// a watch cache, answering that very 504 now, was said to be "another
// server or another setup").
func watchAnswerer(kind string) string {
	switch kind {
	case KindWatchCacheWindow, KindConsistentReadCacheLagging:
		return "cache"
	case KindEtcdCompactedWatch:
		return "storage"
	}
	return ""
}

// NamesWatchAnswerer reports whether the kind's words name who answered a
// watch, so that --check reads whether the server has a watch cache for
// the resource now (Reconcile weighs it).
func NamesWatchAnswerer(kind string) bool { return watchAnswerer(kind) != "" }

// CompareNow builds a Check from a diagnosis, the RV it is about (requested,
// from the error or given by the user) and the current RV read now.
func CompareNow(d Diagnosis, requested string, now Now, tried *Tried) (c Check) {
	current := now.ResourceVersion
	c = Check{CurrentResourceVersion: current, RequestedResourceVersion: requested, Tried: tried, ServedBy: now.ServedBy, NoWatchCache: now.NoWatchCache, WatchCache: now.WatchCache}
	defer func() {
		if tried != nil {
			c.Verdict += "; " + tried.sentence()
		}
	}()
	if requested == "" {
		c.Verdict = fmt.Sprintf("the cluster is at RV %s now; the error names no resourceVersion to compare with (pass --rv)", current)
		return c
	}
	c.Behind = rv.Gap(current, requested)
	c.Ahead = rv.Gap(requested, current)
	if c.Ahead == "0" {
		c.Ahead = ""
	}
	ahead := c.Ahead != ""
	switch {
	case !ahead && c.Behind == "":
		c.Verdict = fmt.Sprintf("RV %s and the current RV %s cannot be compared as numbers", requested, current)
	case d.Class == ClassExpired && !ahead:
		c.Verdict = fmt.Sprintf("RV %s is %s behind the current RV %s", requested, c.Behind, current)
	case d.Class == ClassExpired:
		c.Verdict = fmt.Sprintf("RV %s is %s ahead of the current RV %s: it does not come from this cluster's history (another cluster, or etcd was restored)", requested, c.Ahead, current)
	case d.Class == ClassTooLarge && ahead:
		storage, served := now.Storage, ""
		if storage == "" {
			storage = "storage (etcd, or a shim such as kine)"
		}
		if now.ServedBy != "" {
			served = ", " + now.ServedBy
		}
		c.Verdict = fmt.Sprintf("RV %s is still %s ahead of the current RV %s, the current revision of %s (a consistent read%s): that storage never had it; it comes from another cluster or from before a restore of the storage", requested, c.Ahead, current, storage, served)
	case d.Class == ClassTooLarge && now.NoWatchCache:
		c.Verdict = fmt.Sprintf("the cluster has reached RV %s since (it is at %s, %s past it): the error was a lag, but not of this server's watch cache, which it has none of for the resource now (another API server behind, or a watch cache switched off since)", requested, current, c.Behind)
	case d.Class == ClassTooLarge:
		c.Verdict = fmt.Sprintf("the cluster has reached RV %s since (it is at %s, %s past it): the error was a lag (a watch cache catching up, or another API server behind)", requested, current, c.Behind)
	case ahead:
		c.Verdict = fmt.Sprintf("RV %s is %s ahead of the current RV %s", requested, c.Ahead, current)
	default:
		c.Verdict = fmt.Sprintf("RV %s is %s behind the current RV %s", requested, c.Behind, current)
	}
	return c
}

// Reconcile keeps a diagnosis from contradicting what --check measured.
// Facts against the text's claim: the text names who answered a watch (the
// watch cache, or storage) and the server's /metrics shows the other one
// serves the resource's watches now; the request repeated now is refused
// as another kind of the same class (the text is the watch cache's 410,
// the server answers with storage's now); or the text's RV is said to
// have expired but is ahead of the current RV (it never was in this
// cluster's history). Both answerer directions are weighed alike (fresh
// user try 26 F3). What --check found is one note, every fact in it (fresh
// user try 27 F5), the confidence is low, and every text that states the
// claim, headline included, is told as the text's claim (contradicted:
// adversary try 28 F8). A refusal whose own numbers are inconsistent is
// no such fact, nor a confirmation: it lowers the confidence, with a note
// (adversary try 28 F7).
func Reconcile(d Diagnosis, c Check) Diagnosis {
	if d.Class == ClassTooLarge && c.NoWatchCache {
		d = withoutOwnCache(d)
	}
	var found, claims []string
	who := watchAnswerer(d.Kind)
	switch {
	case !c.sameRequest():
		// Another resource's cache and answers: no fact about the
		// error's (noteOtherResource says so).
	case who == "cache" && c.NoWatchCache:
		found = append(found, fmt.Sprintf("this server has no watch cache for %s now (its /metrics)", c.Resource))
	case who == "storage" && c.WatchCache:
		found = append(found, fmt.Sprintf("this server has a watch cache for %s now (its /metrics), which answers a watch from an RV before its window with \"too old resource version: X (Y)\", not with storage's words", c.Resource))
	}
	damaged := c.Tried != nil && c.Tried.Inconsistent != ""
	var confirmed string
	if c.Tried != nil && c.Tried.Refused && !damaged && c.sameRequest() {
		// (Nothing tried, it worked, or it failed otherwise: a 500 that
		// quotes a 410's words is no refusal of the RV.)
		now := FromText(c.Tried.Answer)
		switch {
		case !now.Recognized() || now.Class != d.Class || now.Kind == d.Kind:
		case refines(now.Kind, d.Kind):
			// The text's words name no answerer (a bare 410, "too old
			// resource version" without its numbers); the same refusal
			// now, with the words that name one, confirms it (adversary
			// try 51 F16: a -v=6 "410 Gone" line, refused now with the
			// same 410, was "checked now, this server says otherwise").
			confirmed = fmt.Sprintf("the same request, tried now, is refused by this server as the text says, with the words of %s that the text's %s leaves out (%s)", now.Kind, d.Kind, c.Tried.Answer)
		default:
			found = append(found, fmt.Sprintf("the same request, tried now, is refused by this server as %s, not as the text's %s", now.Kind, d.Kind))
		}
	}
	if len(found) > 0 {
		claims = append(claims, "it was answered by "+map[string]string{"cache": "the watch cache", "storage": "storage (etcd, or a shim such as kine)"}[who])
		if who == "" {
			claims[0] = "it was answered as " + d.Kind
		}
	}
	if d.Class == ClassExpired && c.Tried != nil && c.Tried.Works && c.sameRequest() {
		// The text says the RV could no longer be served; the same request,
		// tried now, is served by this server: no server's window moves
		// back, so the refusal came from elsewhere or before (adversary
		// try 29 F3).
		req := c.RequestedResourceVersion
		if req == "" {
			req = d.RequestedResourceVersion
		}
		found = append(found, fmt.Sprintf("the same request, tried now, works on this server (%s: %s), so this server serves RV %s now", c.Tried.Request, c.Tried.Answer, req))
		claims = append(claims, fmt.Sprintf("RV %s could no longer be served by the API server that answered", req))
	}
	if d.Class == ClassExpired && c.Ahead != "" {
		found = append(found, fmt.Sprintf("RV %s is %s ahead of the current RV %s, so no API server or storage of this cluster has expired it", c.RequestedResourceVersion, c.Ahead, c.CurrentResourceVersion))
		claims = append(claims, fmt.Sprintf("RV %s expired in this cluster's history", c.RequestedResourceVersion))
	}
	var notes []string
	if confirmed != "" {
		notes = append(notes, confirmed)
	}
	if c.TextServer != "" {
		// Only that the addresses differ is known: the same server has
		// several (localhost and 127.0.0.1, the in-cluster Service
		// 10.96.0.1:443 or kubernetes.default.svc), so it never weighs
		// against what was measured (adversary try 51 F10: a watch refused
		// now with the text's very 410 was "another server").
		notes = append(notes, fmt.Sprintf("the text's request went to %s, and the server checked is %s: another address, which may be this server under another name (localhost, an in-cluster Service address) or another server", text.Echo(c.TextServer), text.Echo(c.CheckedServer)))
	}
	if !c.sameRequest() && c.Tried != nil && d.Class == ClassExpired {
		// (A TooLarge's check rests on the current RV, which every
		// resource of the storage shares: fresh user try 49 F5.)
		notes = append(notes, noteOtherResource(c))
	}
	if len(found) > 0 {
		notes = append(notes, strings.Join(found, "; and ")+": the error came from another server or another setup (another API server behind the same address (HA), this server before a restart (another window then), a watch cache switched on or off since, another cluster, or a restore of etcd), so what the text says happened is not certain")
	}
	if damaged {
		what := "the same request, tried now,"
		if !c.sameRequest() {
			what = "what was tried"
		}
		notes = append(notes, fmt.Sprintf("%s was refused with numbers that cannot come from one answer (%s): that refusal confirms nothing", what, c.Tried.Inconsistent))
	}
	if len(notes) == 0 {
		return d
	}
	d.Notes = append(append([]string(nil), d.Notes...), notes...)
	if len(found) == 0 && !damaged {
		return d // only notes that weigh nothing against the text
	}
	d.Confidence = ConfidenceLow
	if len(claims) == 0 {
		return d
	}
	return contradicted(d, claims)
}

// refines reports whether a refusal of kind now is one the text's kind
// names without its words: a bare 410 (Gone) is any Expired refusal, and
// "too old resource version" without its numbers is the watch cache's
// (its window's or its snapshots'). Such a refusal now is the text's,
// told more fully, not another.
func refines(now, textKind string) bool {
	switch textKind {
	case KindGone:
		return true
	case KindTooOldResourceVersion:
		return now == KindWatchCacheWindow || now == KindWatchCacheSnapshot
	}
	return false
}

// noteOtherResource says that what was tried asked another collection
// than the error's, for a text that names none: its answer is no fact
// about the error's resource.
func noteOtherResource(c Check) string {
	where := c.Resource
	if c.Namespace != "" {
		where += " in namespace " + c.Namespace
	}
	return fmt.Sprintf("what was tried (%s) asked %s, no collection the text names, and a watch cache's window is one resource's: that answer says nothing of the error's", c.Tried.Request, where)
}
