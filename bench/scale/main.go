// Command scale is the scale bench of issue 23 (make bench-scale, through
// bench/scale.sh): a real kube-apiserver v1.37.2 over etcd on loopback,
// grown to -crds CRDs (two objects each) and to each of -sizes configmaps
// of 1 KB in one namespace, and the HA harness's three servers grown in
// step; at each size it runs each command of the plugin and what a user
// runs instead, and takes their wall time, CPU, peak RSS, requests (the
// servers' audit logs) and bytes (a counting relay in front of the server,
// and the plugin's own count from its -o json report). Then clients on
// audit logs of -log-sizes. It writes every figure as JSON (-out), the
// markdown block of docs/performance.md (-md, with the checks), and
// prints the checks; the PNGs are drawn from the JSON by bench/plot.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

type config struct {
	sizes      []int
	logSizes   []int64
	crds       int
	reps       int
	repsLarge  int
	paired     int
	pluginDir  string
	work       string
	out, md    string
	skipHA     bool
	skipJQOver int64
}

func main() {
	var c config
	sizes := flag.String("sizes", "1000,10000,100000", "configmaps of 1 KB in the namespace, grown in this order")
	logSizes := flag.String("log-sizes", "1GiB,10GiB", "sizes of the audit logs for clients (B, KiB, MiB, GiB)")
	flag.IntVar(&c.crds, "crds", 200, "CRDs (two objects each)")
	flag.IntVar(&c.reps, "reps", 5, "runs of each command (median), up to 10,000 configmaps")
	flag.IntVar(&c.repsLarge, "reps-large", 3, "runs of each command above 10,000 configmaps")
	flag.IntVar(&c.paired, "paired", 11, "pairs of the 6-object list check")
	flag.StringVar(&c.pluginDir, "plugin-dir", "", "directory holding kubectl-watchrv (put first on PATH: kubectl finds it there)")
	flag.StringVar(&c.work, "work", "", "scratch directory (audit logs are written here)")
	flag.StringVar(&c.out, "out", "", "write every figure here as JSON")
	flag.StringVar(&c.md, "md", "", "write the markdown block here")
	flag.BoolVar(&c.skipHA, "skip-ha", false, "do not start the HA harness (no probe --servers)")
	skipJQ := flag.String("jq-max", "", "run the jq pipeline only on logs up to this size (default: every size)")
	flag.Parse()
	var err error
	if c.sizes, err = parseInts(*sizes); err == nil {
		c.logSizes, err = parseSizes(*logSizes)
	}
	if err == nil && *skipJQ != "" {
		var s []int64
		s, err = parseSizes(*skipJQ)
		if err == nil {
			c.skipJQOver = s[0]
		}
	}
	if err == nil && (c.pluginDir == "" || c.work == "") {
		err = fmt.Errorf("-plugin-dir and -work are required")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench scale:", err)
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench scale:", err)
		os.Exit(1)
	}
}

