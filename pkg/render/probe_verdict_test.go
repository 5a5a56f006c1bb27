package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// rowKinds are the outcomes a probe row can have, as the classifier
// (pkg/probe try.go) makes them from the server's answers; the messages
// are the real servers' (pkg/probe/testdata), but for the one that is
// unrecognized by definition.
var rowKinds = map[string]probe.Try{
	"ok-at-1":      {ResourceVersion: 1, Outcome: probe.OutcomeOK, Evidence: "replayed ADDED a (RV 42)"},
	"ok-at-312":    {ResourceVersion: 312, Outcome: probe.OutcomeOK, Evidence: "replayed MODIFIED a (RV 315)"},
	"cache-410":    {ResourceVersion: 1, Outcome: probe.OutcomeExpired, Source: probe.SourceWatchCache, OldestNamed: 312, Code: 410, Evidence: "ERROR event 410 Expired", Message: "too old resource version: 1 (312)"},
	"storage-410":  {ResourceVersion: 1, Outcome: probe.OutcomeExpired, Source: probe.SourceStorage, Code: 410, Evidence: "ERROR event 410 Expired", Message: "The resourceVersion for the provided watch is too old."},
	"unknown-410":  {ResourceVersion: 1, Outcome: probe.OutcomeExpired, Source: probe.SourceUnknown, Code: 410, Evidence: "ERROR event 410 Expired", Message: "resource version 1 is gone"},
	"prevkv-lost":  {ResourceVersion: 311, Outcome: probe.OutcomeExpired, Source: probe.SourceStorage, Code: 500, LostAt: 312, Evidence: "ERROR event 500 InternalError: the change at RV 312 is lost", Message: "Internal error occurred: etcd event received with PrevKv=nil (key=\"/registry/configmaps/probe-edge/edge\", modRevision=312, type=PUT)"},
	"throttled":    {ResourceVersion: 1, Outcome: probe.OutcomeThrottled, Code: 429, Evidence: "HTTP 429 TooManyRequests"},
	"transient":    {ResourceVersion: 1, Outcome: probe.OutcomeTransient, Evidence: "the stream ended before any event"},
	"forbidden":    {ResourceVersion: 1, Outcome: probe.OutcomeFatal, Code: 403, Evidence: "HTTP 403 Forbidden", Message: `configmaps is forbidden: User "nobody" cannot watch resource "configmaps" in API group "" at the cluster scope`},
	"bad-request":  {ResourceVersion: 1, Outcome: probe.OutcomeFatal, Code: 400, Evidence: "HTTP 400 BadRequest"},
	"verify-at-1":  {ResourceVersion: 1, Outcome: probe.OutcomeOK, Evidence: "accepted: no error within 250ms", Silent: true},
	"cache-410-lo": {ResourceVersion: 311, Outcome: probe.OutcomeExpired, Source: probe.SourceWatchCache, OldestNamed: 312, Code: 410, Evidence: "ERROR event 410 Expired", Message: "too old resource version: 311 (312)"},
}

// The class of issue 25 item 7: the verdict ("Answered by", the SOURCE
// cell) said "nothing has expired" above a row that expired with a 410 it
// did not recognize, and "unknown" for a forbidden row. Every sequence of
// up to three rows, with the bound found or not, is rendered, and the
// verdict is checked against each row.
func TestProbeVerdictNeverContradictsItsRows(t *testing.T) {
	var names []string
	for k := range rowKinds {
		names = append(names, k)
	}
	var seqs [][]string
	var grow func(prefix []string)
	grow = func(prefix []string) {
		if len(prefix) > 0 {
			seqs = append(seqs, append([]string{}, prefix...))
		}
		if len(prefix) == 3 {
			return
		}
		for _, n := range names {
			grow(append(prefix, n))
		}
	}
	grow(nil)
	checked := 0
	for _, seq := range seqs {
		for _, found := range []string{"", "1", "312"} {
			var rows []probe.Try
			for _, n := range seq {
				rows = append(rows, rowKinds[n])
			}
			w := &probe.Result{
				Target:  apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "demo"},
				Current: 400,
				Search:  &probe.SearchResult{Current: 400, Probes: rows, Found: found != ""},
			}
			if found != "" {
				fmt.Sscan(found, &w.Search.Oldest)
			}
			reason := ""
			if found == "" {
				reason = "Forbidden"
			}
			r := NewProbeReport(w, reason)
			var out bytes.Buffer
			if err := NewPrinter(&out, &out, "", true).Probe(r, true); err != nil {
				t.Fatal(err)
			}
			checked++
			checkVerdict(t, strings.Join(seq, ","), found, rows, r, out.String())
		}
	}
	t.Logf("%d row sequences checked", checked)
}

