package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Target is where a command's requests go: the kubeconfig it is given and
// what counts them there (the servers' audit logs, and the byte-counting
// proxy when the kubeconfig goes through one).
type Target struct {
	Name       string
	Kubeconfig string
	AuditLogs  []string
	Proxy      *CountingProxy // nil: wire bytes not measured
}

// Cmd is one command to measure.
type Cmd struct {
	ID      string // stable key: "rv-only/watchrv", "list/kubectl" ...
	Group   string // what the user wants done: "rv-only", "list", "watch" ...
	Tool    string // "watchrv", "kubectl", "jq"
	Display string // the command as a user types it
	Args    []string
	Target  *Target // nil: reads files only
	// UntilLines > 0: stop the command (SIGKILL) once its stdout holds that
	// many lines, and take the time then (kubectl get -w never ends).
	UntilLines int
	Reps       int
	Warm       bool // one run first that does not count (discovery caches)
	// Direct: the plugin's binary itself (kubectl-watchrv ...), where a run
	// takes minutes and kubectl's start-up is nothing beside it.
	Direct bool
}

// Result is one command at one size: the medians of its runs.
type Result struct {
	ID, Group, Tool, Display string
	Size                     int64  `json:"size"`      // configmaps, or bytes of audit log
	SizeLabel                string `json:"sizeLabel"` // "10,000 configmaps", "1 GiB"
	Runs                     int    `json:"runs"`
	MedianMs                 float64
	MinMs                    float64
	AllMs                    []float64
	CPUms                    float64 // user+sys of the median run
	PeakRSSKiB               int64   // the largest of the runs (the process tree's largest process)
	// OwnRSSKiB is the plugin's own peak (one more run of its binary
	// itself: through kubectl, kubectl's own ~45 MiB before it execs the
	// plugin is the floor of PeakRSSKiB); PeakRSSKiB for the other tools.
	OwnRSSKiB   int64
	StdoutBytes int64
	// AuditRequests: requests of the run in the servers' audit logs (-1: none).
	AuditRequests int
	// WireBytes: bytes the server sent on the connection (TLS records, headers,
	// gzip as sent) by the counting proxy (-1: not measured).
	WireBytes int64
	// Plugin: the plugin's own account of the run, from its -o json report.
	Plugin *PluginCost `json:",omitempty"`
	// ExitCode of the median run (probe --all exits 12 when a resource
	// failed: the figures still count).
	ExitCode int
	// probe --all and streaming --all: resources in the report, requests
	// per resource, and (probe --all) per resource a watch cache answered.
	Resources             int     `json:",omitempty"`
	PerResource           float64 `json:",omitempty"`
	WatchCacheResources   int     `json:",omitempty"`
	PerWatchCacheResource float64 `json:",omitempty"`
	// Report is the last JSON document of the plugin's stdout.
	Report map[string]any `json:"-"`
}

// PluginCost is the plugin's own count: the "cost" object of its report
// (requests, bytes, byKind), or before the ledger the report's own
// "requests"/"bytes" fields (Source says which).
type PluginCost struct {
	Source   string                      `json:"source"` // "cost", or "report fields"
	Requests int                         `json:"requests"`
	Bytes    int64                       `json:"bytes"`
	ByKind   map[string]map[string]int64 `json:"byKind,omitempty"`
}

type runner struct {
	work string
	env  []string
	logf func(string, ...any)
}

type oneRun struct {
	ms       float64
	exit     int
	cpuMs    float64
	rssKiB   int64
	stdout   int64
	audit    int
	requests []string // "verb path" of each, by the audit log
	wire     int64
	lastJSON map[string]any
}

const keepStdout = 8 << 20 // the plugin's reports are small; kubectl's -o json is not kept

