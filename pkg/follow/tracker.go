package follow

import (
	"slices"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Tracker remembers, per UID, the last RV seen and, per
// namespace/name, which UID has the name, the way an informer's store does,
// so that a watch can point out what a raw stream hides: the same event
// delivered twice, and an object deleted and recreated under the same name.
// Memory is one small entry per live object plus a bounded set of recent
// deletions, so it stays flat on an endless watch.
type Tracker struct {
	live      map[string]trackedObject // by UID
	names     map[string]string        // namespace/name -> UID of the live object
	dead      map[string]trackedObject // by UID: deleted or replaced objects
	deadNames map[string]string        // namespace/name -> UID of the last deleted object
}

type trackedObject struct {
	Key string
	RV  string
}

// maxTombstones bounds the memory of deletions; past it the oldest knowledge
// is dropped (a duplicate DELETED of a long-gone object is then not flagged).
const maxTombstones = 4096

// Observation is what the tracker learned from one event.
type Observation struct {
	// Duplicate: the same UID at the same RV was already seen; watch
	// delivers at least once, for example after a reconnect from an older
	// RV or a second unset-RV watch.
	Duplicate bool
	// OlderThan is the RV this UID was last seen at when this event's is
	// older: the tracker keeps one RV per object, so it says that RV, not
	// "at this RV", and the event is not applied (adversary try 20 #4: a
	// change at RV 50 after the object at RV 500 was said to be "at this
	// RV ... delivered before").
	OlderThan string
	// PreviousUID is set when this name had another UID: deleted and
	// recreated.
	PreviousUID string
	// InitialEventsEnd marks the bookmark that ends an initial state, on
	// any stream that sends one (a streaming list, or a watch from RV unset
	// or 0 where the server marks the end); InitialObjects is the number of
	// ADDED events before it. A bookmark after the state is only a bookmark.
	InitialEventsEnd bool
	InitialObjects   int
	// EndUnusable: the end's RV is none a watch can start from (none, "0",
	// not a storage's, below an RV the stream sent) or the end broke the
	// contract: the state ended there, and it is no resume point.
	EndUnusable bool
	// Breach says how the event broke the Watch contract ("" when it
	// did not: contract.go).
	Breach string
	// BelowBookmark is the RV of the bookmark a change went below (""
	// otherwise): the watch shows that bookmark with it, shown or not.
	BelowBookmark string
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker {
	return &Tracker{live: map[string]trackedObject{}, names: map[string]string{}, dead: map[string]trackedObject{}, deadNames: map[string]string{}}
}

func trackKey(m apiclient.ItemMeta) string { return m.Namespace + "/" + m.Name }

// Len is the number of live objects known.
func (t *Tracker) Len() int { return len(t.live) }

// Replay says whether m is a replay of its object: the same UID at the
// RV it was last seen at (Duplicate), or at an older one (OlderThan),
// without recording anything. Observe records what is no replay; an
// event that broke the Watch contract is never recorded, and is still
// counted as the replay it is (adversary try 22: a MODIFIED b 120 sent
// again after a reconnect from 120 was a breach and "0 duplicate(s)",
// where docs/watch.md calls it a duplicate).
func (t *Tracker) Replay(m apiclient.ItemMeta) Observation {
	var o Observation
	prev, seen := t.live[m.UID]
	if !seen {
		prev, seen = t.dead[m.UID]
	}
	if seen && !rv.After(m.ResourceVersion, prev.RV) {
		if m.ResourceVersion == prev.RV {
			o.Duplicate = true
		} else {
			o.OlderThan = prev.RV
		}
	}
	return o
}

// Observe records an ADDED, MODIFIED or DELETED event.
func (t *Tracker) Observe(typ string, m apiclient.ItemMeta) Observation {
	if o := t.Replay(m); o.Duplicate || o.OlderThan != "" {
		return o
	}
	var o Observation
	k := trackKey(m)
	_, seen := t.live[m.UID]
	if !seen {
		_, seen = t.dead[m.UID]
	}
	if !seen {
		if old, ok := t.names[k]; ok && old != m.UID {
			o.PreviousUID = old
		} else if old, ok := t.deadNames[k]; ok && old != m.UID {
			o.PreviousUID = old
		}
	}
	if old, ok := t.names[k]; ok && old != m.UID {
		// The name moved to a new UID without a DELETED of the old one.
		t.bury(old, t.live[old])
	}
	entry := trackedObject{Key: k, RV: m.ResourceVersion}
	if typ == watchstream.EventDeleted {
		t.bury(m.UID, entry)
		return o
	}
	delete(t.dead, m.UID)
	t.live[m.UID] = entry
	t.names[k] = m.UID
	return o
}

// bury moves an object to the bounded memory of deletions.
func (t *Tracker) bury(uid string, e trackedObject) {
	delete(t.live, uid)
	if t.names[e.Key] == uid {
		delete(t.names, e.Key)
	}
	if len(t.dead) >= maxTombstones {
		clear(t.dead)
		clear(t.deadNames)
	}
	t.dead[uid] = e
	t.deadNames[e.Key] = uid
}

// ObjectChange is one object in the gap a relist closed.
type ObjectChange struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	UID       string `json:"uid,omitempty"`
	// OldResourceVersion is the RV last seen through the watch; NewResourceVersion the list's.
	OldResourceVersion string `json:"oldResourceVersion,omitempty"`
	NewResourceVersion string `json:"newResourceVersion,omitempty"`
}

// Gap is what changed while the watch was broken, as a relist reveals it:
// only the net effect survives; the events themselves are lost.
type Gap struct {
	Added    []ObjectChange `json:"added"`
	Modified []ObjectChange `json:"modified"`
	// Deleted are the objects an informer delivers as DeletedFinalStateUnknown.
	// An object deleted and recreated under the same name (a new UID) is a
	// deletion of the old UID plus an addition of the new one, as an
	// informer's Replace delivers it.
	Deleted []ObjectChange `json:"deleted"`
	// Initial is true when no earlier state was known (the first watch
	// started from an exact RV, which sends changes only): the list is the
	// first sight of the collection, and Added holds the state, not objects
	// added while the watch was broken.
	Initial bool `json:"initial,omitempty"`
	// NoResumePoint is true when the relist was due because a stream ended
	// before the session had a resume point: it was sending the initial
	// state (RV unset, 0, or a streaming list before its end bookmark), in
	// key order, not RV order. Added then also holds the objects of the state
	// it never sent; StateObjectsSent is how many it had sent.
	NoResumePoint    bool `json:"noResumePoint,omitempty"`
	StateObjectsSent int  `json:"stateObjectsSent,omitempty"`
}

// Count is the number of objects reconciled.
func (g Gap) Count() int { return len(g.Added) + len(g.Modified) + len(g.Deleted) }

// Reconcile replaces the known state with a fresh list and returns the
// difference, the way a Reflector's Replace does.
func (t *Tracker) Reconcile(items []apiclient.ItemMeta) Gap {
	g := Gap{Added: []ObjectChange{}, Modified: []ObjectChange{}, Deleted: []ObjectChange{}}
	fresh := NewTracker()
	for _, it := range items {
		k := trackKey(it)
		fresh.live[it.UID] = trackedObject{Key: k, RV: it.ResourceVersion}
		fresh.names[k] = it.UID
		change := ObjectChange{Namespace: it.Namespace, Name: it.Name, UID: it.UID, NewResourceVersion: it.ResourceVersion}
		oldUID, ok := t.names[k]
		switch {
		case !ok || oldUID != it.UID:
			g.Added = append(g.Added, change)
		case t.live[oldUID].RV != it.ResourceVersion:
			change.OldResourceVersion = t.live[oldUID].RV
			g.Modified = append(g.Modified, change)
		}
	}
	for k, uid := range t.names {
		if fresh.names[k] != uid {
			ns, name := splitKey(k)
			g.Deleted = append(g.Deleted, ObjectChange{Namespace: ns, Name: name, UID: uid, OldResourceVersion: t.live[uid].RV})
		}
	}
	slices.SortFunc(g.Deleted, func(a, b ObjectChange) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	*t = *fresh
	return g
}

func splitKey(k string) (string, string) {
	for i := 0; i < len(k); i++ {
		if k[i] == '/' {
			return k[:i], k[i+1:]
		}
	}
	return "", k
}
