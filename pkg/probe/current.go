package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// ErrOpaqueRV is returned for a collection whose resourceVersion is not a
// decimal etcd revision (some aggregated APIs): its window cannot be searched.
var ErrOpaqueRV = errors.New("opaque resourceVersion")

// ReadCurrent reads the collection's current RV through the one
// current-RV read (listing.CurrentRV: within the budget, a 429 waited out)
// and parses it. itemRV is the last-modified RV of the item the list
// returned (0 for an empty scope).
func ReadCurrent(ctx context.Context, c *apiclient.Client, t apiclient.Target, o listing.CurrentOptions) (current uint64, raw string, itemRV uint64, err error) {
	raw, page, err := listing.CurrentRV(ctx, c, t, o)
	if err != nil {
		return 0, "", 0, err
	}
	n, err := StorageRV(raw)
	if err != nil {
		return 0, raw, 0, err
	}
	return n, raw, page.NewestItemRV(), nil
}

// StorageRV is the one rule for an RV a server gave as a list's, read as
// a measured number (a current RV, a cache RV): a storage's RV
// (rv.OfStorage). One that is no decimal is ErrOpaqueRV (some aggregated
// APIs write their own); a decimal no storage gives ("0": every storage
// counts its revisions from 1) is an answer in breach of the List
// contract (*diagnose.ContractError), never a number to show, subtract
// or draw a window or a verdict from (adversary: a server answering its
// lists at RV "0" showed CURRENT RV 0, CACHE RV 0, LAG 0 and "a reconnect
// from any RV in [0, 100] is served at once"), as list and watch say it.
func StorageRV(raw string) (uint64, error) {
	n, why := rv.OfStorage(raw)
	switch {
	case why == "":
		return n, nil
	case !rv.Valid(raw):
		return 0, fmt.Errorf("%w %q: only etcd-backed resources with decimal resourceVersions can be searched (aggregated APIs may use their own)", ErrOpaqueRV, raw)
	}
	return 0, &diagnose.ContractError{Contract: "List", Breach: fmt.Sprintf("the list's resourceVersion %q %s", text.Echo(raw), why)}
}

// FutureCheck is what the server did with an RV ahead of it.
type FutureCheck struct {
	ResourceVersion string `json:"resourceVersion"`
	// List: a NotOlderThan list at the future RV (expected: 504 TooLarge
	// after about 3 s).
	ListOutcome string  `json:"listOutcome"`
	ListCode    int32   `json:"listCode,omitempty"`
	ListMessage string  `json:"listMessage,omitempty"`
	ListMillis  float64 `json:"listMs"`
	// Watch: a watch from the future RV (expected on v1.37.2: held silently).
	// Empty when the run was cut before the watch was answered.
	WatchOutcome  Outcome `json:"watchOutcome,omitempty"`
	WatchEvidence string  `json:"watchEvidence,omitempty"`
	WatchMillis   float64 `json:"watchMs,omitempty"`
	WatchHeldFor  string  `json:"watchHeldFor,omitempty"`
}

// Future shows what this server does with an RV ahead of it: one list and
// one watch, two requests from the budget (try.Budget). The watch is held
// for try.Wait, its wait for an answer to begin bounded as every probe's
// watch (try.HeaderTimeout: --request-timeout where given).
func Future(ctx context.Context, c *apiclient.Client, t apiclient.Target, current uint64, ahead uint64, try TryOptions) (*FutureCheck, error) {
	hold, b := try.Wait, try.Budget
	if ahead > math.MaxUint64-current {
		return nil, fmt.Errorf("an RV %d past the current RV %d does not fit in 64 bits", ahead, current)
	}
	rv := current + ahead
	f := &FutureCheck{ResourceVersion: strconv.FormatUint(rv, 10)}
	lctx, sw := apiclient.StartStopwatch(ctx) // the --qps pacing left out
	_, err := listing.List(lctx, c, t, listing.PageOptions{Limit: 1, ResourceVersion: f.ResourceVersion, ResourceVersionMatch: "NotOlderThan", Budget: b})
	if apiclient.Unanswered(ctx, err) {
		// Not sent, or cut by the signal: nothing of the check to show.
		return nil, err
	}
	f.ListMillis = float64(sw.Elapsed().Microseconds()) / 1000
	switch {
	case err == nil:
		f.ListOutcome = "ok"
	default:
		f.ListOutcome = string(diagnose.ClassifyFailure(err))
	}
	if st, ok := diagnose.StatusOf(err); ok {
		f.ListCode, f.ListMessage = st.Code, st.Message
	} else if err != nil {
		f.ListMessage = err.Error()
	}
	var broke *diagnose.ContractError
	if errors.As(err, &broke) {
		// An answer that broke the List contract (below the RV the list
		// asked not to be older than: adversary try 25 F5) is no outcome
		// of the check: the run's failure, the list's row saying it.
		return f, err
	}
	w := TryWatch(ctx, c, t, rv, try)
	if err := w.Unanswered(); err != nil {
		return f, err // the list's answer only: no watch was answered
	}
	f.WatchOutcome, f.WatchEvidence, f.WatchMillis = w.Outcome, w.Evidence, w.LatencyMillis
	switch {
	case w.Outcome == OutcomeOK && w.Silent:
		f.WatchEvidence, f.WatchHeldFor = fmt.Sprintf("held silently: no event and no error for %s", hold), hold.String()
	case w.Code == 0 && w.Message != "":
		// A failure of its own (no answer within its bound, no
		// connection) is said with its words, not only "request failed".
		f.WatchEvidence += ": " + text.OneLine(w.Message)
	}
	return f, nil
}
