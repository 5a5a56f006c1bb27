package streaming

import (
	"context"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// compare checks the informer's store and the bookmark's RV against the
// list: the consistent one read first, and when the store differs from it
// and the bookmark is at another RV (writes in between), one at exactly the
// bookmark's RV, which is what the informer's state claims to be. Its
// error is an exact list that broke the List contract: the check fails.
func compare(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options, r *Result, store *Store, listItems []apiclient.ItemMeta) error {
	if !watchstream.ResumableEnd(r.BookmarkResourceVersion) {
		// The informer syncs, keeps that RV as its last, and its next
		// watch starts from it: one no server resumes from (adversary
		// try 44 F3: "correct" and "will work" where watch said "no
		// resume point" of the same stream).
		r.Problems = append(r.Problems, `the initial-events-end bookmark's RV "`+text.Echo(r.BookmarkResourceVersion)+`" is none a watch can resume from: the informer syncs, then its next watch starts from it`)
	}
	if r.ListCount == nil {
		r.Problems = append(r.Problems, "the state was not checked: the list failed: "+r.ListError)
		r.CountUnchecked = true
		return nil
	}
	lrv, lok := rv.Parse(r.ListResourceVersion)
	brv, bok := rv.Parse(r.BookmarkResourceVersion)
	if lok && bok && brv < lrv {
		r.Problems = append(r.Problems, "the bookmark's RV "+r.BookmarkResourceVersion+" is older than the consistent list's "+r.ListResourceVersion+" (sent before it): the stream is not a consistent read")
	}
	d := store.Diff(listItems, "a list at RV "+r.ListResourceVersion)
	if d.Empty() {
		return nil
	}
	if r.BookmarkResourceVersion == r.ListResourceVersion || !bok {
		if r.BookmarkResourceVersion == r.ListResourceVersion {
			d.ComparedWith = "a list at the same RV " + r.ListResourceVersion
		}
		r.Difference = &d
		r.Problems = append(r.Problems, d.Sentence())
		return nil
	}
	// Writes between the list and the watch: compare at the bookmark's RV.
	p, err := listWithin(ctx, c, t, o, listing.PageOptions{ResourceVersion: r.BookmarkResourceVersion, ResourceVersionMatch: "Exact", Budget: o.Budget})
	if apiclient.NotSent(err) {
		r.Problems = append(r.Problems, "the state was not checked at the bookmark's RV: "+err.Error())
		r.CountUnchecked = true
		return nil
	}
	r.Requests++
	if listFailsTheCheck(err) || apiclient.Unanswered(ctx, err) {
		return err // a cut list is no problem of the server's
	}
	if err != nil {
		r.Problems = append(r.Problems, "the state was not checked at the bookmark's RV "+r.BookmarkResourceVersion+": "+apiclient.FailureWords("list", t.Resource.Name(), err))
		r.CountUnchecked = true
		return nil
	}
	n := len(p.Items)
	r.ExactCount = &n
	if d := store.Diff(p.Items, "a list at exactly the bookmark's RV "+r.BookmarkResourceVersion); !d.Empty() {
		r.Difference = &d
		r.Problems = append(r.Problems, d.Sentence())
	}
	return nil
}
