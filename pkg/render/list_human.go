package render

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// List prints a list report.
func (p *Printer) List(r ListReport) error {
	r.Cost = p.cost()
	return p.emit(oneDocument, r, func() error { return p.listHuman(r) })
}

// namespaceText says which namespace was listed, in the one cell every
// output uses (namespaceCell), and why none was.
func (r ListReport) namespaceText() string {
	cell := namespaceCell(r.Namespace, !r.ClusterScoped)
	switch {
	case r.ClusterScoped && r.NamespaceIgnored != "":
		return fmt.Sprintf("%s (%s is cluster-scoped; -n %s is ignored, as kubectl does)", cell, r.Resource, r.NamespaceIgnored)
	case r.ClusterScoped:
		return fmt.Sprintf("%s (%s is cluster-scoped)", cell, r.Resource)
	}
	return cell
}

// itemsText: with --rv-only one item is read, and the collection's size is
// what the server counted; without a count, unknown.
// noItemRVText is what stands for the newest item RV when no item's was
// read: none carried one, or what they carried is no decimal RV (never
// "carry no resourceVersion" over items that carry one: adversary try 19).
func (r ListReport) noItemRVText() string {
	if r.ExcludedItems >= r.ItemCount {
		// The items came, and the request excluded them all: what they
		// carry is not the collection's.
		return "(no item within the request)"
	}
	if r.UnreadItemRV != "" {
		return fmt.Sprintf("(not ordered: the items' resourceVersion %q %s; etcd-backed API servers write decimal RVs)", r.UnreadItemRV, r.UnreadItemRVWhy)
	}
	return "(the items carry no resourceVersion)"
}

func (r ListReport) itemsText() string {
	n := r.itemsCounted()
	if r.Incomplete != nil {
		n += r.notTheTotal()
	}
	if r.NotCheckedForRepeats > 0 {
		n += fmt.Sprintf(" (whether an object is answered twice was checked for the first %d, not for the last %d: past its bound of %d names and UIDs)", r.ItemCount-r.ExcludedItems-r.NotCheckedForRepeats, r.NotCheckedForRepeats, listing.MaxDuplicateHashes)
	}
	return n
}

// notTheTotal says that the items of a list read in part are not its
// total, and what page 1 counted in the whole list when it did.
func (r ListReport) notTheTotal() string {
	if r.ExcludedItems == 0 && !r.Request.RVOnly {
		// "149 read": never the bare count a whole list shows.
		s := " read; not the list's total"
		if len(r.PageDetails) > 0 {
			if t := totalOf(r.PageDetails[0]); t != nil {
				s += fmt.Sprintf(" (page 1 counted %d in the list)", *t)
			}
		}
		return s
	}
	return "; not the list's total"
}

func (r ListReport) itemsCounted() string {
	switch {
	case r.ExcludedItems > 0:
		return fmt.Sprintf("%d answered, %d of them outside the request (%s)", r.ItemCount, r.ExcludedItems, r.ExcludedFirst)
	case !r.Request.RVOnly:
		return fmt.Sprint(r.ItemCount)
	case r.EstimatedTotal != nil:
		return fmt.Sprintf("%d read, %d in the collection", r.ItemCount, *r.EstimatedTotal)
	case r.Pages == 1 && r.RemainingItemCount != nil:
		return fmt.Sprintf("%d read; how many are in the collection is unknown: %s", r.ItemCount, listing.RemainingUntrue(r.PageDetails[0]))
	case r.Pages == 1:
		return fmt.Sprintf("%d read; how many are in the collection is unknown: the server sent a continue token but no remainingItemCount (it does not count with a label or field selector)", r.ItemCount)
	}
	return fmt.Sprint(r.ItemCount)
}

