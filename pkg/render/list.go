package render

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// ListReport is the stable schema of "list -o json|yaml".
type ListReport struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost                   *Cost                 `json:"cost,omitempty"`
	Resource               string                `json:"resource"`
	GroupVersion           string                `json:"groupVersion"`
	Namespace              string                `json:"namespace"`
	LabelSelector          string                `json:"labelSelector,omitempty"`
	FieldSelector          string                `json:"fieldSelector,omitempty"`
	Request                ListRequest           `json:"request"`
	ResourceVersion        string                `json:"resourceVersion"`
	ItemCount              int64                 `json:"itemCount"`
	EstimatedTotal         *int64                `json:"estimatedTotal,omitempty"`
	Pages                  int                   `json:"pages"`
	PageResourceVersions   []string              `json:"pageResourceVersions"`
	Consistent             bool                  `json:"consistent"`
	RemainingItemCount     *int64                `json:"remainingItemCount,omitempty"`
	MaxItemResourceVersion string                `json:"maxItemResourceVersion"`
	ListBelowNewestItem    bool                  `json:"listResourceVersionBelowNewestItem"`
	ReadSemantics          listing.ReadSemantics `json:"readSemantics"`
	Bytes                  int64                 `json:"bytes"`
	Millis                 float64               `json:"ms"`
	PageDetails            []listing.PageInfo    `json:"pageDetails"`
	Restarted              bool                  `json:"restarted"`
	Attempts               []listing.Attempt     `json:"attempts,omitempty"`
	Error                  string                `json:"error,omitempty"`
	WatchCommand           string                `json:"-"`
	// ObjectNames are the names of the objects read, kept only for -o name.
	ObjectNames []string `json:"-"`
	// NoResourceVersion: the server sent no List RV (a resource not stored
	// in etcd, such as componentstatuses): there is nothing to watch from
	// and no read semantics of an RV apply.
	NoResourceVersion bool `json:"noResourceVersion,omitempty"`
	// WatchAdvice says why no "watch from here" is suggested, when none is.
	WatchAdvice string `json:"watchAdvice,omitempty"`
	// Server is what the plugin knew and assumed of the API server: the
	// read semantics' source is chosen from it.
	Server *serverinfo.Info `json:"server,omitempty"`
	// CurrentResourceVersion is the RV of a consistent read right after a
	// list at --rv 0 or NotOlderThan, read to check that list's RV.
	CurrentResourceVersion string `json:"currentResourceVersion,omitempty"`

	checkCurrent   bool
	watchNamespace string
	namespaced     bool // the resource has namespaces: "" is -A
}

// WithServer adds what is known of the server, and who served the list by
// it, to the read semantics.
func (r ListReport) WithServer(in *serverinfo.Info) ListReport {
	r.Server = in
	if r.NoResourceVersion {
		return r
	}
	r.ReadSemantics.Source = in.ListSource(r.Request.ResourceVersion, r.Request.ResourceVersionMatch, r.Request.Limit)
	r.ReadSemantics.Description += "; " + r.ReadSemantics.Source
	return r
}

func (r *ListReport) watchCommand(ns string) string {
	return fmt.Sprintf("kubectl watchrv watch %s%s --rv %s", r.Resource, ns, r.ResourceVersion)
}

// NeedsCurrentRV is true after a list whose RV is a watch start only if it
// is current (--rv 0, NotOlderThan: the serving cache's newest state, which
// may lag): the caller reads the current RV and calls CheckWatchStart.
func (r *ListReport) NeedsCurrentRV() bool { return r.checkCurrent }

// CheckWatchStart suggests a watch from the list's RV when a consistent
// read right after the list found it current; otherwise it says why not.
func (r *ListReport) CheckWatchStart(current string, err error) {
	r.checkCurrent = false
	mode := "--rv 0"
	if r.ReadSemantics.Mode == "NotOlderThan" {
		mode = "--rv " + r.Request.ResourceVersion + " --rv-match NotOlderThan"
	}
	switch {
	case err != nil:
		r.WatchAdvice = fmt.Sprintf("not suggested: a list at %s may lag the current state, and the current RV could not be read to check it (%s); list without --rv (a consistent read) for a start that works", mode, text.OneLine(err.Error()))
	case current == r.ResourceVersion:
		r.CurrentResourceVersion = current
		r.WatchCommand = r.watchCommand(r.watchNamespace)
	default:
		r.CurrentResourceVersion = current
		r.WatchAdvice = fmt.Sprintf("not suggested: a list at %s returned RV %s, but a consistent read right after it found RV %s: the state it read may lag, and a watch from %s works only while %s is in the watch window; list without --rv (a consistent read) for a start that works", mode, r.ResourceVersion, current, r.ResourceVersion, r.ResourceVersion)
	}
}

