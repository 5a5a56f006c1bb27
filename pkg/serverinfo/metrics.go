package serverinfo

import (
	"fmt"
	"io"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The metric families read here.
const (
	familyFeatureEnabled = "kubernetes_feature_enabled"
	familyCacheCapacity  = "watch_cache_capacity"
)

// MetricsFacts is what one /metrics text says about the gates and a
// resource's watch cache.
type MetricsFacts struct {
	Gates      map[string]bool
	WatchCache Tri
}

// ParseMetrics reads a /metrics text (Prometheus text format).
func ParseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	f, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("cannot parse /metrics: %w", err)
	}
	return f, nil
}

// FactsOf picks, from parsed /metrics, the gates the texts use and whether
// group/resource has a watch cache: a cacher exposes watch_cache_capacity
// from its start ({group,resource} labels on 1.34+, {resource="R.G"}
// before), and a resource without one (--watch-cache=false, or events by
// default) has no such series. A /metrics without the family at all says
// nothing about the cache (Unknown).
func FactsOf(f map[string]*dto.MetricFamily, group, resource string) *MetricsFacts {
	m := &MetricsFacts{Gates: map[string]bool{}, WatchCache: Unknown}
	if fam := f[familyFeatureEnabled]; fam != nil {
		for _, s := range fam.GetMetric() {
			name := label(s, "name")
			for _, g := range Gates {
				if name == g {
					m.Gates[g] = s.GetGauge().GetValue() == 1
				}
			}
		}
	}
	if resource == "" {
		return m
	}
	legacy := resource
	if group != "" {
		legacy = resource + "." + group
	}
	// watch_cache_capacity exists only where some resource has a cache;
	// its absence with every other cache metric absent too means the
	// server caches nothing (--watch-cache=false).
	fam := f[familyCacheCapacity]
	if fam == nil {
		if f["apiserver_watch_cache_events_received_total"] == nil && f["apiserver_watch_cache_initializations_total"] == nil && len(f) > 0 && f[familyFeatureEnabled] != nil {
			m.WatchCache = No
		}
		return m
	}
	m.WatchCache = No
	for _, s := range fam.GetMetric() {
		if g, ok := labelOK(s, "group"); ok {
			if g == group && label(s, "resource") == resource {
				m.WatchCache = Yes
			}
		} else if label(s, "resource") == legacy {
			m.WatchCache = Yes
		}
	}
	return m
}

func label(m *dto.Metric, name string) string {
	v, _ := labelOK(m, name)
	return v
}

func labelOK(m *dto.Metric, name string) (string, bool) {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue(), true
		}
	}
	return "", false
}

// ForbiddenNote is the line said when /metrics may not be read.
const ForbiddenNote = `/metrics is forbidden to this user (it needs nonResourceURLs ["/metrics"], verbs ["get"]): feature gates taken as the version's defaults, the watch cache as unknown`

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
