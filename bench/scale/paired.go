package main

import (
	"context"
	"sort"
)

// Paired is issue 23's list check: kubectl watchrv list of a 6-object
// collection against kubectl get --raw of the same collection, through
// kubectl, alternated in one run (AB, BA, AB, ...), so that the load of
// the machine falls on both alike.
type Paired struct {
	Pairs          int       `json:"pairs"`
	PluginMs       []float64 `json:"pluginMs"`
	RawMs          []float64 `json:"rawMs"`
	PluginMedianMs float64   `json:"pluginMedianMs"`
	RawMedianMs    float64   `json:"rawMedianMs"`
	// MedianRatio is the median of the pairs' ratios (plugin / raw).
	MedianRatio float64 `json:"medianRatio"`
	// In each pair too: kubectl's exec of the plugin doing no request
	// (kubectl watchrv version --client: the floor of any plugin through
	// kubectl on this machine) and the plugin's binary itself running the
	// same list; their ratios are to kubectl get --raw, per pair.
	FloorMs           []float64 `json:"floorMs"`
	BinaryMs          []float64 `json:"binaryMs"`
	FloorMedianRatio  float64   `json:"floorMedianRatio"`
	BinaryMedianRatio float64   `json:"binaryMedianRatio"`
	// Plugin is the plugin's account of its last run; BeyondList its
	// bytes beyond the list itself (-1: the build has no cost object).
	Plugin     *PluginCost `json:"plugin,omitempty"`
	BeyondList int64       `json:"beyondListBytes"`
	// The servers' counts of one run of each.
	PluginAudit, RawAudit int
	// The requests of one run of each, "verb path" by the audit log.
	PluginRequests, RawRequests []string
	PluginWire, RawWire         int64
}

func pairedList(ctx context.Context, r *runner, t *Target, pairs int) (*Paired, error) {
	path := "/api/v1/namespaces/" + sixNS + "/configmaps"
	plugin := Cmd{ID: "six/watchrv", Tool: "watchrv", Display: "kubectl watchrv list cm -n " + sixNS + " -o json", Args: []string{"kubectl", "watchrv", "list", "configmaps", "-n", sixNS, "-o", "json"}, Target: t}
	raw := Cmd{ID: "six/kubectl", Tool: "kubectl", Display: "kubectl get --raw " + path, Args: []string{"kubectl", "get", "--raw", path}, Target: t}
	floor := Cmd{ID: "six/floor", Tool: "kubectl", Display: "kubectl watchrv version --client", Args: []string{"kubectl", "watchrv", "version", "--client"}}
	binary := Cmd{ID: "six/binary", Tool: "watchrv", Display: "kubectl-watchrv list cm -n " + sixNS + " -o json", Args: []string{"kubectl-watchrv", "list", "configmaps", "-n", sixNS, "-o", "json"}, Target: t, Direct: true}
	logf("paired: %s against %s, %d pairs (with %s and %s in each)...", plugin.Display, raw.Display, pairs, floor.Display, binary.Display)
	// Warm them: discovery caches, as at a user's second run.
	for _, c := range []Cmd{plugin, raw, floor, binary} {
		if _, err := r.once(ctx, c); err != nil {
			return nil, err
		}
	}
	p := &Paired{Pairs: pairs, BeyondList: -1}
	var ratios, floorRatios, binaryRatios []float64
	for i := 0; i < pairs; i++ {
		order := []Cmd{plugin, raw, floor, binary}
		if i%2 == 1 {
			order = []Cmd{binary, floor, raw, plugin}
		}
		var pm, rm, fm, bm float64
		for _, c := range order {
			o, err := r.once(ctx, c)
			if err != nil {
				return nil, err
			}
			switch c.ID {
			case floor.ID:
				fm = o.ms
				continue
			case binary.ID:
				bm = o.ms
				continue
			}
			if c.ID == plugin.ID {
				pm = o.ms
				p.PluginAudit, p.PluginWire, p.PluginRequests = o.audit, o.wire, o.requests
				if o.lastJSON != nil {
					p.Plugin = pluginCost(o.lastJSON)
				}
			} else {
				rm = o.ms
				p.RawAudit, p.RawWire, p.RawRequests = o.audit, o.wire, o.requests
			}
		}
		p.PluginMs, p.RawMs = append(p.PluginMs, pm), append(p.RawMs, rm)
		ratios = append(ratios, pm/rm)
		p.FloorMs, p.BinaryMs = append(p.FloorMs, fm), append(p.BinaryMs, bm)
		floorRatios, binaryRatios = append(floorRatios, fm/rm), append(binaryRatios, bm/rm)
	}
	p.PluginMedianMs, p.RawMedianMs, p.MedianRatio = median(p.PluginMs), median(p.RawMs), median(ratios)
	p.FloorMedianRatio, p.BinaryMedianRatio = median(floorRatios), median(binaryRatios)
	if p.Plugin != nil && p.Plugin.Source == "cost" {
		p.BeyondList = p.Plugin.Bytes - p.Plugin.ByKind["list"]["bytes"]
	}
	logf("  plugin %.1f ms, raw %.1f ms, median ratio %.2fx; audit %d / %d requests; the floor (version --client through kubectl) %.2fx, the binary itself %.2fx", p.PluginMedianMs, p.RawMedianMs, p.MedianRatio, p.PluginAudit, p.RawAudit, p.FloorMedianRatio, p.BinaryMedianRatio)
	return p, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
