package listing

import (
	"fmt"
	"hash/maphash"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Bounds of one paged walk: every walk of the plugin (list, probe's dated
// list, watch's list and relists) goes through walkOnce, and so through
// endCheck, so no server can keep a walk going for ever.
const (
	// MaxWalkPages ends a walk that is still not done after that many
	// pages: 10 million items at the default --limit 500, more than any
	// real collection holds.
	MaxWalkPages = 20_000
	// maxEmptyPages ends a walk whose pages bring a new continue token and
	// no item, that many in a row: an API server fills each page up to
	// the limit before it sends a continue token.
	maxEmptyPages = 64
)

// endCheck proves that a walk progresses: no continue token comes twice
// (a server that repeats one would have the walk read the same pages for
// ever), the pages bring items, and there are not absurdly many. It keeps
// a 64-bit hash of each token, not the token.
type endCheck struct {
	path  string
	seed  maphash.Seed
	seen  map[uint64]int // token hash -> the page that carried it
	empty int
}

func newEndCheck(path string) *endCheck {
	return &endCheck{path: path, seed: maphash.MakeSeed(), seen: map[uint64]int{}}
}

// next checks page (1-based), which brought items (items so far: total)
// and the continue token token; an error ends the walk.
func (e *endCheck) next(page, items int, total int64, token string) error {
	if items == 0 {
		e.empty++
	} else {
		e.empty = 0
	}
	h := maphash.String(e.seed, token)
	switch first, again := e.seen[h]; {
	case again:
		return &EndlessListError{Path: e.path, Page: page, SameAs: first, Items: total}
	case e.empty >= maxEmptyPages:
		return &EndlessListError{Path: e.path, Page: page, Empty: e.empty, Items: total}
	case page >= MaxWalkPages:
		return &EndlessListError{Path: e.path, Page: page, Items: total}
	}
	e.seen[h] = page
	return nil
}

// TooManyPages reports a walk ended for its page count alone: larger
// pages or a narrower list would end it.
func (e *EndlessListError) TooManyPages() bool { return e.SameAs == 0 && e.Empty == 0 }

// EndlessListError is a paged list that would never end. It is one class
// of failure with a body over its cap (diagnose.FailureUnbounded).
type EndlessListError struct {
	Path string
	// Page is the page whose continue token was not followed.
	Page int
	// SameAs is the earlier page that carried the same token (0: none).
	SameAs int
	// Empty counts the pages in a row that brought no item (0: not why).
	Empty int
	// Items is how many items the walk had read.
	Items int64
}

func (e *EndlessListError) Error() string {
	switch {
	case e.SameAs > 0:
		return fmt.Sprintf("the list of %s never ends: page %d carries the continue token of page %d again (%s read), so following it would read the same pages without end: the API server, or a proxy in front of it, is broken",
			e.Path, e.Page, e.SameAs, text.Count(e.Items, "item"))
	case e.Empty > 0:
		return fmt.Sprintf("the list of %s never ends: %d pages in a row brought no item and a new continue token (page %d, %s read): the API server, or a proxy in front of it, is broken",
			e.Path, e.Empty, e.Page, text.Count(e.Items, "item"))
	}
	return fmt.Sprintf("the list of %s is not done after %d pages (%s read), the most one walk reads", e.Path, e.Page, text.Count(e.Items, "item"))
}

// Unbounded marks the error as an answer that broke one of the plugin's
// bounds (diagnose.FailureUnbounded).
func (e *EndlessListError) Unbounded() bool { return true }
