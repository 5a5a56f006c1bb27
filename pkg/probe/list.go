package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/countio"
)

// ItemMeta is the part of an object's metadata this plugin reads.
type ItemMeta struct {
	Namespace       string            `json:"namespace,omitempty"`
	Name            string            `json:"name"`
	UID             string            `json:"uid,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
	Annotations     map[string]string `json:"annotations,omitempty"`
}

// PageOptions are the query parameters of one List request.
type PageOptions struct {
	Limit                int64
	ResourceVersion      string // "" = unset (consistent read)
	ResourceVersionMatch string // "", NotOlderThan or Exact
	Continue             string
}

// Page is one List response, reduced to what is reported.
type Page struct {
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
	Items              []ItemMeta
	Bytes              int64
	Duration           time.Duration
	URL                string
}

// Query renders the options as URL parameters. resourceVersion and its match
// are not sent with a continue token: the token carries the snapshot.
func (o PageOptions) Query(t Target) url.Values {
	q := url.Values{}
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.Continue != "" {
		q.Set("continue", o.Continue)
	} else {
		if o.ResourceVersion != "" {
			q.Set("resourceVersion", o.ResourceVersion)
		}
		if o.ResourceVersionMatch != "" {
			q.Set("resourceVersionMatch", o.ResourceVersionMatch)
		}
	}
	t.addSelectors(q)
	return q
}

type pageWire struct {
	Metadata struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []struct {
		Metadata ItemMeta `json:"metadata"`
	} `json:"items"`
}

// ListPage reads one page of the collection, metadata only.
func (c *Client) ListPage(ctx context.Context, t Target, o PageOptions) (*Page, error) {
	q := o.Query(t)
	req := getCollection(c.short, t, q, acceptMetadataList)
	start := time.Now()
	body, err := req.Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	cr := &countio.Reader{R: body}
	var w pageWire
	if err := json.NewDecoder(cr).Decode(&w); err != nil {
		return nil, fmt.Errorf("cannot decode the list response of %s: %w", t.CollectionPath(), err)
	}
	p := &Page{
		ResourceVersion:    w.Metadata.ResourceVersion,
		Continue:           w.Metadata.Continue,
		RemainingItemCount: w.Metadata.RemainingItemCount,
		Items:              make([]ItemMeta, len(w.Items)),
		Bytes:              cr.N,
		Duration:           time.Since(start),
		URL:                URL(t.CollectionPath(), q),
	}
	for i := range w.Items {
		p.Items[i] = w.Items[i].Metadata
	}
	return p, nil
}

// CurrentResourceVersion is the cheapest read of a collection's current RV: a
// consistent list of one item, metadata only (about a kilobyte whatever the
// collection size).
func (c *Client) CurrentResourceVersion(ctx context.Context, t Target) (string, error) {
	p, err := c.ListPage(ctx, t, PageOptions{Limit: 1})
	if err != nil {
		return "", err
	}
	return p.ResourceVersion, nil
}

// ParseRV parses a decimal resourceVersion; ok is false for anything else
// (an RV is opaque in general; every etcd-backed server uses decimals).
func ParseRV(rv string) (uint64, bool) {
	if rv == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}
