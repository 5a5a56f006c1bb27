//go:build e2e

package matrix

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

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
