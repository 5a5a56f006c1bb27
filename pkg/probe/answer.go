package probe

// Who answers 410 below the window is derived from the probes themselves
// (the rows -v prints), every time, by AnswerOf: never from a value set
// along the way. So the verdict cannot say "nothing has expired" above a
// row that expired, nor name the watch cache for a 410 whose text it did
// not recognize (test: pkg/render TestProbeVerdictNeverContradictsItsRows).

// Answer is what the probes say about who answers 410 below the window.
type Answer struct {
	// Source is watch-cache (its 410 names the oldest RV), storage (the
	// watch cache is off for the resource: etcd, or a shim such as kine,
	// answers; the two cannot be told apart from the client side), mixed
	// (both answered: different API servers behind one address), none (no
	// probe expired and a watch from RV 1 started: nobody has had to say
	// 410) or unknown (a 410 whose message is not one the plugin knows, or
	// no probe answered at all: NoAnswer).
	Source string `json:"source"`
	// Expired counts the probes answered 410 (or that lost a change), by
	// who answered.
	WatchCache   int `json:"watchCache,omitempty"`
	Storage      int `json:"storage,omitempty"`
	Unrecognized int `json:"unrecognized,omitempty"`
	// UnrecognizedMessage is the first unrecognized 410's message.
	UnrecognizedMessage string `json:"unrecognizedMessage,omitempty"`
	// StartedAt1: a watch from RV 1 started.
	StartedAt1 bool `json:"startedAt1,omitempty"`
	// NoAnswer: no probe said anything about the window (none started,
	// none expired); Forbidden: one was refused with 403.
	NoAnswer  bool `json:"noAnswer,omitempty"`
	Forbidden bool `json:"forbidden,omitempty"`
}

// Expired is how many probes expired, whoever answered.
func (a Answer) Expired() int { return a.WatchCache + a.Storage + a.Unrecognized }

// AnswerOf derives the answer from the probes (the search's, then any
// verification's). nothingBelow is true when there was nothing to probe
// (a current RV of 1 or less: the window starts there).
func AnswerOf(rows []Try, nothingBelow bool) Answer {
	var a Answer
	for _, r := range rows {
		switch r.Outcome {
		case OutcomeExpired:
			switch r.Source {
			case SourceWatchCache:
				a.WatchCache++
			case SourceStorage:
				a.Storage++
			default:
				if a.Unrecognized++; a.UnrecognizedMessage == "" {
					a.UnrecognizedMessage = r.Message
				}
			}
		case OutcomeOK:
			if r.ResourceVersion <= 1 {
				a.StartedAt1 = true
			}
		case OutcomeFatal:
			if r.Code == 403 {
				a.Forbidden = true
			}
		}
	}
	switch {
	case a.Unrecognized > 0:
		a.Source = SourceUnknown
	case a.WatchCache > 0 && a.Storage > 0:
		a.Source = SourceMixed
	case a.WatchCache > 0:
		a.Source = SourceWatchCache
	case a.Storage > 0:
		a.Source = SourceStorage
	case a.StartedAt1 || nothingBelow:
		a.Source = SourceNone
	default:
		a.Source, a.NoAnswer = SourceUnknown, true
	}
	return a
}

// Why the bound is where it is (SearchResult.BoundBy).
const (
	// BoundNothingExpired: a watch from RV 1 starts.
	BoundNothingExpired = "nothing-expired"
	// BoundWatchCacheNamed: the watch cache's 410 named the oldest RV
	// ("too old resource version: X (Y)": Y starts, every RV below fails).
	BoundWatchCacheNamed = "watch-cache-410"
	// BoundProbes: watches on both sides of the bound (a 410 below, a start
	// at it), found by probes alone.
	BoundProbes = "probes"
	// BoundCompaction: storage was compacted (exact lists answer from
	// CompactedAt), and a watch from the bound reads every change through.
	BoundCompaction = "compaction"
	// BoundLostChange: a watch from below the bound fails at the change at
	// the bound (500 PrevKv=nil: the object's previous value is compacted),
	// so the oldest RV a watch can start from and reach the current RV is
	// that change's RV.
	BoundLostChange = "lost-change"
)

// Answer derives the search's answer from its probes and extra rows (a
// verification's).
func (r *SearchResult) Answer(extra ...Try) Answer {
	rows := append(append([]Try{}, r.Probes...), extra...)
	return AnswerOf(rows, r.Found && r.Current <= 1)
}

// whoMovedTheWindow says what moved the window past an RV, from who
// refused the watch from it (AnswerOf, the one decision of who answered):
// a watch cache evicts, storage compacts (fresh user try 22 #1: "new
// writes evicted it" where storage had compacted).
func whoMovedTheWindow(refused Try) string {
	switch AnswerOf([]Try{refused}, false).Source {
	case SourceWatchCache:
		return "new writes evicted it from the watch cache"
	case SourceStorage:
		return "storage was compacted past it"
	}
	return "who moved it is not known: " + refused.Evidence
}
