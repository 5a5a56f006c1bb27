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
//
// With app (not ""), the watch has the label selector app=APP, whose
// objects leave and join it in the history (a DELETED that carries the
// object as it last matched, an ADDED when it joins): the state is then
// the log's objects with that label, and no event may be called outside
// the request or out of order (the Watch contract, pkg/follow
// contract.go), on every cell, cache on or off.
func (o *oracle) checkFollow(from uint64, app string) {
	o.t.Helper()
	args := []string{"watch", "configmaps", "-n", o.h.ns, "--follow", "--rv", strconv.FormatUint(from, 10), "--timeout", "8s", "-o", "json"}
	if app != "" {
		args = append(args, "-l", "app="+app)
	}
	r := framework.Run(o.t, o.s.c.Kubeconfig, time.Minute, args...)
	type change struct {
		Name string `json:"name"`
	}
	type followLine struct {
		Record   string `json:"record"`
		Type     string `json:"type"`
		Name     string `json:"name"`
		Breach   string `json:"contractBreach"`
		Breaches int    `json:"contractBreaches"`
		Gap      *struct {
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
	for _, l := range lines {
		if l.Breach != "" || l.Breaches > 0 {
			bad = append(bad, fmt.Sprintf("a real server's %s %s called a breach of the Watch contract: %s (%d in all)", l.Type, l.Name, l.Breach, l.Breaches))
		}
	}
	o.h.mu.Lock()
	var want, got []string
	for n, labels := range o.h.live {
		if app == "" || labels["app"] == app {
			want = append(want, n)
		}
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
	o.t.Logf("watch --follow from %d (%s): %s; state %v", from, strings.Join(args[len(args)-2:], " "), how, got)
	if app == "" {
		record(o.cell, "watch --follow from a compacted RV", how)
		o.judge("watch --follow gap", args, bad)
		return
	}
	o.judge("watch --follow -l gap", args, bad)
}
