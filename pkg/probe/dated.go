package probe

import (
	"context"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// DatedRV is an RV whose write time an object tells by its own fields: the
// newest managedFields time (each manager's entry is stamped when its write
// changed the object), or the creationTimestamp of an object never
// modified. Both have a resolution of one second.
type DatedRV struct {
	ResourceVersion uint64    `json:"resourceVersion,string"`
	At              time.Time `json:"at"`
	Object          string    `json:"object"`
	Field           string    `json:"field"`
	// Deleting is set for an object with a deletionTimestamp: the API
	// server set it without stamping managedFields, so the newest time is
	// not that of its last write.
	Deleting bool `json:"deleting,omitempty"`
	// CreationOnly: the object has no managedFields (an object whose
	// managers own no field, or one written without them), so only its
	// creation is dated, and its RV may be a later write's.
	CreationOnly bool `json:"creationOnly,omitempty"`
}

// LastWriteDated reports whether At is the time of the write of
// ResourceVersion (to the second): the newest managedFields time of an
// object not being deleted. Any At is no later than that write.
func (d DatedRV) LastWriteDated() bool { return !d.Deleting && !d.CreationOnly }

// datedPageSize is the page size of the dated walk: kubectl's chunk size.
const datedPageSize = 500

// ListDatedAround walks the collection page by page (metadata only, through
// the one list path, each page's token taken from b) and keeps, of the
// objects that carry a time for their RV, only the two that date the
// oldest RV: the newest written at or below it, and the oldest written at
// or above it whose time is its last write's. They come back sorted by RV
// (one when the same object is both), so that memory stays bounded
// whatever the collection size.
func ListDatedAround(ctx context.Context, c *apiclient.Client, t apiclient.Target, oldest uint64, b *apiclient.Budget) ([]DatedRV, error) {
	var below, above *DatedRV
	_, err := listing.Walk(ctx, c, t, listing.WalkOptions{PageOptions: listing.PageOptions{Limit: datedPageSize, Budget: b}}, func(m apiclient.ItemMeta) {
		d, ok := datedOf(m)
		if !ok {
			return
		}
		if d.ResourceVersion <= oldest && (below == nil || d.ResourceVersion > below.ResourceVersion) {
			below = &d
		}
		if d.ResourceVersion >= oldest && d.LastWriteDated() && (above == nil || d.ResourceVersion < above.ResourceVersion) {
			above = &d
		}
	})
	if err != nil {
		return nil, err
	}
	var out []DatedRV
	if below != nil {
		out = append(out, *below)
	}
	if above != nil && (below == nil || above.ResourceVersion != below.ResourceVersion) {
		out = append(out, *above)
	}
	return out, nil
}

// datedOf dates one object's RV by its own fields; ok is false when it
// has no decimal RV or no time at all.
func datedOf(m apiclient.ItemMeta) (DatedRV, bool) {
	rv, ok := apiclient.ParseRV(m.ResourceVersion)
	if !ok {
		return DatedRV{}, false
	}
	created, _ := time.Parse(time.RFC3339, m.CreationTimestamp)
	d := DatedRV{ResourceVersion: rv, Object: m.Name, Field: "metadata.creationTimestamp", Deleting: m.DeletionTimestamp != ""}
	if m.Namespace != "" {
		d.Object = m.Namespace + "/" + m.Name
	}
	if !m.ManagedFields.IsZero() {
		d.At, d.Field = m.ManagedFields.Time, "metadata.managedFields[].time"
	}
	if d.At.IsZero() {
		// Without managedFields only an object's creation is dated, and
		// its RV is its creation's only if it was never modified: not
		// knowable here, so such an object bounds the depth from above
		// only (its creation was no later than its RV's write).
		if created.IsZero() {
			return DatedRV{}, false
		}
		d.At, d.CreationOnly = created, true
	}
	if !created.IsZero() && d.At.Equal(created) {
		d.Field = "metadata.creationTimestamp"
	}
	return d, true
}
