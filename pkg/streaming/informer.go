package streaming

import (
	"cmp"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
	"slices"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Judge sets the status, the informer outcome and the explanation of a
// result from what was observed. The informer rules are those of
// k8s.io/client-go v0.37.2 tools/cache/reflector.go, where WatchListClient
// is on by default since 1.35:
//
//   - ListAndWatchWithContext calls watchList; only when watchList returns an
//     error does it fall back to a list then a watch (fallbackToList).
//   - watchList retries, as a streaming watch again, an error for which
//     isWatchErrorRetriable holds (connection refused, 429), after a backoff,
//     and an Expired or TooLarge one (with the RV reset to ""). Any other
//     error (400, 403, 404, 422, 500, ...), whether the watch request is
//     refused or the stream carries it as an ERROR event, is returned:
//     fallback.
//   - handleListWatch reads until the bookmark annotated
//     k8s.io/initial-events-end. A stream that ends before it returns no
//     error, and watchList opens a new streaming watch, forever: the
//     informer never syncs (a warning is logged every 10s). The one
//     exception is a stream that closes within a second having sent no
//     event at all: VeryShortWatchError, an error, hence fallback.
func Judge(r *Result) {
	switch {
	case r.BookmarkReceived:
		r.Informer = InformerWorks
		r.Status = StatusCorrect
		switch {
		case r.CountUnchecked:
			// The check stopped before the count: whatever it found
			// before, it cannot call the stream correct or not.
			r.Status = StatusUnverified
		case len(r.Problems) > 0:
			r.Status = StatusIncorrect
		}
		r.Explanation = "the initial-events-end bookmark arrived: the informer syncs from the stream"
		switch {
		case r.Status == StatusIncorrect && !watchstream.ResumableEnd(r.BookmarkResourceVersion) && r.Difference == nil:
			// The state matched; its RV is the problem (adversary try 45
			// F4: "does not match a list" of 2 objects that matched).
			r.Explanation = "the informer syncs, then keeps the end bookmark's RV, which no watch resumes from: its next watch fails or starts the state over"
		case r.Status == StatusIncorrect:
			r.Explanation = "the informer syncs, but from a stream that does not match a list: its cache may be wrong"
		}
	case r.Code == 401:
		// Not an answer about streaming: the credentials were rejected, and
		// an informer with them fails its list as much as its watch.
		r.Status, r.Informer = StatusError, InformerUnknown
		r.Explanation = fmt.Sprintf("%s: the server rejected the credentials, so nothing about streaming lists was checked (an informer with these credentials cannot list either)", r.statusText())
	case r.Code != 0:
		r.Status = StatusRefused
		switch {
		case r.Code == 429 || r.Code == 403:
			// Not a refusal of the streaming list: the request was not
			// let through, so the stream is "error", as of a 401
			// (adversary try 38 F7: "refused" of a 403 and a 429).
			r.Status = StatusError
			// The check's own request failed (throttled, or RBAC):
			// nothing about streaming lists was checked, as of a 401,
			// and the row says so as the verdict does (adversary tries
			// 32 F1 and 33 F2: "retries" and "falls-back" in the row,
			// "unknown" in the verdict). What client-go does with such
			// an answer is said as what it would do.
			r.Informer = InformerUnknown
			r.Explanation = fmt.Sprintf("%s: throttled, so nothing about streaming lists was checked (an informer retries a 429 after a backoff as a streaming watch again, isWatchErrorRetriable)", r.statusText())
			if r.Code == 403 {
				r.Explanation = fmt.Sprintf("%s: RBAC, so nothing about streaming lists was checked (an informer would fall back to a list, then a watch, which this user is likely refused too: grant list and watch)", r.statusText())
			}
		case r.Code == 410 || metav1.StatusReason(r.Reason) == metav1.StatusReasonExpired || metav1.StatusReason(r.Reason) == metav1.StatusReasonGone || diagnose.MentionsTooLarge(r.Message):
			r.Informer = InformerRetries
			r.Explanation = fmt.Sprintf("%s is retried as a streaming watch from RV \"\" (the Reflector resets its RV): no fallback", r.statusText())
		default:
			r.Informer = InformerFallsBack
			r.Explanation = fmt.Sprintf("%s is returned by watchList: the informer falls back to a list, then a watch", r.statusText())
		}
	case r.Error != "":
		r.Status, r.Informer = StatusError, InformerUnknown
		r.Explanation = "the check could not finish: " + text.OneLine(r.Error)
	case r.StreamEnded && r.FirstEventMillis == 0 && r.StreamMillis < 1000:
		r.Status, r.Informer = StatusBroken, InformerFallsBack
		r.Explanation = "the stream closed within a second without any event: client-go's VeryShortWatchError, so the informer falls back to a list, then a watch"
	case r.StreamEnded:
		r.Status, r.Informer = StatusBroken, InformerHangs
		r.Explanation = "the stream ended without the initial-events-end bookmark: the informer opens a new streaming watch, again and again, and never syncs"
	default:
		r.Status, r.Informer = StatusBroken, InformerHangs
		r.Explanation = cmp.Or(r.stall, "no initial-events-end bookmark within the deadline") + ": the informer waits for it until the watch times out (5-10 min), opens a new one, and never syncs"
	}
}

// ClusterVerdict is the summary of many checks.
type ClusterVerdict struct {
	Works     []string `json:"works"`
	FallsBack []string `json:"fallsBack"`
	Hangs     []string `json:"hangs"`
	Retries   []string `json:"retries"`
	Unknown   []string `json:"unknown"`
	// ContractBroken lists the resources whose list or stream broke the
	// List or Watch contract: measured, not unknown for want of an
	// answer (adversary try 34 F3); the run exits 1.
	ContractBroken []string `json:"contractBroken"`
	// Incorrect lists the resources whose stream syncs an informer with a
	// state that does not match a list.
	Incorrect []string `json:"incorrect"`
	Summary   string   `json:"summary"`
}

// Summarize builds the verdict for the cluster.
func Summarize(results []Result) ClusterVerdict {
	v := ClusterVerdict{Works: []string{}, FallsBack: []string{}, Hangs: []string{}, Retries: []string{}, Unknown: []string{}, ContractBroken: []string{}, Incorrect: []string{}}
	var unverified []string
	for _, r := range results {
		if r.RequestFailure() != diagnose.FailureNone {
			// The check's own request failed (403, 429, no answer ...):
			// the row is not measured, and the verdict covers only what
			// was answered (fresh user try 30 F3: "will fall back to
			// list+watch on ... and 58 more" of 63 forbidden rows, above
			// "none of the 63 resources could be measured").
			v.Unknown = append(v.Unknown, r.Resource)
			continue
		}
		if diagnose.BrokeContract(r.Err) {
			v.ContractBroken = append(v.ContractBroken, r.Resource)
			continue
		}
		switch r.Informer {
		case InformerWorks:
			v.Works = append(v.Works, r.Resource)
		case InformerFallsBack:
			v.FallsBack = append(v.FallsBack, r.Resource)
		case InformerHangs:
			v.Hangs = append(v.Hangs, r.Resource)
		case InformerRetries:
			v.Retries = append(v.Retries, r.Resource)
		default:
			v.Unknown = append(v.Unknown, r.Resource)
		}
		if r.Status == StatusIncorrect {
			v.Incorrect = append(v.Incorrect, r.Resource)
		}
		if r.Status == StatusUnverified {
			unverified = append(unverified, r.Resource)
		}
	}
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%s on %s", what, nameList(names)))
		}
	}
	add("will hang", v.Hangs)
	add("will fall back to list+watch", v.FallsBack)
	add("will retry the streaming watch", v.Retries)
	// Each resource in one clause: one whose informer syncs is said to
	// work only where the state it syncs matched a list (adversary try
	// 41 F8: "will work on configmaps, endpoints; 1 sync a state that
	// does not match a list (endpoints)"); what was not compared is not
	// claimed (fresh user try 14). JSON's works stays the INFORMER
	// column's.
	add("will work", without(v.Works, v.Incorrect, unverified))
	add("will sync a wrong state (one that does not match a list, or whose RV no watch resumes from)", v.Incorrect)
	add("will sync a state that was not compared with a list (unverified: see its note)", unverified)
	add("cannot be judged (the check failed)", v.Unknown)
	add("cannot be judged, as this API server broke the List or Watch contract (see the NOTE)", v.ContractBroken)
	if len(parts) == 0 {
		v.Summary = "no resource was checked"
		return v
	}
	v.Summary = "informers built with client-go >= 1.35 " + strings.Join(parts, "; ")
	return v
}

// without is names less those in any of the others.
func without(names []string, others ...[]string) []string {
	out := []string{}
	for _, n := range names {
		in := false
		for _, o := range others {
			in = in || slices.Contains(o, n)
		}
		if !in {
			out = append(out, n)
		}
	}
	return out
}

// nameList names up to five resources and counts the rest.
func nameList(names []string) string {
	if len(names) <= 5 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
}

// statusText is the refusal's code and reason ("404 Not Found" when the
// Status gave no reason), as every error line names a status.
func (r *Result) statusText() string {
	return diagnose.StatusText(metav1.Status{Code: r.Code, Reason: metav1.StatusReason(r.Reason)})
}

// RefusalEffect is what an informer does with the refusal, without the
// status it starts with (the error line names the status itself).
func (r *Result) RefusalEffect() string {
	if rest, ok := strings.CutPrefix(r.Explanation, r.statusText()+" "); ok {
		return "it " + rest
	}
	return r.Explanation
}
