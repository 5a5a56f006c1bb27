package main

import (
	"fmt"
	"sort"
	"strings"
)

// groups are the tables of the report, in order: what the user wants done,
// the plugin's command beside what a user runs instead.
var groups = []struct{ key, title string }{
	{"rv-only", "The collection's resourceVersion: `list --rv-only` against `kubectl get --raw ?limit=1`"},
	{"list", "The whole collection: `list` (a paged, metadata-only walk) against `kubectl get -o json`"},
	{"watch", "List, then the first change: `watch --rv list --max-events 1` against `kubectl get -w`"},
	{"probe", "How far back a watch can start: `probe`"},
	{"probe-all", "Every resource: `probe --all`"},
	{"streaming-all", "Every resource: `streaming --all`"},
	{"servers", "Each server of three (HA harness): `probe --servers`"},
	{"clients", "Who lists and watches what, from an audit log: `clients` against `jq | sort | uniq -c`"},
}

func markdown(res *Results) string {
	var b strings.Builder
	m := res.Machine
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	w("## Scale bench, %s (`make bench-scale`)\n\n", res.Started[:10])
	w("**How it was run.** `bench/scale.sh` started a real kube-apiserver v1.37.2 over etcd on loopback, created %d CRDs "+
		"(two objects each), and grew one namespace (`%s`) to %s configmaps of 1 KB, measuring at each size on the same "+
		"server; the HA harness's three kube-apiservers (one etcd, a balancer and a CONNECT proxy, all on loopback) grew "+
		"the same namespace in step for `probe --servers`. Every command ran through kubectl as users run it (`kubectl "+
		"watchrv ...`: kubectl's start-up is in every row), discovery caches warm, one at a time; `probe --all`, `streaming --all` "+
		"and `clients`, which take seconds to minutes, ran as the binary itself (`kubectl-watchrv ...`).\n\n",
		res.CRDs, scaleNS, joinSizes(res.Sizes))
	w("**Machine.** %d cores (%s), %s of memory, Linux %s; %s; the plugin %s (built from this tree). ", m.CPUs, m.CPUModel, m.MemTotal, m.Kernel, m.Kubectl, m.Plugin)
	w("The machine was shared with other work: load average (1, 5, 15 min, as `uptime` prints it) %s at the start", m.LoadStart)
	for _, l := range res.Loads {
		w(", %s at %s configmaps", l.Load, commas(int64(l.Size)))
	}
	w(", %s at the end (%s to %s UTC). Absolute times are this machine's under that load: compare the rows of one run, "+
		"not runs.\n\n", m.LoadEnd, res.Started[11:19], res.Ended[11:19])
	w("**Columns.** Median and fastest of the runs; CPU (user + system) of the median run; peak RSS, the largest of the runs " +
		"(the largest process of the command: kubectl, or the plugin kubectl execs; for the jq pipeline its largest stage); " +
		"requests, the servers' own count (their audit logs: every request of the run's user); bytes read from the server " +
		"as they crossed the wire (a counting relay in front of the server: TLS records, HTTP headers, gzip as sent; the same " +
		"count for kubectl and the plugin); and the plugin's own count from its -o json report (`cost`: requests and " +
		"decoded body bytes, where the build has it; else the report's own `requests`/`bytes` fields, marked *).\n\n")

	w("### Checks\n\n")
	for _, c := range res.Checks {
		w("- **%s** %s: %s (target: %s)\n", c.Status, c.Name, c.Figure, c.Target)
	}
	w("\n")
	ratios(&b, res)
	w("\n![wall time by size](img/scale-time.png) ![peak RSS by size](img/scale-rss.png)\n")
	w("![bytes read from the server by size](img/scale-bytes.png) ![clients on 1 and 10 GiB](img/scale-clients.png)\n\n")
	for _, g := range groups {
		var rows []Result
		for _, r := range res.Results {
			if r.Group == g.key {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		sort.SliceStable(rows, func(a, b int) bool { return rows[a].Size < rows[b].Size })
		w("### %s\n\n", g.title)
		w("| size | command | runs | median | fastest | CPU | peak RSS | the plugin's own | requests (audit) | read (wire) | plugin's count |\n")
		w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, r := range rows {
			own := "-"
			if r.Tool == "watchrv" {
				own = fmt.Sprintf("%.1f MiB", float64(r.OwnRSSKiB)/1024)
			}
			w("| %s | `%s`%s | %d | %s | %s | %s | %.1f MiB | %s | %s | %s | %s |\n", r.SizeLabel, r.Display, exitNote(r), r.Runs,
				dur(r.MedianMs), dur(r.MinMs), dur(r.CPUms), float64(r.PeakRSSKiB)/1024, own, count(r.AuditRequests), human(r.WireBytes), pluginCol(r))
		}
		w("\n")
		for _, r := range rows {
			if r.Resources > 0 {
				w("- %s: %d resources, %.2f requests per resource", r.SizeLabel, r.Resources, r.PerResource)
				if r.WatchCacheResources > 0 {
					w(", %.2f per resource the watch cache answered (%d)", r.PerWatchCacheResource, r.WatchCacheResources)
				}
				w(".\n")
			}
		}
	}
	if p := res.Paired; p != nil {
		w("### The 6-object list, paired\n\n`kubectl watchrv list cm -n %s -o json` and `kubectl get --raw /api/v1/namespaces/%s/configmaps`, "+
			"alternated %d times in one run (AB, BA, ...): medians %.1f ms and %.1f ms, median of the pairs' ratios **%.2fx**. "+
			"One run of each, by the audit log and the relay: the plugin %d requests (%s), %s on the wire; kubectl get --raw %d (%s), %s.",
			sixNS, sixNS, p.Pairs, p.PluginMedianMs, p.RawMedianMs, p.MedianRatio, p.PluginAudit, quoted(p.PluginRequests), human(p.PluginWire), p.RawAudit, quoted(p.RawRequests), human(p.RawWire))
		if p.Plugin != nil {
			w(" The plugin's own count: %s.", pluginText(p.Plugin))
		}
		w(" In each pair also: `kubectl watchrv version --client` (kubectl finding and executing a plugin that sends no request: the floor of any plugin run through kubectl here) at **%.2fx** `kubectl get --raw`, and the plugin's binary itself running the same list at **%.2fx**.", p.FloorMedianRatio, p.BinaryMedianRatio)
		w("\n")
	}
	return b.String()
}

// ratios are the key figures of the run: the plugin against what a user
// runs instead, at each size.
func ratios(b *strings.Builder, res *Results) {
	pairs := []struct{ what, plugin, other string }{
		{"`list --rv-only` / `kubectl get --raw ?limit=1`, time", "rv-only/watchrv", "rv-only/kubectl"},
		{"`list` / `kubectl get -o json`, time", "list/watchrv", "list/kubectl"},
		{"`list` / `kubectl get -o json`, peak RSS (the plugin's own)", "list/watchrv", "list/kubectl"},
		{"`watch --rv list` / `kubectl get -w`, time to the first event", "watch/watchrv", "watch/kubectl"},
		{"`watch --rv list` / `kubectl get -w`, peak RSS (the plugin's own)", "watch/watchrv", "watch/kubectl"},
		{"`clients` / the jq pipeline, time", "clients/watchrv", "clients/jq"},
		{"`clients` / the jq pipeline, peak RSS (the plugin's own)", "clients/watchrv", "clients/jq"},
	}
	fmt.Fprintf(b, "### Ratios (plugin / what a user runs instead; below 1 the plugin costs less)\n\n")
	for _, p := range pairs {
		a, o := series(res, p.plugin), series(res, p.other)
		var parts []string
		for _, x := range a {
			for _, y := range o {
				if x.Size != y.Size {
					continue
				}
				v := x.MedianMs / y.MedianMs
				if strings.Contains(p.what, "RSS") {
					v = float64(x.OwnRSSKiB) / float64(y.PeakRSSKiB)
				}
				parts = append(parts, fmt.Sprintf("%.2fx at %s", v, x.SizeLabel))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(b, "- %s: %s\n", p.what, strings.Join(parts, ", "))
		}
	}
}

func exitNote(r Result) string {
	if r.ExitCode != 0 {
		return fmt.Sprintf(" (exit %d)", r.ExitCode)
	}
	return ""
}

func pluginCol(r Result) string {
	if r.Plugin == nil {
		return "-"
	}
	return pluginText(r.Plugin)
}

func pluginText(p *PluginCost) string {
	star := ""
	if p.Source != "cost" {
		star = "*"
	}
	var parts []string
	if p.Requests >= 0 {
		parts = append(parts, fmt.Sprintf("%d requests", p.Requests))
	}
	if p.Bytes >= 0 {
		parts = append(parts, human(p.Bytes))
	}
	s := strings.Join(parts, ", ") + star
	if len(p.ByKind) > 0 {
		var ks []string
		for k := range p.ByKind {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		var kp []string
		for _, k := range ks {
			kp = append(kp, fmt.Sprintf("%s %d/%s", k, p.ByKind[k]["requests"], human(p.ByKind[k]["bytes"])))
		}
		s += " (" + strings.Join(kp, "; ") + ")"
	}
	return s
}

func count(n int) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func dur(ms float64) string {
	if ms >= 10000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

func joinSizes(s []int) string {
	var p []string
	for _, n := range s {
		p = append(p, commas(int64(n)))
	}
	return strings.Join(p, ", then ")
}

func quoted(reqs []string) string {
	var q []string
	for _, r := range reqs {
		q = append(q, "`"+r+"`")
	}
	return strings.Join(q, ", ")
}