// servedText says who served each page: page 1 and the continue pages
// follow different rules, and storage's share is counted in requests.
func (r ListReport) servedText() string {
	sv := r.ServedBy
	n := ""
	switch {
	case sv.StorageRequests == nil || *sv.StorageRequests == 0:
	case sv.RVFromStorageList:
		n = fmt.Sprintf(" (%s: one per page storage served, and the cache's current-RV read)", text.Count(*sv.StorageRequests, "storage request"))
	default:
		n = fmt.Sprintf(" (%s, one per page)", text.Count(*sv.StorageRequests, "storage request"))
	}
	pages := r.Pages
	if r.Incomplete != nil {
		// Page 2 was asked for, answered or not (no bound ends a walk
		// after page 1 alone but -o name's, which prints no report).
		pages = max(pages, 2)
	}
	for _, a := range r.Attempts {
		// A lost attempt asked for its pages too: the last page it asked
		// for (adversary try 34 F1: "pages 2-1" of a restart whose
		// second attempt read one page).
		pages = max(pages, len(a.Pages), a.ExpiredOnPage, a.UnreadFromPage)
	}
	if pages <= 1 {
		if r.Request.ResourceVersion == "0" && sv.FirstFrom == serverinfo.ByWatchCache && r.ItemCount > r.Request.Limit {
			// What the page shows: the cache answered rv=0 whole.
			n += fmt.Sprintf("; one page of %s for a limit of %d: the watch cache does not page an rv=0 list", text.Count(r.ItemCount, "item"), r.Request.Limit)
		}
		return sv.First + n
	}
	if sv.FirstFrom == serverinfo.ByStorage && sv.ContinueFrom == serverinfo.ByStorage {
		return fmt.Sprintf("every page: %s%s", sv.First, n)
	}
	later := "pages 2-" + fmt.Sprint(pages)
	if pages == 2 {
		later = "page 2"
	}
	return fmt.Sprintf("page 1: %s; %s (continue tokens): %s%s", sv.First, later, sv.Continue, n)
}

