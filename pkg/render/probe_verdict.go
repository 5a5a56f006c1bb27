package render

import (
	"fmt"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// The verdict lines of a probe ("Answered by", "Bound", the SOURCE cell)
// are derived from the report's probes (ProbeReport.Answer, computed by
// probe.AnswerOf from every row -v prints) and from how the bound was
// found (BoundBy): each names only what a row shows.

// storageName is how the plugin names the storage under the API server:
// etcd and a shim such as kine (k3s) answer alike, with the same 410
// wordings, so neither is named as a fact (shared/reference/rv-semantics.md).
const storageName = "storage (etcd, or a shim such as kine: the two answer alike)"

func answeredBy(r ProbeReport) string {
	a := r.Answer
	notOwn := r.notOwn()
	switch {
	case a.Source == probe.SourceWatchCache && notOwn != "":
		return "a watch cache (its 410 names the oldest RV: \"too old resource version: X (Y)\"), of the server that serves " + r.Resource + ", which is not known to be this API server: " + notOwn
	case a.Source == probe.SourceStorage && notOwn != "":
		return "storage, directly (its 410 is storage's, not a watch cache's), of the server that serves " + r.Resource + ", which is not known to be this API server: " + notOwn
	case a.Source == probe.SourceMixed && notOwn != "":
		return fmt.Sprintf("both a watch cache (%s) and storage (%s) answered 410: the servers behind this address answer differently (%s shows each), whose server is not known to be this API server: %s", text.Count(a.WatchCache, "probe"), text.Count(a.Storage, "probe"), r.ServersCommand(), notOwn)
	}
	switch a.Source {
	case probe.SourceWatchCache:
		return "the watch cache of this API server (its 410 names the oldest RV: \"too old resource version: X (Y)\")"
	case probe.SourceStorage:
		return storageName + ", directly: the watch cache is off for this resource, so its watches are served by storage"
	case probe.SourceMixed:
		return fmt.Sprintf("both the watch cache (%s) and storage (%s) answered 410: the API servers behind this address answer differently (%s shows each)", text.Count(a.WatchCache, "probe"), text.Count(a.Storage, "probe"), r.ServersCommand())
	case probe.SourceNone:
		return "nothing has expired: a watch from RV 1 starts, so the whole history is still watchable"
	}
	switch {
	case a.Unrecognized > 0:
		return fmt.Sprintf("not known: %s got a 410 whose message the plugin does not recognize (%q), so who answers cannot be told from it", text.Count(a.Unrecognized, "probe"), text.OneLine(a.UnrecognizedMessage))
	case a.Forbidden:
		return "not known: the probe was forbidden (it needs RBAC permission to list and watch " + r.Resource + ")"
	}
	return "not known: no probe answered about the window (see the probes with -v)"
}

// notOwn says why the probed resource is not known to be served by the
// API server itself ("" when it is), by the one decision
// (serverinfo.ServesSeen): a built-in group, the facts list reads
// (Server), or a watch cache --metrics saw. Then no 410 is called this API
// server's cache's or storage's.
func (r ProbeReport) notOwn() string {
	if serves, why := serverinfo.ServesSeen(r.Resource, r.Server, r.Metrics != nil && r.Metrics.Found()); serves != serverinfo.Yes {
		return why
	}
	return ""
}

// NeedsServer: "Answered by" names a source whose server only the facts
// list reads can tell (Server): a watch cache or storage answered, of a
// resource nothing the probe read shows to be this API server's.
func (r ProbeReport) NeedsServer() bool {
	switch r.Answer.Source {
	case probe.SourceWatchCache, probe.SourceStorage, probe.SourceMixed:
		return r.Server == nil && !r.outOfOrder && r.notOwn() != ""
	}
	return false
}

// sourceCell is the SOURCE column: the answer's source, or the failure
// itself when no probe answered (a forbidden row says forbidden).
func sourceCell(r ProbeReport) string {
	switch {
	case !r.Answer.NoAnswer:
		return r.Source
	case r.Answer.Forbidden || r.Reason == "Forbidden":
		return "forbidden"
	case r.Reason != "":
		return "-"
	}
	return r.Source
}

func boundText(r ProbeReport) string {
	n, _ := strconv.ParseUint(r.OldestResourceVersion, 10, 64)
	if n <= 1 {
		return "a watch from RV 1 starts"
	}
	at := startedAt(r, n)
	switch r.BoundBy {
	case probe.BoundWatchCacheNamed:
		if at == "" {
			return fmt.Sprintf("a watch from RV %d starts; from RV %d it fails (both by the server's own 410 message, not confirmed by a watch from RV %d: --verify does)", n, n-1, n)
		}
		return fmt.Sprintf("a watch from RV %d starts; from RV %d it fails (shown by the server's own 410 message)", n, n-1)
	case probe.BoundCompaction:
		return fmt.Sprintf("a watch from RV %d starts%s; from RV %d it fails with 410: storage is compacted (exact lists answer from RV %s; a watch from N reads the revisions from N+1 on)", n, at, n-1, r.CompactedAt)
	case probe.BoundLostChange:
		out := fmt.Sprintf("a watch from RV %d starts%s; from below it a watch fails at the change at RV %d: 500 PrevKv=nil (its object's previous value is compacted), the change is lost and the server ends the watch", n, at, n)
		if c, _ := strconv.ParseUint(r.CompactedAt, 10, 64); c > 0 && c < n {
			out += fmt.Sprintf("; storage is compacted at RV %d (exact lists answer from there), below this change: a shim such as kine drops the previous value of every object last written below its compaction point, so a watch far above that point can lose a change", c)
		} else if c == n {
			out += " (the compaction revision itself)"
		}
		return out
	}
	return fmt.Sprintf("a watch from RV %d starts; from RV %d it fails (shown by a probe)", n, n-1)
}

// startedAt is ": EVIDENCE" of the last probe that started at rv (the one
// that proves the bound), or "" when none did.
func startedAt(r ProbeReport, rv uint64) string {
	steps := r.allSteps()
	for i := len(steps) - 1; i >= 0; i-- {
		if s := steps[i]; s.ResourceVersion == rv && s.Outcome == probe.OutcomeOK {
			return " (" + s.Evidence + ")"
		}
	}
	return ""
}
