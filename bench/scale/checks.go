package main

import (
	"fmt"
	"sort"
)

// Results is everything one run of the bench measured.
type Results struct {
	Machine  Machine    `json:"machine"`
	Started  string     `json:"started"`
	Ended    string     `json:"ended"`
	CRDs     int        `json:"crds"`
	Sizes    []int      `json:"sizes"`
	LogSizes []int64    `json:"logSizes"`
	Loads    []SizeLoad `json:"loads"`
	Paired   *Paired    `json:"paired"`
	Results  []Result   `json:"results"`
	Checks   []Check    `json:"checks"`
}

// SizeLoad is the load average when the measures of one size began.
type SizeLoad struct {
	Size int    `json:"size"`
	Load string `json:"load"`
}

// Check is one pass/fail line, from the bench's own numbers.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // PASS, FAIL, NOT MEASURED
	Figure string `json:"figure"`
	Target string `json:"target"`
}

func (c Check) Line() string {
	return fmt.Sprintf("CHECK %-12s %s: %s (target: %s)", c.Status, c.Name, c.Figure, c.Target)
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// series is one command's results, smallest size first.
func series(res *Results, id string) []Result {
	var out []Result
	for _, r := range res.Results {
		if r.ID == id {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Size < out[b].Size })
	return out
}

func checks(res *Results) []Check {
	var out []Check
	flat := func(name, id, target string, limit float64, val func(Result) float64, unit func(float64) string) {
		s := series(res, id)
		if len(s) < 2 {
			out = append(out, Check{Name: name, Status: "NOT MEASURED", Figure: "needs two sizes", Target: target})
			return
		}
		lo, hi := s[0], s[len(s)-1]
		if val(lo) <= 0 || val(hi) <= 0 {
			out = append(out, Check{Name: name, Status: "NOT MEASURED", Figure: "no figure at " + lo.SizeLabel + " or " + hi.SizeLabel, Target: target})
			return
		}
		ratio := val(hi) / val(lo)
		out = append(out, Check{Name: name, Status: verdict(ratio <= limit), Target: target,
			Figure: fmt.Sprintf("%s at %s, %s at %s: %.2fx", unit(val(lo)), lo.SizeLabel, unit(val(hi)), hi.SizeLabel, ratio)})
	}
	mib := func(v float64) string { return fmt.Sprintf("%.1f MiB", v/1024) }
	ms := func(v float64) string { return fmt.Sprintf("%.1f ms", v) }
	bytes := func(v float64) string { return human(int64(v)) }
	rss := func(r Result) float64 { return float64(r.OwnRSSKiB) }

	flat("--rv-only flat (time)", "rv-only/watchrv", "fastest run at the largest size within 2x of the smallest's", 2, func(r Result) float64 { return r.MinMs }, ms)
	flat("--rv-only flat (bytes read)", "rv-only/watchrv", "within 1.25x", 1.25, func(r Result) float64 { return float64(r.WireBytes) }, bytes)
	flat("list memory flat", "list/watchrv", "the plugin's own peak RSS at the largest size within 1.5x of the smallest's", 1.5, rss, mib)
	// The per-server view reads each server's cache RV with a list narrowed
	// to one key (pkg/servers cacherv.go): until fresh user try 22 F5 the
	// read was the collection, 121.5 MiB at 100,000 configmaps.
	flat("probe --servers flat (bytes read)", "servers/watchrv", "the plugin's own count at the largest size within 2x of the smallest's", 2, func(r Result) float64 {
		if r.Plugin == nil {
			return 0
		}
		return float64(r.Plugin.Bytes)
	}, bytes)
	flat("clients memory flat", "clients/watchrv", "the plugin's own peak RSS on the largest log within 1.5x of the smallest's", 1.5, rss, mib)

	if p := res.Paired; p != nil {
		out = append(out, Check{Name: "list of 6 objects against kubectl get --raw, through kubectl, paired", Status: verdict(p.MedianRatio <= 1.2), Target: "<= 1.2x",
			Figure: fmt.Sprintf("%.2fx (median of %d pair ratios; medians %.1f ms against %.1f ms; in the same pairs kubectl's exec of a plugin that sends nothing, version --client, %.2fx, and the plugin's binary itself %.2fx)", p.MedianRatio, p.Pairs, p.PluginMedianMs, p.RawMedianMs, p.FloorMedianRatio, p.BinaryMedianRatio)})
		if p.BeyondList >= 0 {
			out = append(out, Check{Name: "list of 6 objects: bytes read beyond the list itself", Status: verdict(p.BeyondList < 64<<10), Target: "< 64 KiB",
				Figure: fmt.Sprintf("%s (the plugin's cost: %s in all, %s of it the list)", human(p.BeyondList), human(p.Plugin.Bytes), human(p.Plugin.ByKind["list"]["bytes"]))})
		} else {
			out = append(out, Check{Name: "list of 6 objects: bytes read beyond the list itself", Status: "NOT MEASURED", Target: "< 64 KiB",
				Figure: fmt.Sprintf("this build prints no \"cost\" object; the run read %s on the wire in %d requests (audit log), kubectl get --raw %s in %d", human(p.PluginWire), p.PluginAudit, human(p.RawWire), p.RawAudit)})
		}
	}
	pa := series(res, "probe-all/watchrv")
	if len(pa) == 0 {
		out = append(out, Check{Name: "probe --all requests per watch-cache resource", Status: "NOT MEASURED", Target: "<= 1.2"})
	}
	for _, r := range pa {
		st := "NOT MEASURED"
		if r.WatchCacheResources > 0 {
			st = verdict(r.PerWatchCacheResource <= 1.2)
		}
		out = append(out, Check{Name: "probe --all requests per watch-cache resource at " + r.SizeLabel, Status: st, Target: "<= 1.2",
			Figure: fmt.Sprintf("%.2f (%d requests by the audit log for %d resources, %d of them answered by the watch cache; %.1f s)", r.PerWatchCacheResource, r.AuditRequests, r.Resources, r.WatchCacheResources, r.MedianMs/1000)})
	}
	return out
}