// ListRequest echoes what was asked.
type ListRequest struct {
	Limit                int64  `json:"limit"`
	ResourceVersion      string `json:"resourceVersion"`
	ResourceVersionMatch string `json:"resourceVersionMatch,omitempty"`
	RVOnly               bool   `json:"rvOnly"`
	URL                  string `json:"url"`
}

// NewListReport summarizes a walk.
func NewListReport(t apiclient.Target, o listing.WalkOptions, rvOnly bool, w *listing.WalkResult) ListReport {
	a := w.Final()
	r := ListReport{
		Resource:      t.Resource.Name(),
		GroupVersion:  t.Resource.GVR.GroupVersion().String(),
		Namespace:     t.Namespace,
		namespaced:    t.Resource.Namespaced,
		LabelSelector: t.LabelSelector,
		FieldSelector: t.FieldSelector,
		Request: ListRequest{
			Limit: o.Limit, ResourceVersion: o.ResourceVersion, ResourceVersionMatch: o.ResourceVersionMatch,
			RVOnly: rvOnly, URL: apiclient.URL(t.CollectionPath(), o.PageOptions.Query(t)),
		},
		ItemCount:              a.ItemCount,
		Pages:                  len(a.Pages),
		PageResourceVersions:   []string{},
		Consistent:             true,
		MaxItemResourceVersion: a.MaxItemResourceVersion,
		ReadSemantics:          listing.SemanticsOf(o.ResourceVersion, o.ResourceVersionMatch, o.Limit),
		PageDetails:            a.Pages,
		Restarted:              len(w.Attempts) > 1,
		Millis:                 float64(w.Duration.Microseconds()) / 1000,
		Error:                  a.Error,
	}
	if r.PageDetails == nil {
		r.PageDetails = []listing.PageInfo{}
	}
	if r.Restarted {
		r.Attempts = w.Attempts
	}
	for i, p := range a.Pages {
		r.PageResourceVersions = append(r.PageResourceVersions, p.ResourceVersion)
		r.Bytes += p.Bytes
		if i == 0 {
			r.ResourceVersion = p.ResourceVersion
			r.RemainingItemCount = p.RemainingItemCount
		} else if p.ResourceVersion != r.ResourceVersion {
			r.Consistent = false
		}
	}
	if rvOnly && len(a.Pages) == 1 {
		total := int64(a.Pages[0].Items)
		if a.Pages[0].RemainingItemCount != nil {
			total += *a.Pages[0].RemainingItemCount
		}
		r.EstimatedTotal = &total
	}
	if lr, ok := rv.Parse(r.ResourceVersion); ok {
		if mr, ok := rv.Parse(r.MaxItemResourceVersion); ok && mr > lr {
			r.ListBelowNewestItem = true
		}
	}
	ns := ""
	if t.Namespace != "" {
		ns = " -n " + t.Namespace
	} else if t.Resource.Namespaced {
		ns = " -A"
	}
	switch {
	case r.ResourceVersion == "" && len(a.Pages) > 0:
		r.NoResourceVersion = true
		r.ReadSemantics = listing.ReadSemantics{Mode: "None", Description: "none: the server sent no resourceVersion, so this list was not read from etcd or the watch cache and no RV semantics apply"}
		r.WatchAdvice = "none: without a List RV there is no point to watch from"
	case r.ReadSemantics.Mode == "Exact":
		// An exact list reads the past: its RV may be one the watch window
		// has already left.
		r.WatchAdvice = fmt.Sprintf("not suggested: an exact list at --rv %s reads the past, which may be older than the watch window; list without --rv (a consistent read) for a start that works, or watch with --rv list", o.ResourceVersion)
	case r.ResourceVersion != "" && r.ReadSemantics.Mode == "Consistent":
		r.WatchCommand = r.watchCommand(ns)
	case r.ResourceVersion != "":
		// Any and NotOlderThan return the serving cache's newest state,
		// which may lag the current RV: CheckWatchStart decides.
		r.watchNamespace = ns
		r.checkCurrent = true
	}
	return r
}

// List prints a list report.
func (p *Printer) List(r ListReport) error {
	r.Cost = p.cost()
	return p.emit(oneDocument, r, func() error { return p.listHuman(r) })
}