func (p *Printer) listHuman(r ListReport) error {
	s := p.Style
	// kubectl get -o json of a collection builds its List client-side,
	// with resourceVersion ""; of one object it shows the object, whose
	// own RV is another number (fresh user try 17).
	rvText := s.Bold.Sprint(r.ResourceVersion) + s.Dim.Sprint(`  (kubectl get -o json shows "")`)
	if r.Name != "" {
		rvText = s.Bold.Sprint(r.ResourceVersion) + s.Dim.Sprint("  (the list's RV; kubectl get -o json of the object shows the object's own metadata.resourceVersion)")
	}
	if r.NoResourceVersion {
		rvText = s.Warn.Sprint("(none: the server sent no resourceVersion for this resource)")
	}
	pages := fmt.Sprintf("%d (limit %d)", r.Pages, r.Request.Limit)
	consistency := s.Good.Sprintf("all %d pages at RV %s", r.Pages, r.ResourceVersion)
	if r.Pages == 1 {
		consistency = s.Good.Sprint("single page")
	}
	if r.Incomplete != nil {
		// Of the pages read: never "all N pages", "single page" or "ok"
		// of a list read in part (fresh user try 22 F2, F3).
		pages = fmt.Sprintf("%d read (limit %d); page %d and after were not", r.Pages, r.Request.Limit, r.Incomplete.UnreadFromPage)
		consistency = fmt.Sprintf("the %s read at RV %s", text.Count(r.Pages, "page"), r.ResourceVersion)
	}
	if !r.pagesAgree {
		consistency = s.Bad.Sprintf("PAGES DISAGREE: %s — one list must have one RV", strings.Join(r.PageResourceVersions, ", "))
	}
	newest := r.MaxItemResourceVersion
	newestLabel := "Newest item RV"
	switch {
	case r.Request.RVOnly && r.Request.Limit == 1 && r.ItemCount > 1:
		// The server ignored limit=1 (an RV=0 list the watch cache
		// serves whole): the items read are the whole collection.
		newestLabel = "Newest item RV"
		if newest == "" {
			newest = r.noItemRVText()
		}
		newest += s.Warn.Sprintf("  (--rv-only asked for one item; the server ignored limit=1 and sent all %d)", r.ItemCount)
	case r.Request.RVOnly:
		// One item was read: its RV says nothing about the collection.
		newestLabel = "RV of the item read"
		switch {
		case newest == "" && r.ItemCount > 0:
			newest = r.noItemRVText()
		case newest == "":
			newest = "(no items)"
		}
	case newest == "" && r.ItemCount > 0:
		newest = r.noItemRVText()
	case newest == "":
		newest = "(no items)"
	case r.itemAboveList:
		newest = s.Bad.Sprintf("%s — HIGHER THAN THE LIST RV %s: the list RV must never be lower", newest, r.ResourceVersion)
	case r.Incomplete != nil:
		newest += s.Dim.Sprint("  (of the items read; the list was not read whole)")
	case !r.rvsCompared:
		// An RV that is no decimal number cannot be ordered: nothing
		// was checked, so nothing is said to be ok.
		newest += s.Dim.Sprint("  (not compared with the list RV: not both decimal RVs)")
	default:
		newest += s.Dim.Sprint("  (list RV is not lower: ok)")
	}
	if r.UnreadItemRV != "" && r.MaxItemResourceVersion != "" {
		// Beside decimal ones: said, never left out of "ok" (fresh
		// user try 20).
		newest += s.Warn.Sprintf("; an item's resourceVersion %q %s, so it is not ordered with the others (etcd-backed API servers write decimal RVs)", r.UnreadItemRV, r.UnreadItemRVWhy)
	}
	pairs := [][2]string{
		{"Resource", fmt.Sprintf("%s (%s)", r.Resource, r.GroupVersion)},
		{"Namespace", r.namespaceText()},
	}
	for _, kv := range [][2]string{{"Name", r.Name}, {"Selector", r.LabelSelector}, {"Field selector", r.FieldSelector}} {
		if kv[1] != "" {
			pairs = append(pairs, kv)
		}
	}
	if r.Incomplete != nil {
		pairs = append(pairs, [2]string{"Incomplete", s.Bad.Sprintf("NOT THE WHOLE LIST: the walk stopped before page %d (%s); what follows is of the %s read", r.Incomplete.UnreadFromPage, r.Incomplete.Why, text.Count(r.Pages, "page"))})
	}
	pairs = append(pairs,
		[2]string{"List resourceVersion", rvText},
		[2]string{"Read semantics", r.ReadSemantics.Description},
	)
	if r.ServedBy != nil {
		pairs = append(pairs, [2]string{"Served by", r.servedText()})
	}
	if r.Server != nil {
		pairs = append(pairs, [2]string{"Server", r.Server.Summary()})
	}
	pairs = append(pairs, [][2]string{
		{"Items", r.itemsText()},
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
	case r.WatchCommand != "":
		pairs = append(pairs, [2]string{"Watch from here", r.WatchCommand})
		for _, n := range r.WatchCommandNotes {
			pairs = append(pairs, [2]string{"Before pasting", n})
		}
		if r.WatchCaveat != "" {
			pairs = append(pairs, [2]string{"Caveat", r.WatchCaveat})
		}
	case r.WatchAdvice != "":
		pairs = append(pairs, [2]string{"Watch from here", r.WatchAdvice})
	}
	if err := KeyValues(p.Out, pairs); err != nil {
		return err
	}
	if n := r.Server.Note(); n != "" {
		p.Notef("Note: %s", n)
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
		return p.table(t)
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
// wire carries gzipped when a page is over 128 KiB; and the time, the
// server's and the network's, with the plugin's own wait for its rate
// limit said beside it, never left out unsaid (fresh user try 22 F7: a
// 303-page walk of 4.2 s said "decoded in 477.1 ms").
func transferText(r ListReport) string {
	s := fmt.Sprintf("%s decoded in %s", humanBytes(r.Bytes), millisText(r.Millis))
	for _, p := range r.PageDetails {
		if p.Bytes > gzipThresholdBytes {
			s += " (bodies as decoded; the server gzips a body over 128 KiB, so fewer bytes crossed the wire)"
			break
		}
	}
	if pc := r.Pacing; pc != nil {
		s += fmt.Sprintf(", and %s more waiting for the plugin's own rate limit", millisText(pc.Millis))
		if pc.QPS > 0 {
			s += fmt.Sprintf(" (%g requests a second after a burst of %d: a larger --limit sends fewer requests)", pc.QPS, pc.Burst)
		}
	}
	if rw := r.RetryWait; rw != nil {
		s += retryWaitText(rw)
	}
	return s
}

// millisText is a time in ms as the report says it: in seconds past one.
func millisText(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2f s", ms/1000) // as the other lines say a time past a second
	}
	return fmt.Sprintf("%.1f ms", ms)
}
