//go:build e2e

package matrix

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// judge reports the mismatches of one check, or, for a check knownWrong
// lists on this cell, that they are still there (and fails when they are
// gone, so that the entry goes with the fix). Every call is one check.
func (o *oracle) judge(check string, cmd []string, mismatches []string) {
	o.t.Helper()
	checksMade.Add(1)
	known, isKnown := knownWrong[o.cell.Name()+" "+check]
	if !isKnown {
		known, isKnown = knownWrong["* "+check]
	}
	switch {
	case isKnown && len(mismatches) == 0:
		o.t.Errorf("cell %s `kubectl watchrv %s`: the known mismatch (%s) is gone: remove it from knownWrong", o.cell.Name(), strings.Join(cmd, " "), known)
	case isKnown:
		o.t.Logf("known mismatch (%s), still there: %s", known, strings.Join(mismatches, "; "))
		record(o.cell, "known mismatch: "+check, known)
	default:
		for _, m := range mismatches {
			o.fail(cmd, "%s", m)
		}
	}
}

// pluginAny runs the plugin with -o json, accepting any exit code in ok,
// and decodes its answer into out; it returns the command and exit code.
func (o *oracle) pluginAny(out any, ok []int, args ...string) ([]string, int) {
	o.t.Helper()
	cmd := append(args, "-o", "json")
	r := framework.Run(o.t, o.s.c.Kubeconfig, 2*time.Minute, cmd...)
	accepted := false
	for _, c := range ok {
		accepted = accepted || r.Code == c
	}
	if !accepted {
		o.t.Fatalf("cell %s seed %d `kubectl watchrv %s`: exit %d (want one of %v): %s", o.cell.Name(), o.seed, strings.Join(cmd, " "), r.Code, ok, r.Stderr)
	}
	if err := json.Unmarshal([]byte(r.Stdout), out); err != nil {
		o.t.Fatalf("`kubectl watchrv %s`: not JSON: %v\n%s", strings.Join(cmd, " "), err, r.Stdout)
	}
	return cmd, r.Code
}

// numbers are replaced by N in what the page records: RVs differ per run.
var numbers = regexp.MustCompile(`[0-9]+`)

// rawAttempt is one operation sent raw, and what the server answered.
type rawAttempt struct {
	works   bool
	code    int
	message string
}

// rawExactList lists path at rv exactly (one item).
func (o *oracle) rawExactList(path string, rv uint64) rawAttempt {
	code, body := o.s.get(path, url.Values{"resourceVersion": {strconv.FormatUint(rv, 10)}, "resourceVersionMatch": {"Exact"}, "limit": {"1"}})
	var st struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &st)
	return rawAttempt{works: code == http.StatusOK, code: code, message: st.Message}
}

// rawWatch watches path from rv and reads it up to its first ERROR event
// or its end (2 s): it works when it replays without an error (on kine a
// watch that started can fail at a later, lost change).
func (o *oracle) rawWatch(path string, rv uint64) rawAttempt {
	w := o.s.watch(path, url.Values{"resourceVersion": {strconv.FormatUint(rv, 10)}, "timeoutSeconds": {"2"}}, 10*time.Second,
		func(e event) bool { return e.Type == "ERROR" })
	if w.Code != http.StatusOK {
		var st struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal([]byte(w.Body), &st)
		return rawAttempt{code: w.Code, message: st.Message}
	}
	for _, e := range w.Events {
		if e.Type == "ERROR" {
			return rawAttempt{code: e.Object.Code, message: e.Object.Message}
		}
	}
	return rawAttempt{works: true, code: http.StatusOK}
}

