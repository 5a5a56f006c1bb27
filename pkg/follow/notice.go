package follow

import (
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// NoticeKind names what happened between streams.
type NoticeKind string

// Notice kinds.
const (
	NoticeListed    NoticeKind = "LISTED"    // --rv list: the initial List
	NoticeReconnect NoticeKind = "RECONNECT" // a stream ended or failed; watching again from the last RV
	NoticeRelist    NoticeKind = "RELIST"    // Expired or TooLarge: listed again and reconciled
	// NoticeUnchecked: a check the session ran could not tell (the check
	// that a reconnect reached a server behind the resume point: its
	// list failed, or gave no RV of a storage); Reason says which and why.
	NoticeUnchecked NoticeKind = "UNCHECKED"
	// NoticeBehind: a reconnect reached a server behind the resume point
	// (ServerBehindError, Reason its words), said when it is found, before
	// the relist it calls for, which may fail (fresh user try 25 F4).
	NoticeBehind NoticeKind = "BEHIND"
)

// Notice is one step of a session that is not an event.
type Notice struct {
	Kind NoticeKind
	Time time.Time
	// Reason is why a reconnect or a relist happened.
	Reason string
	// Failure classifies the error behind Reason, when there was one.
	Failure diagnose.Failure
	// Err is the error behind Reason (HTTP status or network), when there was one.
	Err error
	// FromResourceVersion is the RV the next watch (or the relist) starts from.
	FromResourceVersion string
	// URL is, for LISTED, the watch request that follows (path and query).
	URL   string
	Delay time.Duration
	// Held is a wait the session added before this reconnect or relist
	// (zero when none): Delay is counted after it.
	Held Held
	// DelayByServer: the server's Retry-After set Delay, not the plugin's
	// backoff (adversary try 25 F6: the line says who set the wait).
	DelayByServer bool
	// ServerAsked is what the server's Retry-After asked when it set
	// Delay: above Delay when the policy's cap cut it.
	ServerAsked time.Duration
	// For LISTED and RELIST: the List's RV, its size, the RVs tried in
	// order ("" is the consistent read of last resort), and what changed
	// meanwhile.
	ListResourceVersion string
	Items               int
	Tried               []string
	// RVsAdvanced is how far the RV moved between the last RV seen and the
	// new List's RV. RVs are etcd revisions shared by the whole cluster:
	// this counts writes to every resource, not lost events of this
	// collection (Gap says what this collection lost, as net effect).
	RVsAdvanced uint64
	Gap         *Gap
	// MixedServers is set when this step is a sign that the answers came
	// from different API servers (an RV going backwards, a TooLarge after a
	// successful list).
	MixedServers string
}

// Backoff is the delay between failed attempts: the plugin's retry policy
// (apiclient.Retry) with jitter, as client-go's Reflector waits (800 ms
// doubling up to 30 s, the server's Retry-After honoured up to Max). A
// follow never gives up, so only the waits come from the policy, not its
// count of tries.
type Backoff struct {
	Initial, Max time.Duration
	failed       int
}

func (b *Backoff) policy() apiclient.Retry {
	r := apiclient.Retry{Initial: b.Initial, Max: b.Max, Jitter: true}
	if r.Initial <= 0 {
		r.Initial = 800 * time.Millisecond
	}
	return r
}

// Delay returns the next delay, with up to 50% jitter.
func (b *Backoff) Delay() time.Duration {
	b.failed++
	return b.policy().Backoff(b.failed)
}

// DelayAfter is the delay after the failure err: Delay, but never shorter
// than the server's Retry-After (retryAfterSeconds of a 429, or of a 504
// TooLarge), which is honoured up to Max: one policy, one cap.
func (b *Backoff) DelayAfter(err error) apiclient.Pause {
	b.failed++
	return b.policy().Delay(b.failed, err)
}

// Reset starts the backoff over after a success.
func (b *Backoff) Reset() { b.failed = 0 }
