package diagnose

// Who sent a 429, decided once for every line that says it: the final
// error line (cmd requesterror.go), a --servers/--endpoints row's hint
// (render servers_hint.go) and top's row fix (cmd top_run.go). Each
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
	if FromError(err, Context{}).Kind == KindConsistentReadCacheLagging {
		return ThrottleCacheLag
	}
	if RejectedByAPF(err) {
		return ThrottleAPF
	}
	return ThrottleUnmarked
}

// ThrottledFix is the hint of a row (one server of several) that got
// err, a 429, by ThrottledBy, with the error line's words.
func ThrottledFix(err error) string {
	switch ThrottledBy(err) {
	case ThrottleCacheLag:
		return "the server answered 429 Too Many Requests: its watch cache lags storage (a consistent read it could not serve in time): retry after a while; if it persists, check the watch cache's and etcd's latency"
	case ThrottleAPF:
		return "API Priority and Fairness is throttling (429 Too Many Requests with its X-Kubernetes-PF-* headers): lower --qps or retry later"
	}
	return "the server answered 429 Too Many Requests, not marked as API Priority and Fairness's rejection (the server's max-in-flight limit, or a proxy or a load balancer in front, may have sent it): lower --qps or retry later"
}
