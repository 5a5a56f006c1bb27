package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// DatedRV is an RV whose write time an object tells by its own fields: the
// newest managedFields time (each manager's entry is stamped when its write
// changed the object), or the creationTimestamp of an object never
// modified. Both have a resolution of one second.
type DatedRV struct {
	ResourceVersion uint64    `json:"resourceVersion"`
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

// datedItem is the metadata a PartialObjectMetadataList carries: the whole
// ObjectMeta, managedFields included.
type datedItem struct {
	Metadata struct {
		Namespace         string     `json:"namespace"`
		Name              string     `json:"name"`
		ResourceVersion   string     `json:"resourceVersion"`
		CreationTimestamp time.Time  `json:"creationTimestamp"`
		DeletionTimestamp *time.Time `json:"deletionTimestamp"`
		ManagedFields     []struct {
			Time *time.Time `json:"time"`
		} `json:"managedFields"`
	} `json:"metadata"`
}

// ListDatedRVs reads the collection once (metadata only) and dates the RV
// of every object that carries a time for it, sorted by RV.
func ListDatedRVs(ctx context.Context, c *apiclient.Client, t apiclient.Target, b *apiclient.Budget) ([]DatedRV, error) {
	if err := b.Take(ctx); err != nil {
		return nil, err
	}
	body, err := c.Get(ctx, t.CollectionPath(), nil, apiclient.AcceptMetadataList)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	var list struct {
		Items []datedItem `json:"items"`
	}
	if err := json.NewDecoder(body).Decode(&list); err != nil {
		return nil, fmt.Errorf("cannot decode the list of %s: %w", t.CollectionPath(), err)
	}
	var out []DatedRV
	for _, it := range list.Items {
		m := it.Metadata
		rv, ok := apiclient.ParseRV(m.ResourceVersion)
		if !ok {
			continue
		}
		d := DatedRV{ResourceVersion: rv, Object: m.Name, Field: "metadata.creationTimestamp", Deleting: m.DeletionTimestamp != nil}
		if m.Namespace != "" {
			d.Object = m.Namespace + "/" + m.Name
		}
		for _, f := range m.ManagedFields {
			if f.Time != nil && f.Time.After(d.At) {
				d.At, d.Field = *f.Time, "metadata.managedFields[].time"
			}
		}
		if d.At.IsZero() {
			// Without managedFields only an object's creation is dated, and
			// its RV is its creation's only if it was never modified: not
			// knowable here, so such an object bounds the depth from above
			// only (its creation was no later than its RV's write).
			if m.CreationTimestamp.IsZero() {
				continue
			}
			d.At, d.CreationOnly = m.CreationTimestamp, true
		}
		if !m.CreationTimestamp.IsZero() && d.At.Equal(m.CreationTimestamp) {
			d.Field = "metadata.creationTimestamp"
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ResourceVersion < out[j].ResourceVersion })
	return out, nil
}