func (r *runner) measure(ctx context.Context, c Cmd, size int64, label string) (Result, error) {
	if c.Reps < 1 {
		c.Reps = 1
	}
	if c.Warm {
		if _, err := r.once(ctx, c); err != nil {
			return Result{}, err
		}
	}
	var runs []oneRun
	for i := 0; i < c.Reps; i++ {
		o, err := r.once(ctx, c)
		if err != nil {
			return Result{}, err
		}
		runs = append(runs, o)
	}
	res := summarize(c, runs)
	res.Size, res.SizeLabel, res.OwnRSSKiB = size, label, res.PeakRSSKiB
	if c.Tool == "watchrv" && !c.Direct && len(c.Args) > 2 && c.Args[0] == "kubectl" {
		d := c
		d.Args = append([]string{"kubectl-watchrv"}, c.Args[2:]...)
		o, err := r.once(ctx, d)
		if err != nil {
			return Result{}, err
		}
		res.OwnRSSKiB = o.rssKiB
	}
	r.logf("  %-48s %9.1f ms  %6.1f MiB (own %6.1f)  req %d  wire %s", c.Display, res.MedianMs, float64(res.PeakRSSKiB)/1024, float64(res.OwnRSSKiB)/1024, res.AuditRequests, human(res.WireBytes))
	return res, nil
}

func summarize(c Cmd, runs []oneRun) Result {
	res := Result{ID: c.ID, Group: c.Group, Tool: c.Tool, Display: c.Display, Runs: len(runs), AuditRequests: -1, WireBytes: -1}
	idx := make([]int, len(runs))
	for i := range runs {
		idx[i] = i
		res.AllMs = append(res.AllMs, runs[i].ms)
		if runs[i].rssKiB > res.PeakRSSKiB {
			res.PeakRSSKiB = runs[i].rssKiB
		}
	}
	sort.Slice(idx, func(a, b int) bool { return runs[idx[a]].ms < runs[idx[b]].ms })
	med := runs[idx[len(idx)/2]]
	res.MedianMs, res.MinMs, res.CPUms, res.StdoutBytes, res.ExitCode = med.ms, runs[idx[0]].ms, med.cpuMs, med.stdout, med.exit
	if c.Target != nil {
		res.AuditRequests = med.audit
		if c.Target.Proxy != nil {
			res.WireBytes = med.wire
		}
	}
	if med.lastJSON != nil {
		res.Plugin = pluginCost(med.lastJSON)
		res.Report = med.lastJSON
	}
	return res
}

func (r *runner) once(ctx context.Context, c Cmd) (oneRun, error) {
	var o oneRun
	var auditFrom []int64
	if c.Target != nil {
		auditFrom = auditSizes(c.Target.AuditLogs)
		if c.Target.Proxy != nil {
			c.Target.Proxy.Reset()
		}
	}
	// GNU time starts the command with a real fork (its mm a copy of
	// time's own, ~1 MiB), so that the command's peak RSS is its own: a
	// child forked by Go shares this process's memory until it execs and
	// would report this process's peak as its own floor.
	rssFile := filepath.Join(r.work, "rss")
	os.Remove(rssFile)
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-f", "%M", "-o", rssFile}, c.Args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = r.env
	if c.Target != nil {
		cmd.Env = append(append([]string(nil), r.env...), "KUBECONFIG="+c.Target.Kubeconfig)
	}
	var errBuf bytes.Buffer
	cmd.Stderr = &capWriter{w: &errBuf, max: 64 << 10}
	out := &stdoutSink{max: keepStdout, untilLines: c.UntilLines, reached: make(chan time.Time, 1)}
	cmd.Stdout = out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return o, fmt.Errorf("%s: %w", c.Display, err)
	}
	var end time.Time
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	var err error
	if c.UntilLines > 0 {
		select {
		case end = <-out.reached:
			// SIGINT to the group: time ignores it, the command ends, and
			// time still writes its peak RSS.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			<-waitErr
		case err = <-waitErr:
			end = time.Now()
			err = fmt.Errorf("ended before %d lines of output (%d): %v", c.UntilLines, out.lines, err)
		}
	} else {
		err = <-waitErr
		end = time.Now()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && c.UntilLines == 0 && ee.ExitCode() > 0 {
		// An answer the command reports with its exit code (probe --all's
		// 12: a resource failed): measured, and shown with its code.
		o.exit = ee.ExitCode()
		r.logf("  %s exited %d: %s", c.Display, o.exit, lastLines(errBuf.String(), 3))
		err = nil
	}
	if err != nil {
		return o, fmt.Errorf("%s: %v\n%s", c.Display, err, lastLines(errBuf.String(), 5))
	}
	o.rssKiB = readRSS(rssFile)
	o.ms = float64(end.Sub(start).Microseconds()) / 1000
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		o.cpuMs = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
	}
	o.stdout = out.n
	if c.Tool == "watchrv" && out.buf.Len() > 0 && !out.overflow {
		o.lastJSON = lastJSONObject(out.buf.Bytes())
	}
	if c.Target != nil {
		if c.Target.Proxy != nil {
			o.wire = c.Target.Proxy.Settle()
		}
		o.audit, o.requests = countAudit(c.Target.AuditLogs, auditFrom)
	}
	return o, nil
}

