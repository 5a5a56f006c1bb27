//go:build e2e

package matrix

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
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

// rawWatch watches path from rv and reads it up to its first event or 2 s
// of silence: it works when it starts without an error.
func (o *oracle) rawWatch(path string, rv uint64) rawAttempt {
	w := o.s.watch(path, url.Values{"resourceVersion": {strconv.FormatUint(rv, 10)}, "timeoutSeconds": {"2"}}, 10*time.Second,
		func(e event) bool { return true })
	switch {
	case w.Code != http.StatusOK:
		var st struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal([]byte(w.Body), &st)
		return rawAttempt{code: w.Code, message: st.Message}
	case len(w.Events) > 0 && w.Events[0].Type == "ERROR":
		return rawAttempt{code: w.Events[0].Object.Code, message: w.Events[0].Object.Message}
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

// checkMetrics: `probe --metrics` reports the watch cache's capacity and
// RV as /metrics has them around the probe, and none where the cache is off.
func (o *oracle) checkMetrics() {
	o.t.Helper()
	var got struct {
		OldestResourceVersion string `json:"oldestResourceVersion"`
		Metrics               *struct {
			Capacity        *float64 `json:"capacity"`
			ResourceVersion *float64 `json:"cacheResourceVersion"`
			Limit           string   `json:"limit"`
			LimitText       string   `json:"limitText"`
		} `json:"metrics"`
	}
	before := o.s.metrics()
	cmd, _ := o.pluginAny(&got, []int{0}, "probe", "configmaps", "-n", o.h.ns, "--metrics")
	after := o.s.metrics()
	var bad []string
	if got.Metrics == nil {
		o.judge("probe --metrics", cmd, []string{"no metrics block"})
		return
	}
	m := got.Metrics
	capBefore, okB := metricValue(before, "watch_cache_capacity", "configmaps")
	capAfter, okA := metricValue(after, "watch_cache_capacity", "configmaps")
	switch {
	case !o.cell.WatchCache && m.Capacity != nil:
		bad = append(bad, fmt.Sprintf("capacity %v with the watch cache off", *m.Capacity))
	case !o.cell.WatchCache && m.Limit != "no-watch-cache":
		bad = append(bad, fmt.Sprintf("limit %q with the watch cache off, want no-watch-cache", m.Limit))
	case o.cell.WatchCache && (!okB || !okA):
		bad = append(bad, "the cell's /metrics has no watch_cache_capacity for configmaps")
	case o.cell.WatchCache && m.Capacity == nil:
		bad = append(bad, fmt.Sprintf("no capacity; /metrics says %v", capAfter))
	case o.cell.WatchCache && *m.Capacity != capBefore && *m.Capacity != capAfter:
		bad = append(bad, fmt.Sprintf("capacity %v; /metrics says %v before and %v after", *m.Capacity, capBefore, capAfter))
	}
	rvB, okRB := metricValue(before, "apiserver_watch_cache_resource_version", "configmaps")
	rvA, _ := metricValue(after, "apiserver_watch_cache_resource_version", "configmaps")
	switch {
	case okRB && m.ResourceVersion == nil:
		bad = append(bad, fmt.Sprintf("no cacheResourceVersion; /metrics has %v", rvB))
	case okRB && (*m.ResourceVersion < rvB || *m.ResourceVersion > rvA):
		bad = append(bad, fmt.Sprintf("cacheResourceVersion %v; /metrics says %v before and %v after", *m.ResourceVersion, rvB, rvA))
	case !okRB && m.ResourceVersion != nil:
		bad = append(bad, fmt.Sprintf("cacheResourceVersion %v; /metrics has no such series", *m.ResourceVersion))
	}
	// Issue 25 items 6 and 40: the counters explain the window the probe
	// measured and state no window size of their own ("holds the last 800
	// events" when a watch from the bound replayed 600).
	if windowSize.MatchString(m.LimitText) {
		bad = append(bad, fmt.Sprintf("the counters state a window size: %q", m.LimitText))
	}
	for _, ref := range rvRef.FindAllStringSubmatch(m.LimitText, -1) {
		if ref[1] != got.OldestResourceVersion && ref[1] != "1" {
			bad = append(bad, fmt.Sprintf("the counters name RV %s, the probe measured %s: %q", ref[1], got.OldestResourceVersion, m.LimitText))
		}
	}
	record(o.cell, "probe --metrics limit", m.Limit)
	record(o.cell, "apiserver_watch_cache_resource_version", map[bool]string{true: "present", false: "absent"}[okRB])
	o.judge("probe --metrics", cmd, bad)
}

// windowSize is a window size stated in words; rvRef an RV named.
var (
	windowSize = regexp.MustCompile(`(?i)\bholds?\b[^;:]*\d+ events|last \d+ events`)
	rvRef      = regexp.MustCompile(`\bRV (\d+)`)
)

// metricValue is the value of the one sample of metric labelled with
// resource (group "" or the legacy resource label alone).
func metricValue(text, metric, resource string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, metric+"{") || !strings.Contains(line, `resource="`+resource+`"`) {
			continue
		}
		if strings.Contains(line, `group="`) && !strings.Contains(line, `group=""`) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		return v, err == nil
	}
	return 0, false
}