func checkVerdict(t *testing.T, name, found string, rows []probe.Try, r ProbeReport, out string) {
	t.Helper()
	answered := lineAfter(out, "Answered by:")
	cell := sourceCellOf(out)
	var expired, cache, storage, unknown, okAt1, forbidden, answers int
	for _, row := range rows {
		switch row.Outcome {
		case probe.OutcomeExpired:
			expired++
			answers++
			switch row.Source {
			case probe.SourceWatchCache:
				cache++
			case probe.SourceStorage:
				storage++
			default:
				unknown++
			}
		case probe.OutcomeOK:
			answers++
			if row.ResourceVersion == 1 {
				okAt1++
			}
		case probe.OutcomeFatal:
			if row.Code == 403 {
				forbidden++
			}
		}
	}
	fail := func(format string, a ...any) {
		t.Errorf("rows %s (found %q): %s\n%s", name, found, fmt.Sprintf(format, a...), out)
	}
	if expired > 0 && (strings.Contains(answered, "nothing has expired") || cell == "none") {
		fail("%d row(s) expired, the verdict says nothing has", expired)
	}
	if strings.Contains(answered, "nothing has expired") && okAt1 == 0 && found != "1" {
		fail("nothing has expired, and no row started at RV 1")
	}
	if strings.HasPrefix(answered, "the watch cache") && (cache == 0 || storage+unknown > 0) {
		fail("names the watch cache with %d cache, %d storage, %d unrecognized 410s", cache, storage, unknown)
	}
	if strings.HasPrefix(answered, "storage") && (storage == 0 || cache+unknown > 0) {
		fail("names storage with %d cache, %d storage, %d unrecognized 410s", cache, storage, unknown)
	}
	if unknown > 0 && (cell != "unknown" || !strings.Contains(answered, "does not recognize")) {
		fail("an unrecognized 410, and SOURCE %q, verdict %q", cell, answered)
	}
	if forbidden > 0 && answers == 0 && (cell != "forbidden" || !strings.Contains(answered, "forbidden")) {
		fail("only a forbidden answer, and SOURCE %q, verdict %q", cell, answered)
	}
	if cell == "watch-cache" && cache == 0 || cell == "storage" && storage == 0 {
		fail("SOURCE %q and no row answered by it", cell)
	}
	if strings.Contains(strings.ReplaceAll(out, "etcd, or a shim", ""), "etcd,") || strings.Contains(answered, "etcd's") {
		fail("names etcd as the answerer")
	}
	if cell != sourceCell(r) {
		fail("SOURCE cell %q, the report's %q", cell, sourceCell(r))
	}
	if found == "" && r.Found {
		fail("found without a bound")
	}
}

// lineAfter is the rest of the line that starts with key.
func lineAfter(out, key string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, key) {
			return strings.TrimSpace(strings.TrimPrefix(l, key))
		}
	}
	return ""
}

// sourceCellOf is the SOURCE cell of the table's one row.
func sourceCellOf(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "RESOURCE") && i+1 < len(lines) {
			col := strings.Index(l, " SOURCE") + 1
			rest := lines[i+1][col:]
			return strings.Fields(rest)[0]
		}
	}
	return ""
}
