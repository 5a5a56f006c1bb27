package clients

import (
	"hash/maphash"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// request is what is kept of a request between its first and last stage.
type request struct {
	client   clientKey
	resource string
	verb     string
	query    audit.Query
	// received is requestReceivedTimestamp, zero when the log does not
	// give a valid one: then the request's lifetime is not known.
	received time.Time
	// at places the request in time: received, or its stage's time.
	at    time.Time
	level string
	// code is the code of its latest stage that gave one, at codeAt: a
	// request refused before it was authenticated is logged at
	// ResponseStarted only, with its 401 (fresh user try 23 F2: it was
	// held as open, and counted as a storage list at the log's end).
	code   int
	codeAt time.Time

	id    string
	fp    uint64
	next  *request // another open request with the same auditID
	older *request // the open requests in the order they came
	newer *request
}

// MaxOpen bounds the requests held between their stages. A request's last
// stage carries every field this package reads, so one dropped by the cap
// still counts when its end comes; only one whose end is not in the log is
// lost from the count of those open at the end (openRequests.dropped says
// how many were dropped). Their fields are bounded (audit.MaxField): the
// cap bounds their memory (about 700 bytes each). It is low enough that a
// log whose requests never end (a server restarted mid-watch leaves every
// watch it held open in the log for ever) does not grow the memory with
// the log's length.
const MaxOpen = 20_000

// openRequests holds the requests whose last stage has not come yet,
// keyed by auditID and, because a client can choose its auditID (the API
// server takes the Audit-ID header as it is), by what stays the same
// across the stages of one request: verb, requestURI, user, user agent,
// first source IP and the time it was received.
type openRequests struct {
	seed           maphash.Seed
	byID           map[string]*request
	oldest, newest *request
	n              int
	dropped        int64
	// collisions counts the requests that came with the auditID of
	// another request still open.
	collisions int64
}

func newOpenRequests() openRequests {
	return openRequests{seed: maphash.MakeSeed(), byID: map[string]*request{}}
}

func (o *openRequests) fingerprint(e *audit.Event) uint64 {
	var h maphash.Hash
	h.SetSeed(o.seed)
	for _, s := range []string{e.Verb, e.RequestURI, e.User.Username, e.UserAgent} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	if len(e.SourceIPs) > 0 {
		h.WriteString(e.SourceIPs[0])
	}
	b, _ := e.RequestReceivedTimestamp.MarshalBinary()
	h.Write(b)
	return h.Sum64()
}

// start holds the request of an event that is not its last stage (once:
// its later stages find it).
func (o *openRequests) start(e *audit.Event, newRequest func(*audit.Event) *request) {
	fp := o.fingerprint(e)
	first := o.byID[e.AuditID]
	for r := first; r != nil; r = r.next {
		if r.fp == fp {
			r.noteCode(e)
			return
		}
	}
	if first != nil {
		o.collisions++
	}
	if o.n >= MaxOpen {
		o.remove(o.oldest)
		o.dropped++
	}
	r := newRequest(e)
	r.noteCode(e)
	r.id, r.fp, r.next = e.AuditID, fp, first
	o.byID[e.AuditID] = r
	r.older = o.newest
	if o.newest != nil {
		o.newest.newer = r
	} else {
		o.oldest = r
	}
	o.newest = r
	o.n++
}

func (r *request) noteCode(e *audit.Event) {
	if c := e.Code(); c != 0 {
		r.code, r.codeAt = c, e.StageTimestamp
	}
}

// end takes the held request of a last stage out; nil when none is held
// (the policy does not record earlier stages, or the cap dropped it).
func (o *openRequests) end(e *audit.Event) *request {
	fp := o.fingerprint(e)
	first := o.byID[e.AuditID]
	for r := first; r != nil; r = r.next {
		if r.fp == fp {
			o.remove(r)
			return r
		}
	}
	if first != nil {
		o.collisions++
	}
	return nil
}

func (o *openRequests) remove(r *request) {
	if o.byID[r.id] == r {
		if r.next != nil {
			o.byID[r.id] = r.next
		} else {
			delete(o.byID, r.id)
		}
	} else {
		for p := o.byID[r.id]; p != nil; p = p.next {
			if p.next == r {
				p.next = r.next
				break
			}
		}
	}
	if r.older != nil {
		r.older.newer = r.newer
	} else {
		o.oldest = r.newer
	}
	if r.newer != nil {
		r.newer.older = r.older
	} else {
		o.newest = r.older
	}
	r.next, r.older, r.newer = nil, nil, nil
	o.n--
}

// each calls fn with every open request, the oldest first, and forgets them.
func (o *openRequests) each(fn func(*request)) {
	for r := o.oldest; r != nil; {
		next := r.newer
		fn(r)
		r = next
	}
	o.byID, o.oldest, o.newest, o.n = map[string]*request{}, nil, nil, 0
}