func logf(f string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s "+f+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

func run(c config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := &Results{Machine: machine(), Started: time.Now().UTC().Format(time.RFC3339), CRDs: c.crds, Sizes: c.sizes, LogSizes: c.logSizes}
	res.Machine.LoadStart = loadavg()
	quiet := func(string, ...any) {}

	logf("starting kube-apiserver v1.37.2 over etcd (loopback)...")
	cl, err := framework.Start(ctx, framework.Options{Logf: quiet})
	if err != nil {
		return err
	}
	defer cl.Stop()
	cs, err := cl.Clientset(0)
	if err != nil {
		return err
	}
	dyn, err := cl.Dynamic(0)
	if err != nil {
		return err
	}
	u, err := url.Parse(cl.APIServers[0].URL)
	if err != nil {
		return err
	}
	proxy, err := NewCountingProxy(u.Host)
	if err != nil {
		return err
	}
	defer proxy.Close()
	kc, err := cl.WriteKubeconfigFor("bench-counted.kubeconfig", "https://"+proxy.Addr(), cl.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		return err
	}
	srv := &Target{Name: "server", Kubeconfig: kc, AuditLogs: []string{cl.APIServers[0].AuditLog}, Proxy: proxy}

	var ha *framework.HA
	var haTarget *Target
	var haCS kubernetes.Interface
	if !c.skipHA {
		logf("starting the HA harness (three kube-apiservers v1.37.2 on one etcd)...")
		if ha, err = framework.StartHA(ctx, framework.HAOptions{Servers: 3, Logf: quiet}); err != nil {
			return err
		}
		defer ha.Stop()
		if haCS, err = ha.Cluster.Clientset(0); err != nil {
			return err
		}
		haTarget = &Target{Name: "ha", Kubeconfig: ha.Kubeconfig}
		for _, a := range ha.Cluster.APIServers {
			haTarget.AuditLogs = append(haTarget.AuditLogs, a.AuditLog)
		}
		if err := framework.CreateNamespace(ctx, haCS, scaleNS); err != nil {
			return err
		}
	}

	for _, ns := range []string{scaleNS, sixNS, crNS} {
		if err := framework.CreateNamespace(ctx, cs, ns); err != nil {
			return err
		}
	}
	if err := grow(ctx, cs, sixNS, 0, 6); err != nil {
		return err
	}
	t0 := time.Now()
	logf("creating %d CRDs with two objects each...", c.crds)
	if err := createCRDs(ctx, dyn, c.crds); err != nil {
		return err
	}
	logf("  %d CRDs served in %s", c.crds, time.Since(t0).Round(time.Second))

	r := &runner{work: c.work, logf: logf, env: append(os.Environ(),
		"PATH="+c.pluginDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECACHEDIR="+filepath.Join(c.work, "kube-cache"), "NO_COLOR=1", "TMPDIR="+c.work)}

	if res.Paired, err = pairedList(ctx, r, srv, c.paired); err != nil {
		return err
	}

	have, haHave := 0, 0
	for i, n := range c.sizes {
		if n < have {
			return fmt.Errorf("-sizes must grow: %d after %d", n, have)
		}
		t0 := time.Now()
		logf("growing %s to %d configmaps of 1 KB...", scaleNS, n)
		errs := make(chan error, 2)
		go func() { errs <- grow(ctx, cs, scaleNS, have, n) }()
		go func() {
			if haCS == nil {
				errs <- nil
				return
			}
			errs <- grow(ctx, haCS, scaleNS, haHave, n)
		}()
		if err := firstErr(<-errs, <-errs); err != nil {
			return err
		}
		have, haHave = n, n
		logf("  grown in %s; load %s", time.Since(t0).Round(time.Second), loadavg())
		res.Loads = append(res.Loads, SizeLoad{Size: n, Load: loadavg()})
		reps := c.reps
		if n > 10000 {
			reps = c.repsLarge
		}
		rs, err := measureSize(ctx, r, srv, haTarget, []kubernetes.Interface{cs, haCS}, n, reps, i == 0)
		if err != nil {
			return err
		}
		res.Results = append(res.Results, rs...)
	}
	if ha != nil {
		ha.Stop()
	}
	cl.Stop()

	crs, err := measureClients(ctx, r, c)
	if err != nil {
		return err
	}
	res.Results = append(res.Results, crs...)
	res.Machine.LoadEnd = loadavg()
	res.Ended = time.Now().UTC().Format(time.RFC3339)
	res.Checks = checks(res)
	for _, ck := range res.Checks {
		fmt.Println(ck.Line())
	}
	if c.out != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(c.out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if c.md != "" {
		if err := os.WriteFile(c.md, []byte(markdown(res)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// measureSize runs every command at one size of the collection.
func measureSize(ctx context.Context, r *runner, srv, ha *Target, css []kubernetes.Interface, n, reps int, first bool) ([]Result, error) {
	label := fmt.Sprintf("%s configmaps", commas(int64(n)))
	kw := func(args ...string) []string { return append([]string{"kubectl", "watchrv"}, args...) }
	nsPath := "/api/v1/namespaces/" + scaleNS + "/configmaps"
	cmds := []Cmd{
		{ID: "rv-only/kubectl", Group: "rv-only", Tool: "kubectl", Display: "kubectl get --raw '" + nsPath + "?limit=1'", Args: []string{"kubectl", "get", "--raw", nsPath + "?limit=1"}, Target: srv, Reps: reps, Warm: first},
		{ID: "rv-only/watchrv", Group: "rv-only", Tool: "watchrv", Display: "kubectl watchrv list cm -n " + scaleNS + " --rv-only -o json", Args: kw("list", "configmaps", "-n", scaleNS, "--rv-only", "-o", "json"), Target: srv, Reps: reps, Warm: first},
		{ID: "list/kubectl", Group: "list", Tool: "kubectl", Display: "kubectl get cm -n " + scaleNS + " -o json", Args: []string{"kubectl", "get", "configmaps", "-n", scaleNS, "-o", "json"}, Target: srv, Reps: reps, Warm: first},
		{ID: "list/watchrv", Group: "list", Tool: "watchrv", Display: "kubectl watchrv list cm -n " + scaleNS + " -o json", Args: kw("list", "configmaps", "-n", scaleNS, "-o", "json"), Target: srv, Reps: reps, Warm: first},
		{ID: "probe/watchrv", Group: "probe", Tool: "watchrv", Display: "kubectl watchrv probe cm -n " + scaleNS + " -o json", Args: kw("probe", "configmaps", "-n", scaleNS, "-o", "json"), Target: srv, Reps: reps, Warm: first},
		{ID: "probe-all/watchrv", Group: "probe-all", Tool: "watchrv", Display: "kubectl-watchrv probe --all -o json", Args: []string{"kubectl-watchrv", "probe", "--all", "-o", "json"}, Target: srv, Reps: 1, Direct: true},
		{ID: "streaming-all/watchrv", Group: "streaming-all", Tool: "watchrv", Display: "kubectl-watchrv streaming --all -o json", Args: []string{"kubectl-watchrv", "streaming", "--all", "-o", "json"}, Target: srv, Reps: 1, Direct: true},
	}
	var out []Result
	for _, c := range cmds {
		rs, err := r.measure(ctx, c, int64(n), label)
		if err != nil {
			return nil, err
		}
		if rs.Report != nil && (c.Group == "probe-all" || c.Group == "streaming-all") {
			cached, err := watchCached(ctx, css[0])
			if err != nil {
				return nil, err
			}
			perResource(&rs, cached)
		}
		out = append(out, rs)
	}
	// The watches end at the first event after their list: a ticker writes
	// one every 100 ms (the wait for it, 50 ms on average, is in both).
	tick := StartTicker(ctx, css[:1], scaleNS, 100*time.Millisecond)
	watches := []Cmd{
		{ID: "watch/watchrv", Group: "watch", Tool: "watchrv", Display: "kubectl watchrv watch cm -n " + scaleNS + " --rv list --max-events 1 -o json", Args: kw("watch", "configmaps", "-n", scaleNS, "--rv", "list", "--max-events", "1", "-o", "json"), Target: srv, Reps: reps, Warm: first},
		{ID: "watch/kubectl", Group: "watch", Tool: "kubectl", Display: "kubectl get cm -n " + scaleNS + " -w -o name (until the first event)", Args: []string{"kubectl", "get", "configmaps", "-n", scaleNS, "-w", "-o", "name"}, UntilLines: n + 1, Target: srv, Reps: reps, Warm: first},
	}
	for _, c := range watches {
		rs, err := r.measure(ctx, c, int64(n), label)
		if err != nil {
			tick.Stop()
			return nil, err
		}
		out = append(out, rs)
	}
	tick.Stop()
	if ha != nil {
		c := Cmd{ID: "servers/watchrv", Group: "servers", Tool: "watchrv", Display: "kubectl watchrv probe cm -n " + scaleNS + " --servers -o json (HA, 3 servers)", Args: kw("probe", "configmaps", "-n", scaleNS, "--servers", "-o", "json"), Target: ha, Reps: reps, Warm: first}
		rs, err := r.measure(ctx, c, int64(n), label)
		if err != nil {
			return nil, err
		}
		out = append(out, rs)
	}
	return out, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(f), "_", ""))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad size %q in %q: give positive counts, e.g. 1000,10000", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseSizes(s string) ([]int64, error) {
	var out []int64
	if strings.TrimSpace(s) == "" || s == "0" || s == "none" {
		return nil, nil
	}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := int64(1)
		for _, u := range []struct {
			suffix string
			m      int64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
			if strings.HasSuffix(f, u.suffix) {
				f, mult = strings.TrimSuffix(f, u.suffix), u.m
				break
			}
		}
		n, err := strconv.ParseFloat(f, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad log size %q: give e.g. 1GiB,10GiB or 64MiB", s)
		}
		out = append(out, int64(n*float64(mult)))
	}
	return out, nil
}

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
