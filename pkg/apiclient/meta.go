package apiclient

import (
	"encoding/json"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// ItemMeta is the part of an object's metadata this plugin reads.
type ItemMeta struct {
	Namespace       string            `json:"namespace,omitempty"`
	Name            string            `json:"name"`
	UID             string            `json:"uid,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
	Annotations     map[string]string `json:"annotations,omitempty"`
	// CreationTimestamp is RFC 3339 as the server sent it.
	CreationTimestamp string `json:"creationTimestamp,omitempty"`
	// DeletionTimestamp is RFC 3339 as the server sent it ("" = the
	// object is not being deleted).
	DeletionTimestamp string `json:"deletionTimestamp,omitempty"`
	// ManagedFields keeps only the newest time of the object's
	// managedFields entries (each is stamped when its manager's write
	// changed the object), so that a listed item costs a few bytes more,
	// not its whole field ownership.
	ManagedFields NewestTime `json:"managedFields"`
}

// NewestTime decodes a managedFields array into its newest entry's time
// (zero when no entry has one).
type NewestTime struct{ time.Time }

// UnmarshalJSON keeps the newest "time" of the entries.
func (n *NewestTime) UnmarshalJSON(b []byte) error {
	var entries []struct {
		Time *time.Time `json:"time"`
	}
	if err := json.Unmarshal(b, &entries); err != nil {
		return err
	}
	for _, e := range entries {
		if e.Time != nil && e.Time.After(n.Time) {
			n.Time = *e.Time
		}
	}
	return nil
}

// ParseRV is rv.Parse, kept for the callers in pkg/listing and
// pkg/probe (current.go, try.go, dated.go) and pkg/follow/session.go, which
// another change rewrites; new code calls rv.Parse.
func ParseRV(s string) (uint64, bool) { return rv.Parse(s) }

// RVAfter is rv.After, kept for the same callers as ParseRV.
func RVAfter(a, b string) bool { return rv.After(a, b) }
