package streaming

import (
	"fmt"
	"sort"
	"strings"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Store is the state a client-go v0.37.2 informer builds from the initial
// events of a streaming list: Reflector.watchList reads them through
// handleAnyWatch into a temporary cache.Store keyed by
// DeletionHandlingMetaNamespaceKeyFunc (namespace/name), and replaces the
// informer's store with it at the initial-events-end bookmark. An ADDED or
// a MODIFIED event sets the key to the event's object (Add and Update of a
// cache.Store are the same overwrite), a DELETED one removes the key (a key
// it does not hold is no error), a BOOKMARK changes nothing. So an object
// sent twice is held once, an object added then deleted is not held, and a
// MODIFIED before any ADDED is held like an ADDED.
type Store struct {
	objects map[string]StoredObject
	// Events counts the events applied, by type.
	Added, Modified, Deleted int
	// Repeated counts ADDED events of a key already held; DeletedUnheld
	// DELETED events of a key not held. client-go takes both silently.
	Repeated, DeletedUnheld int
}

// StoredObject is what the comparison with a list looks at: the object's
// identity and version.
type StoredObject struct {
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// NewStore is an empty store.
func NewStore() *Store { return &Store{objects: map[string]StoredObject{}} }

// storeKey is client-go's MetaNamespaceKeyFunc: "namespace/name", or the
// name alone for a cluster-scoped object.
func storeKey(m apiclient.ItemMeta) string {
	if m.Namespace != "" {
		return m.Namespace + "/" + m.Name
	}
	return m.Name
}

// Apply applies one event as handleAnyWatch does; it reports whether the
// event is an object event (ADDED, MODIFIED, DELETED).
func (s *Store) Apply(e watchstream.Event) bool {
	k := storeKey(e.Object)
	switch e.Type {
	case watchstream.EventAdded:
		s.Added++
		if _, ok := s.objects[k]; ok {
			s.Repeated++
		}
	case watchstream.EventModified:
		s.Modified++
	case watchstream.EventDeleted:
		s.Deleted++
		if _, ok := s.objects[k]; !ok {
			s.DeletedUnheld++
		}
		delete(s.objects, k)
		return true
	default:
		return false
	}
	s.objects[k] = StoredObject{UID: e.Object.UID, ResourceVersion: e.Object.ResourceVersion}
	return true
}

// Len is the number of objects the informer would hold.
func (s *Store) Len() int { return len(s.objects) }

// StateDifference is how the informer's store differs from a list, by key
// (namespace/name). Each list names at most maxNamed keys, sorted; the
// counts are whole.
type StateDifference struct {
	// ComparedWith names the list: its RV, and whether it was the
	// consistent list read first or one at exactly the bookmark's RV.
	ComparedWith string `json:"comparedWith"`
	// Missing: in the list, not in the store. Extra: in the store, not in
	// the list. Changed: in both with another UID or resourceVersion.
	Missing      []string `json:"missing,omitempty"`
	MissingCount int      `json:"missingCount,omitempty"`
	Extra        []string `json:"extra,omitempty"`
	ExtraCount   int      `json:"extraCount,omitempty"`
	Changed      []string `json:"changed,omitempty"`
	ChangedCount int      `json:"changedCount,omitempty"`
}

// maxNamed bounds the keys a difference names.
const maxNamed = 3

// Empty reports a store that matches the list.
func (d StateDifference) Empty() bool {
	return d.MissingCount == 0 && d.ExtraCount == 0 && d.ChangedCount == 0
}

// Diff compares the store with a list's items, as client-go's own
// watch-list consistency detector (util/consistencydetector, which lists
// at the bookmark's RV and compares the objects) would, by key, UID and
// resourceVersion.
func (s *Store) Diff(items []apiclient.ItemMeta, comparedWith string) StateDifference {
	d := StateDifference{ComparedWith: comparedWith}
	listed := make(map[string]bool, len(items))
	var missing, extra, changed []string
	for _, it := range items {
		k := storeKey(it)
		listed[k] = true
		got, ok := s.objects[k]
		switch {
		case !ok:
			missing = append(missing, k)
		case got.UID != it.UID:
			changed = append(changed, fmt.Sprintf("%s: UID %s in the stream, %s in the list", k, orNone(got.UID), orNone(it.UID)))
		case got.ResourceVersion != it.ResourceVersion:
			changed = append(changed, fmt.Sprintf("%s: RV %s in the stream, %s in the list", k, orNone(got.ResourceVersion), orNone(it.ResourceVersion)))
		}
	}
	for k := range s.objects {
		if !listed[k] {
			extra = append(extra, k)
		}
	}
	d.Missing, d.MissingCount = firstSorted(missing)
	d.Extra, d.ExtraCount = firstSorted(extra)
	d.Changed, d.ChangedCount = firstSorted(changed)
	return d
}

// Sentence is the difference in one line: "the informer's store from the
// stream differs from <list>: 1 missing (ns/b), 1 extra (ns/c)".
func (d StateDifference) Sentence() string {
	var parts []string
	add := func(n int, what string, names []string) {
		if n == 0 {
			return
		}
		s := fmt.Sprintf("%d %s (%s", n, what, strings.Join(names, "; "))
		if n > len(names) {
			s += fmt.Sprintf("; %d more", n-len(names))
		}
		parts = append(parts, s+")")
	}
	add(d.MissingCount, "missing", d.Missing)
	add(d.ExtraCount, "extra", d.Extra)
	add(d.ChangedCount, "changed", d.Changed)
	return "the informer's store from the stream differs from " + d.ComparedWith + ": " + strings.Join(parts, ", ")
}

func firstSorted(s []string) ([]string, int) {
	sort.Strings(s)
	for i, k := range s {
		if k == "" || strings.HasPrefix(k, ":") {
			// An object without a name (a hostile stream's): say so.
			s[i] = "(no name)" + k
		}
	}
	if len(s) > maxNamed {
		return s[:maxNamed], len(s)
	}
	return s, len(s)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