func (p *Printer) listHuman(r ListReport) error {
	s := p.Style
	ns := namespaceCell(r.Namespace, r.namespaced)
	rv := s.Bold.Sprint(r.ResourceVersion) + s.Dim.Sprint(`  (kubectl get -o json shows "")`)
	if r.NoResourceVersion {
		rv = s.Warn.Sprint("(none: the server sent no resourceVersion for this resource)")
	}
	pages := fmt.Sprintf("%d (limit %d)", r.Pages, r.Request.Limit)
	consistency := s.Good.Sprintf("all %d pages at RV %s", r.Pages, r.ResourceVersion)
	if r.Pages == 1 {
		consistency = s.Good.Sprint("single page")
	}
	if !r.Consistent {
		consistency = s.Bad.Sprintf("PAGES DISAGREE: %s — one list must have one RV", strings.Join(r.PageResourceVersions, ", "))
	}
	items := fmt.Sprint(r.ItemCount)
	if r.EstimatedTotal != nil {
		items = fmt.Sprintf("%d read, %d in the collection", r.ItemCount, *r.EstimatedTotal)
	}
	newest := r.MaxItemResourceVersion
	newestLabel := "Newest item RV"
	switch {
	case r.Request.RVOnly:
		// One item was read: its RV says nothing about the collection.
		newestLabel = "RV of the item read"
		if newest == "" {
			newest = "(no items)"
		}
	case newest == "" && r.ItemCount > 0:
		newest = "(the items carry no resourceVersion)"
	case newest == "":
		newest = "(no items)"
	case r.ListBelowNewestItem:
		newest = s.Bad.Sprintf("%s — HIGHER THAN THE LIST RV %s: the list RV must never be lower", newest, r.ResourceVersion)
	default:
		newest += s.Dim.Sprint("  (list RV is not lower: ok)")
	}
	pairs := [][2]string{
		{"Resource", fmt.Sprintf("%s (%s)", r.Resource, r.GroupVersion)},
		{"Namespace", ns},
		{"List resourceVersion", rv},
		{"Read semantics", r.ReadSemantics.Description},
	}
	if r.Server != nil {
		pairs = append(pairs, [2]string{"Server", r.Server.Summary()})
	}
	pairs = append(pairs, [][2]string{
		{"Items", items},
		{"Pages", pages},
		{"Page RVs", consistency},
	}...)
	if r.RemainingItemCount != nil {
		pairs = append(pairs, [2]string{"Remaining after page 1", fmt.Sprint(*r.RemainingItemCount)})
	}
	pairs = append(pairs,
		[2]string{newestLabel, newest},
		[2]string{"Transfer", transferText(r)},
	)
	if r.Restarted {
		pairs = append(pairs, [2]string{"Restarted", s.Warn.Sprintf("yes: attempt 1 lost its continue token at page %d; this is attempt 2", r.Attempts[0].ExpiredOnPage)})
	}
	switch {
	case r.Error != "":
	case r.WatchCommand != "":
		pairs = append(pairs, [2]string{"Watch from here", r.WatchCommand})
	case r.WatchAdvice != "":
		pairs = append(pairs, [2]string{"Watch from here", r.WatchAdvice})
	}
	if err := KeyValues(p.Out, pairs); err != nil {
		return err
	}
	if p.Wide() && len(r.PageDetails) > 0 {
		fmt.Fprintln(p.Out)
		t := NewTable("PAGE", "RESOURCEVERSION", "ITEMS", "REMAINING", "BYTES", "TIME")
		for _, pg := range r.PageDetails {
			rem := "-"
			if pg.RemainingItemCount != nil {
				rem = fmt.Sprint(*pg.RemainingItemCount)
			}
			t.Row(fmt.Sprint(pg.Index), pg.ResourceVersion, fmt.Sprint(pg.Items), rem, humanBytes(pg.Bytes), fmt.Sprintf("%.1fms", pg.Millis))
			if pg.ResourceVersion != r.ResourceVersion {
				t.PaintLast(1, s.Bad.Sprint)
			}
		}
		return t.Write(p.Out, s.Header.Sprint)
	}
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// gzipThresholdBytes: the API server gzips a response body above 128 KiB
// when the client accepts gzip, as Go's HTTP client does (apiserver
// endpoints/handlers/responsewriters defaultGzipThresholdBytes).
const gzipThresholdBytes = 128 << 10

// transferText says what the byte count is: the decoded bodies, which the
// wire carries gzipped when a page is over 128 KiB.
func transferText(r ListReport) string {
	s := fmt.Sprintf("%s decoded in %.1f ms", humanBytes(r.Bytes), r.Millis)
	for _, p := range r.PageDetails {
		if p.Bytes > gzipThresholdBytes {
			return s + " (bodies as decoded; the server gzips a body over 128 KiB, so fewer bytes crossed the wire)"
		}
	}
	return s
}