// checkExplainCheck: for an operation that fails now at rv (an exact list,
// a watch), `explain-error --check` of the server's own message must try
// that same operation and find what re-running it finds.
func (o *oracle) checkExplainCheck(op string, rv uint64) {
	o.t.Helper()
	path := "/api/v1/namespaces/" + o.h.ns + "/configmaps"
	run := func() rawAttempt {
		if op == "watch" {
			return o.rawWatch(path, rv)
		}
		return o.rawExactList(path, rv)
	}
	first := run()
	if first.works || first.message == "" {
		o.t.Logf("explain-error --check --operation %s: RV %d works here (%d), nothing to explain", op, rv, first.code)
		record(o.cell, "explain "+op+" at a compacted RV", "works (nothing to explain)")
		return
	}
	record(o.cell, "explain "+op+" at a compacted RV", fmt.Sprintf("%d %s", first.code, numbers.ReplaceAllString(text.OneLine(first.message), "N")))
	var got struct {
		Class string `json:"class"`
		Check *struct {
			Tried *struct {
				Request string `json:"request"`
				Works   bool   `json:"works"`
				Answer  string `json:"answer"`
			} `json:"tried"`
		} `json:"check"`
	}
	r := strconv.FormatUint(rv, 10)
	cmd, _ := o.pluginAny(&got, []int{0}, "explain-error", "--check", "-n", o.h.ns, "--resource", "configmaps", "--operation", op, "--rv", r, first.message)
	again := run()
	var bad []string
	switch {
	case got.Check == nil || got.Check.Tried == nil:
		bad = append(bad, fmt.Sprintf("tried nothing (class %q); a %s at %d fails now: %d %q", got.Class, op, rv, again.code, again.message))
	default:
		tr := got.Check.Tried
		isWatch := strings.Contains(tr.Request, "watch")
		if isWatch != (op == "watch") {
			bad = append(bad, fmt.Sprintf("tried %q for a failed %s", tr.Request, op))
		}
		if tr.Works != again.works {
			bad = append(bad, fmt.Sprintf("says %q works=%v; re-running the %s at %d: works=%v (%d %q)", tr.Request, tr.Works, op, rv, again.works, again.code, again.message))
		}
		record(o.cell, "explain-error --check "+op, fmt.Sprintf("tried %q, works=%v; re-run works=%v", numbers.ReplaceAllString(tr.Request, "N"), tr.Works, again.works))
	}
	o.judge("explain-error --check --operation "+op, cmd, bad)
}

// checkStreaming: `streaming configmaps` says refused (422) where the cell
// lacks WatchList and correct where it has it, and its informer verdict is
// what a real client-go informer does on this server.
func (o *oracle) checkStreaming() {
	o.t.Helper()
	var got struct {
		Resources []struct {
			Status   string `json:"status"`
			Informer string `json:"informer"`
			Code     int    `json:"code"`
		} `json:"resources"`
	}
	cmd, code := o.pluginAny(&got, []int{0, 1}, "streaming", "configmaps", "-n", o.h.ns)
	var bad []string
	if len(got.Resources) != 1 {
		o.judge("streaming", cmd, []string{fmt.Sprintf("%d resources, want 1", len(got.Resources))})
		return
	}
	res := got.Resources[0]
	served := o.cell.Version >= "v1.35"
	wantStatus, wantInformer := "correct", "works"
	if !served {
		wantStatus, wantInformer = "refused", "falls-back"
		if res.Code != http.StatusUnprocessableEntity {
			bad = append(bad, fmt.Sprintf("code %d, want 422 (WatchList off on %s)", res.Code, o.cell.Version))
		}
	}
	if res.Status != wantStatus || res.Informer != wantInformer {
		bad = append(bad, fmt.Sprintf("status %q informer %q, want %q %q", res.Status, res.Informer, wantStatus, wantInformer))
	}
	record(o.cell, "streaming configmaps", fmt.Sprintf("%s, informer %s (exit %d)", res.Status, res.Informer, code))
	o.judge("streaming", cmd, bad)

	// A real client-go informer on the same namespace: it syncs from a
	// streaming list where the plugin says "works", from a list where it
	// says "falls-back".
	in, err := framework.StartInformer(o.s.c.Kubeconfig, o.h.ns, o.t.TempDir(), "informer")
	if err != nil {
		o.t.Fatal(err)
	}
	defer in.Stop(5 * time.Second)
	synced, _, err := in.WaitFor(60*time.Second, func(r framework.InformerRecord) bool { return r.Type == "synced" })
	if err != nil {
		o.judge("streaming vs informer", cmd, []string{fmt.Sprintf("a client-go informer did not sync: %v", err)})
		return
	}
	wantMode := map[string]string{"works": "watchlist", "falls-back": "list"}[res.Informer]
	record(o.cell, "client-go informer syncs from", synced.Mode)
	var bad2 []string
	if synced.Mode != wantMode {
		bad2 = append(bad2, fmt.Sprintf("informer verdict %q, but a real client-go informer synced from a %q", res.Informer, synced.Mode))
	}
	o.judge("streaming vs informer", cmd, bad2)
}
