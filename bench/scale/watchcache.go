package main

import (
	"bufio"
	"bytes"
	"context"
	"regexp"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// watchCacheLine is a family the v1.37 cacher registers per resource once
// its watch cache is initialized (k8s.io/apiserver
// pkg/storage/cacher/metrics), labelled group and resource.
var watchCacheLine = regexp.MustCompile(`^apiserver_watch_cache_initializations_total\{([^}]*)\}`)

// watchCached is the set of resources ("resource.group", the plugin's
// names) that the server's watch cache serves, by the server's own
// /metrics, read with the harness's client (not counted against any
// measured command).
func watchCached(ctx context.Context, cs kubernetes.Interface) (map[string]bool, error) {
	b, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		m := watchCacheLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, kv := range strings.Split(m[1], ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				labels[k] = strings.Trim(v, `"`)
			}
		}
		name := labels["resource"]
		if g := labels["group"]; g != "" {
			name += "." + g
		}
		out[name] = true
	}
	return out, sc.Err()
}

// perResource adds to probe --all and streaming --all their requests per
// resource, and to probe --all its requests per watch-cache resource: the
// run's requests (the audit log's count) less what the resources that the
// watch cache does not serve took themselves (their own "requests"), over
// the resources it serves (cached, by the server's /metrics).
func perResource(r *Result, cached map[string]bool) {
	rs, _ := r.Report["resources"].([]any)
	if len(rs) == 0 {
		return
	}
	total := float64(r.AuditRequests)
	if r.AuditRequests < 0 && r.Plugin != nil {
		total = float64(r.Plugin.Requests)
	}
	wc, other := 0, 0.0
	for _, x := range rs {
		m, _ := x.(map[string]any)
		name, _ := m["resource"].(string)
		if cached[name] {
			wc++
		} else if n, ok := m["requests"].(float64); ok {
			other += n
		}
	}
	r.Resources, r.PerResource = len(rs), total/float64(len(rs))
	if r.Group == "probe-all" && wc > 0 {
		r.WatchCacheResources, r.PerWatchCacheResource = wc, (total-other)/float64(wc)
	}
}