// stdoutSink counts stdout, keeps its first max bytes, and signals when it
// has seen untilLines newlines.
type stdoutSink struct {
	mu         sync.Mutex
	buf        bytes.Buffer
	n          int64
	max        int
	overflow   bool
	untilLines int
	lines      int
	reached    chan time.Time
}

func (s *stdoutSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n += int64(len(p))
	if s.buf.Len()+len(p) <= s.max {
		s.buf.Write(p)
	} else {
		s.overflow = true
	}
	if s.untilLines > 0 && s.lines < s.untilLines {
		s.lines += bytes.Count(p, []byte{'\n'})
		if s.lines >= s.untilLines {
			s.reached <- time.Now()
		}
	}
	return len(p), nil
}

type capWriter struct {
	w   *bytes.Buffer
	max int
}

func (c *capWriter) Write(p []byte) (int, error) {
	if room := c.max - c.w.Len(); room > 0 {
		if len(p) > room {
			c.w.Write(p[:room])
		} else {
			c.w.Write(p)
		}
	}
	return len(p), nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// lastJSONObject is the last JSON object of a stream of JSON documents (one
// pretty-printed report, or JSON lines whose last line is the summary).
func lastJSONObject(b []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(b))
	var last map[string]any
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			return last
		}
		if m, ok := v.(map[string]any); ok {
			last = m
		}
	}
}

// pluginCost reads the plugin's own account from its report: the "cost"
// object where the build has the request ledger, else the report's own
// top-level "requests" and "bytes" (probe's requests, list's body bytes).
func pluginCost(doc map[string]any) *PluginCost {
	num := func(m map[string]any, k string) (float64, bool) {
		f, ok := m[k].(float64)
		return f, ok
	}
	if c, ok := doc["cost"].(map[string]any); ok {
		pc := &PluginCost{Source: "cost"}
		if f, ok := num(c, "requests"); ok {
			pc.Requests = int(f)
		}
		if f, ok := num(c, "bytes"); ok {
			pc.Bytes = int64(f)
		}
		if bk, ok := c["byKind"].(map[string]any); ok {
			pc.ByKind = map[string]map[string]int64{}
			for k, v := range bk {
				if m, ok := v.(map[string]any); ok {
					rq, _ := num(m, "requests")
					by, _ := num(m, "bytes")
					pc.ByKind[k] = map[string]int64{"requests": int64(rq), "bytes": int64(by)}
				}
			}
		}
		return pc
	}
	pc := &PluginCost{Source: "report fields", Requests: -1, Bytes: -1}
	if f, ok := num(doc, "requests"); ok {
		pc.Requests = int(f)
	}
	if f, ok := num(doc, "bytes"); ok {
		pc.Bytes = int64(f)
	}
	if pc.Requests < 0 && pc.Bytes < 0 {
		return nil
	}
	return pc
}

func human(b int64) string {
	switch {
	case b < 0:
		return "-"
	case b < 1<<10:
		return fmt.Sprintf("%d B", b)
	case b < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	default:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
}

// readRSS is GNU time's %M (KiB): the largest RSS of the command's process
// and of the children it waited for; its last line (a killed command's
// file starts with "Command terminated by signal").
func readRSS(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	l := strings.Split(strings.TrimSpace(string(b)), "\n")
	n, _ := strconv.ParseInt(strings.TrimSpace(l[len(l)-1]), 10, 64)
	return n
}
