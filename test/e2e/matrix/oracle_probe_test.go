//go:build e2e

package matrix

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// checkMetrics: `probe --metrics` reports the watch cache's capacity and
// RV as /metrics has them around the probe, and none where the cache is off.
func (o *oracle) checkMetrics() {
	o.t.Helper()
	var got struct {
		OldestResourceVersion string `json:"oldestResourceVersion"`
		Metrics               *struct {
			Capacity        *float64 `json:"capacity"`
			ResourceVersion *float64 `json:"cacheResourceVersion,string"`
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
			Oldest uint64    `json:"oldestResourceVersion,string"`
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
	// --qps 50: the depth is judged, not the pace; at the default --qps 5 a
	// cache-off round can outlast the interval, and a run of 6 s that held
	// one round is an error (one round measures no rate).
	cmd, _ := o.pluginAny(&got, []int{0}, "probe", "configmaps", "-n", o.h.ns, "--interval", interval.String(), "--duration", duration.String(), "--qps", "50")
	close(stop)
	<-done
	var bad []string
	// The depth is the last round's that found the bound, as the plugin
	// dates it (RefineDepth): a last round cut at the series' end (on a
	// slow cell, a round outlasts the interval) is not counted.
	found := -1
	for i := range got.Rounds {
		if got.Rounds[i].Found {
			found = i
		}
	}
	if found < 0 {
		o.judge("probe --interval depth", cmd, []string{fmt.Sprintf("no round with an oldest RV: %+v", got.Rounds)})
		return
	}
	last := got.Rounds[found]
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