// checkDepth: `probe --interval` while the history goes on writing; the
// depth it prints (a measured value, a bound, or an estimate said to be
// one) must hold against the write log. The log dates the oldest RV O of
// the last round: O was committed no later than the first logged write at
// or above O answered, and no earlier than the last logged write at or
// below O was sent.
func (o *oracle) checkDepth() {
	o.t.Helper()
	const interval, duration = 2 * time.Second, 6 * time.Second
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			if err := o.h.tryUpdate("depth"); err != nil {
				o.t.Logf("depth writer: %v", err)
				return
			}
		}
	}()
	var got struct {
		Rounds []struct {
			At     time.Time `json:"at"`
			Oldest uint64    `json:"oldestResourceVersion"`
			Found  bool      `json:"found"`
		} `json:"rounds"`
		DepthSeconds float64  `json:"depthSeconds"`
		DepthKnown   bool     `json:"depthKnown"`
		DepthMethod  string   `json:"depthMethod"`
		DepthBound   string   `json:"depthBound"`
		AtLeast      *float64 `json:"depthAtLeastSeconds"`
		AtMost       *float64 `json:"depthAtMostSeconds"`
	}
	o.h.create("depth", nil)
	cmd, _ := o.pluginAny(&got, []int{0}, "probe", "configmaps", "-n", o.h.ns, "--interval", interval.String(), "--duration", duration.String())
	close(stop)
	<-done
	var bad []string
	if len(got.Rounds) == 0 || !got.Rounds[len(got.Rounds)-1].Found {
		o.judge("probe --interval depth", cmd, []string{fmt.Sprintf("no last round with an oldest RV: %+v", got.Rounds)})
		return
	}
	last := got.Rounds[len(got.Rounds)-1]
	lo, hi, loOK, hiOK := o.h.depthBounds(last.Oldest, last.At)
	slack := (interval + time.Second).Seconds()
	o.t.Logf("depth: %s %s %.1f s (at least %v, at most %v); the log: %.1f..%.1f s (known %v %v), oldest %d",
		got.DepthMethod, got.DepthBound, got.DepthSeconds, deref(got.AtLeast), deref(got.AtMost), lo, hi, loOK, hiOK, last.Oldest)
	switch got.DepthBound {
	case "measured":
		if (loOK && got.DepthSeconds < lo-slack) || (hiOK && got.DepthSeconds > hi+slack) {
			bad = append(bad, fmt.Sprintf("measured depth %.1f s; the write log puts it between %.1f and %.1f s", got.DepthSeconds, lo, hi))
		}
	case "atLeast", "between", "atMost":
		if got.AtLeast != nil && hiOK && *got.AtLeast > hi+slack {
			bad = append(bad, fmt.Sprintf("depth at least %.1f s; the write log says at most %.1f s", *got.AtLeast, hi))
		}
		if got.AtMost != nil && loOK && *got.AtMost < lo-slack {
			bad = append(bad, fmt.Sprintf("depth at most %.1f s; the write log says at least %.1f s", *got.AtMost, lo))
		}
	case "estimate", "":
		if got.DepthKnown && got.DepthMethod != "event-rate-estimate" && got.DepthMethod != "rv-rate-extrapolation" {
			bad = append(bad, fmt.Sprintf("depth bound %q with method %q: an unlabelled number", got.DepthBound, got.DepthMethod))
		}
	default:
		bad = append(bad, fmt.Sprintf("unknown depthBound %q", got.DepthBound))
	}
	record(o.cell, "probe --interval depth", fmt.Sprintf("%s (%s)", orDash(got.DepthBound), orDash(got.DepthMethod)))
	o.judge("probe --interval depth", cmd, bad)
}

