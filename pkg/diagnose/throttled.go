package diagnose

import "errors"

// Who sent a 429, decided once for every line that says it: the final
// error line (cmd requesterror.go), and a per-server row's fix (render
// ThrottledFix: a --servers/--endpoints row's hint, top's row fix). Each
// decided it apart, and the rows' hint called the watch cache's lag and
// APF's marked rejection alike "API Priority and Fairness, its
// max-in-flight limit, or a proxy" (adversary try 28 F2).

// Throttler is who a 429 is from, as far as the answer tells.
type Throttler int

const (
	// ThrottleUnmarked: a 429 without API Priority and Fairness's mark
	// (RejectedByAPF): the max-in-flight limit of a server whose APF is
	// off, or a proxy's or a load balancer's.
	ThrottleUnmarked Throttler = iota
	// ThrottleAPF: API Priority and Fairness's rejection, as the
	// transport marked it.
	ThrottleAPF
	// ThrottleCacheLag: the watch cache's 429 (storage/cacher
	// delegator.go): a consistent read it could not serve in time.
	ThrottleCacheLag
	// ThrottleCacheLagMisfit: the watch cache's 429 text answering a
	// request other than a list with resourceVersion unset (a watch, a
	// streaming list, a list from an RV): not the watch cache's answer
	// (adversary try 30 F2).
	ThrottleCacheLagMisfit
)

// ThrottledBy is who sent err, a 429 (ClassifyFailure FailureThrottled),
// judged against the request that got it (AnsweredContext): the watch
// cache's 429 answers only a list with resourceVersion unset (GetList's
// consistent read, storage/cacher delegator.go), so the same text
// answering a watch, a streaming list or a list that sent an RV is not
// the cache's lag (adversary try 30 F2).
func ThrottledBy(err error) Throttler {
	ctx, ok := AnsweredContext(err)
	if !ok {
		ctx = Context{Live: true}
	}
	if d := FromError(err, ctx); d.Kind == KindConsistentReadCacheLagging {
		if d.Inconsistent != "" {
			return ThrottleCacheLagMisfit
		}
		return ThrottleCacheLag
	}
	if RejectedByAPF(err) {
		return ThrottleAPF
	}
	return ThrottleUnmarked
}

// MisfitCacheLagWords says a ThrottleCacheLagMisfit 429.
const MisfitCacheLagWords = "its text is a lagging watch cache's, which answers 429 only to a list with resourceVersion unset and no continue token, and this request was none: not the watch cache's answer"

// Words is who sent the 429, in the words every note and warning that
// quotes one says it with (apiclient.AnswerWords), as the error line does
// (fresh user try 28 F3: "429 TooManyRequests: busy" in Failed: lines and
// notes, where the error line said whose it was).
func (t Throttler) Words() string {
	switch t {
	case ThrottleCacheLag:
		return "its watch cache lags storage"
	case ThrottleCacheLagMisfit:
		return MisfitCacheLagWords
	case ThrottleAPF:
		return "API Priority and Fairness's rejection"
	}
	return "not marked as API Priority and Fairness's rejection"
}

// AnsweredContext is what the request whose answer err carries sent, when
// the client that sent it marked the answer with it (apiclient's Get does
// for every request): false for an error of no such request.
func AnsweredContext(err error) (Context, bool) {
	var a interface{ SentContext() Context }
	if errors.As(err, &a) {
		return a.SentContext(), true
	}
	return Context{}, false
}
