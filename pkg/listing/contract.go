package listing

import (
	"fmt"
	"math"
	"slices"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// The List contract is judged in the one list request (listEach), so
// that every caller of a list (list, watch --rv list and its relists,
// streaming's list, probe's current RV, the per-server reads) gets an
// answer that broke it as a *diagnose.ContractError, never as a list to
// draw numbers from (fresh user try 20: watch --rv list started from the
// RV of an answer list refused). A walk judges its pages together.

// itemCheck judges the items of one page as they stream: what the
// request excluded is counted and never handed on, and the newest
// decimal item RV, and the first that is none, are kept.
type itemCheck struct {
	excludes      func(ItemMeta) apiclient.Exclusion
	excluded      int64
	excludedFirst string
	excludedBroke apiclient.Restriction // the restrictions they broke
	maxRV         uint64
	maxRVText     string
	unread        string // the first item RV that is no decimal RV (echoed)
	unreadWhy     string
}

func newItemCheck(t apiclient.Target) *itemCheck { return &itemCheck{excludes: t.Matcher()} }

// keep judges one item: false when the request excluded it.
func (c *itemCheck) keep(it ItemMeta) bool {
	if ex := c.excludes(it); ex.Why != "" {
		c.excluded++
		c.excludedBroke |= ex.Broke
		if c.excludedFirst == "" {
			c.excludedFirst = ex.Why
		}
		return false
	}
	n, ok := rv.Parse(it.ResourceVersion)
	switch {
	case ok && n > c.maxRV:
		c.maxRV, c.maxRVText = n, it.ResourceVersion
	case !ok && it.ResourceVersion != "" && c.unread == "":
		c.unread, c.unreadWhy = text.Echo(it.ResourceVersion), rv.Why(it.ResourceVersion)
	}
	return true
}

// Breach is how the attempt's answer broke the List contract ("" when it
// did not), the first of: pages at different RVs, a list RV outside the
// request's own bound (boundBreach), an item newer than the list, items the request excluded, more than one object of the one
// name t asks for, an object answered twice (duplicates.go), a
// remainingItemCount no count can be.
func (a *Attempt) breach(t apiclient.Target, o PageOptions) string {
	var rvs []string
	for _, p := range a.Pages {
		if !slices.Contains(rvs, p.ResourceVersion) {
			rvs = append(rvs, p.ResourceVersion)
		}
	}
	if len(rvs) > 1 {
		var all []string
		for i, p := range a.Pages {
			if i == 8 {
				all = append(all, fmt.Sprintf("... (%s)", text.Count(len(a.Pages), "page")))
				break
			}
			all = append(all, text.Echo(p.ResourceVersion))
		}
		return fmt.Sprintf("the pages of one list carried different resourceVersions %v", all)
	}
	if len(a.Pages) > 0 {
		if why := boundBreach(o, a.Pages[0].ResourceVersion); why != "" {
			return why
		}
		if l, ok := rv.Parse(a.Pages[0].ResourceVersion); ok {
			if m, ok := rv.Parse(a.MaxItemResourceVersion); ok && m > l {
				return fmt.Sprintf("an item's resourceVersion %d is newer than the list's %d", m, l)
			}
		}
	}
	if a.Excluded > 0 {
		return fmt.Sprintf("it answered %s, %d of which the request excluded (the first: %s): it ignored %s", text.Count(int(a.ItemCount), "item"), a.Excluded, a.ExcludedFirst, t.Restrictions(a.ExcludedBroke))
	}
	if name, one := t.SingleName(); one && a.ItemCount > 1 {
		return fmt.Sprintf("it answered %s named %q, where one name holds one object", text.Count(int(a.ItemCount), "object"), text.Echo(name))
	}
	if a.repeat != "" {
		return a.repeat
	}
	for _, p := range a.Pages {
		if why := RemainingUntrue(p); why != "" {
			return why
		}
	}
	return ""
}

// RemainingUntrue says why a page's remainingItemCount cannot be a count
// ("" when it can be): below 0, past what an int64 holds with the page's
// own items, or with no continue token to read the rest (adversary try
// 19: "-4 in the collection").
func RemainingUntrue(p PageInfo) string {
	n := p.RemainingItemCount
	switch {
	case n == nil:
		return ""
	case *n < 0:
		return fmt.Sprintf("page %d says remainingItemCount %d, which cannot be true of a count", p.Index, *n)
	case *n > math.MaxInt64-int64(p.Items):
		return fmt.Sprintf("page %d says remainingItemCount %d, which with its own %s is more than any count holds", p.Index, *n, text.Count(p.Items, "item"))
	case *n > 0 && !p.More:
		return fmt.Sprintf("page %d says remainingItemCount %d but carries no continue token to read them", p.Index, *n)
	}
	return ""
}

// boundBreach says how a list answered at RV got broke the bound its
// request o (the first page's) set ("" when it kept it, or set none): a
// list not older than N answered below N, an exact list at N answered at
// another RV. A check's verdict is drawn from the answer, never from "no
// error" (adversary try 25 F5: "a list not older than RV 746 works",
// answered at RV 100). Only a storage's RVs are compared (rv.OfStorage):
// an opaque one is no storage's to order, and "0" or an empty one is said
// by whoever needs an RV from the answer (watch's resume point:
// follow.NoResumePointError), not taken for an RV below the bound.
func boundBreach(o PageOptions, got string) string {
	asked, ok := rv.Parse(o.ResourceVersion)
	if !ok || o.Continue != "" {
		return ""
	}
	n, why := rv.OfStorage(got)
	if why != "" {
		return ""
	}
	switch SemanticsOf(o.ResourceVersion, o.ResourceVersionMatch, o.Limit).Mode {
	case "NotOlderThan":
		if n < asked {
			return fmt.Sprintf("a list not older than RV %d was answered at RV %d, older than it asked", asked, n)
		}
	case "Exact":
		if n != asked {
			return fmt.Sprintf("an exact list at RV %d was answered at RV %d", asked, n)
		}
	}
	return ""
}

// contractError is the attempt's breach as an error (nil when none); o is
// the options of its first page, which set the bound.
func (a *Attempt) contractError(t apiclient.Target, o PageOptions) error {
	if a.Breach = a.breach(t, o); a.Breach == "" {
		return nil
	}
	return &diagnose.ContractError{Contract: "List", Breach: a.Breach}
}