func deref(f *float64) any {
	if f == nil {
		return "-"
	}
	return *f
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// checkFollow: `watch --follow` from the history's first RV (compacted:
// where storage serves the watch, it relists) ends, after its events and
// any relist's gap report, with the state the write log says is alive.
// The state is rebuilt from what the plugin printed: each event, and each
// relist's gap (added and modified alive, deleted gone; an initial gap is
// the whole state).
func (o *oracle) checkFollow(from uint64) {
	o.t.Helper()
	args := []string{"watch", "configmaps", "-n", o.h.ns, "--follow", "--rv", strconv.FormatUint(from, 10), "--timeout", "8s", "-o", "json"}
	r := framework.Run(o.t, o.s.c.Kubeconfig, time.Minute, args...)
	type change struct {
		Name string `json:"name"`
	}
	type followLine struct {
		Record string `json:"record"`
		Type   string `json:"type"`
		Name   string `json:"name"`
		Gap    *struct {
			Added    []change `json:"added"`
			Modified []change `json:"modified"`
			Deleted  []change `json:"deleted"`
			Initial  bool     `json:"initial"`
		} `json:"gap"`
	}
	var lines []followLine
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var rec followLine
		if l == "" {
			continue
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			o.t.Fatalf("`kubectl watchrv %s`: line %q: %v", strings.Join(args, " "), l, err)
		}
		lines = append(lines, rec)
	}
	state := map[string]bool{}
	relists := 0
	for _, l := range lines {
		switch {
		case l.Record == "event" && (l.Type == "ADDED" || l.Type == "MODIFIED"):
			state[l.Name] = true
		case l.Record == "event" && l.Type == "DELETED":
			delete(state, l.Name)
		case l.Record == "relist" && l.Gap != nil:
			relists++
			if l.Gap.Initial {
				clear(state)
			}
			for _, c := range append(l.Gap.Added, l.Gap.Modified...) {
				state[c.Name] = true
			}
			for _, c := range l.Gap.Deleted {
				delete(state, c.Name)
			}
		}
	}
	var bad []string
	if r.Code != 0 {
		bad = append(bad, fmt.Sprintf("exit %d: %s", r.Code, text.OneLine(r.Stderr)))
	}
	o.h.mu.Lock()
	var want, got []string
	for n := range o.h.live {
		want = append(want, n)
	}
	o.h.mu.Unlock()
	for n := range state {
		got = append(got, n)
	}
	sort.Strings(want)
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		bad = append(bad, fmt.Sprintf("the events and gap reports add up to %v; the write log says %v are alive", got, want))
	}
	how := "replayed by the watch (no relist)"
	if relists > 0 {
		how = fmt.Sprintf("relisted (%d), gap reported", relists)
	}
	o.t.Logf("watch --follow from %d: %s; state %v", from, how, got)
	record(o.cell, "watch --follow from a compacted RV", how)
	o.judge("watch --follow gap", args, bad)
}
