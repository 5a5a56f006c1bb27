package diagnose

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
)

// ThrottledBy is who sent err, a 429 (ClassifyFailure FailureThrottled).
func ThrottledBy(err error) Throttler {
	if FromError(err, Context{Live: true}).Kind == KindConsistentReadCacheLagging {
		return ThrottleCacheLag
	}
	if RejectedByAPF(err) {
		return ThrottleAPF
	}
	return ThrottleUnmarked
}

// Words is who sent the 429, in the words every note and warning that
// quotes one says it with (apiclient.AnswerWords), as the error line does
// (fresh user try 28 F3: "429 TooManyRequests: busy" in Failed: lines and
// notes, where the error line said whose it was).
func (t Throttler) Words() string {
	switch t {
	case ThrottleCacheLag:
		return "its watch cache lags storage"
	case ThrottleAPF:
		return "API Priority and Fairness's rejection"
	}
	return "not marked as API Priority and Fairness's rejection"
}
