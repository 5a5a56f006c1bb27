package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// TopOptions shows the List/Watch load of each API server now, per
// resource, from two reads of its /metrics.
type TopOptions struct {
	*RootOptions
	serversFlags
	outputFlags

	Interval time.Duration
	Once     bool
	Sort     string
	Limit    int

	// suggest is the user's context, carried by every suggested command.
	suggest suggest.Context

	Check               bool
	MaxWatchers         []string
	MaxTerminated       int
	MaxStorageListRatio float64
	MaxRejected         int

	// Derived by Complete, checked by Validate.
	resources []string
	watchers  []watcherFlag
	watchErr  error
	bounds    top.Bounds
}

// watcherFlag is one parsed --max-watchers.
type watcherFlag struct {
	resource string
	max      float64
	given    string // the value as typed
}

// String is the value as typed, quoted and bounded, as errors echo it.
func (w watcherFlag) String() string { return strconv.Quote(text.Echo(w.given)) }

// Defaults and bounds of --interval.
const (
	defaultTopInterval = 5 * time.Second
	minTopInterval     = time.Second
	maxTopInterval     = 10 * time.Minute
)

func newTopCommand(root *RootOptions) *cobra.Command {
	return topCommand(&TopOptions{RootOptions: root})
}

// topCommand wires the command and its flags to o (tests build o themselves).
func topCommand(o *TopOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top [RESOURCE...]",
		Short: "The List/Watch load of each API server now, per resource, from its /metrics (no Prometheus needed)",
		Long: `Read the API server's /metrics twice, --interval apart, and show per resource
the load List and Watch put on it now: the watchers open, the events sent to
them per second and their bytes, the watchers the watch cache closed as too
slow, the lists per second served by the watch cache and by storage (etcd or
kine), the objects storage lists read for each one they return, the 410, 429
and 5xx answers, the objects stored; -o wide adds the watch cache's events in
and dispatched, its capacity and its resourceVersion. API Priority and
Fairness's rejections follow, by priority level and flow schema, and the
three rows that matter most, each with what it means and the fix.

Every rate is the difference of two samples of one server's counters over the
measured interval. A counter that went down (the server restarted) is said,
never shown as a negative rate; a family the server does not expose (its
version) is named, and its cells say n/a, never 0; a /metrics the user may
not read is an error (exit 7), with the RBAC rule it needs. The
metric names and labels differ by version (v1.30 labels watch events by kind,
v1.37 counts every list in apiserver_storage_list_total by a storage label):
top reads them per server.

On a terminal it refreshes every --interval, like top, with a short history
of the --sort column per row; with --once, -o json|yaml, --check or when
stdout is not a terminal it prints one interval and exits. With --servers (or
--endpoints) every API server is read directly: a row per server and
resource, and how the watchers and the lists spread across the servers.

--check is for CI: it prints one interval and exits 14 when a bound is
crossed (--max-watchers, --max-terminated, --max-storage-list-ratio,
--max-rejected), naming each; a bound that cannot be checked (its family is
not exposed) exits 1.

It needs get on the non-resource URL /metrics (a ClusterRole with
nonResourceURLs ["/metrics"], verbs ["get"]). Its cost: two GETs of /metrics
per server (one per refresh after the first); kube-apiserver v1.37 sends only
the families asked for (name[]), older servers send everything.

` + exitCodesHelp,
		Example: `  # The load per resource now (refreshes on a terminal; Ctrl-C to stop)
  kubectl watchrv top

  # Pods and secrets only, sorted by lists per second, with the watch cache's columns
  kubectl watchrv top pods secrets --sort lists -o wide

  # Every API server behind the address: where the watches are
  kubectl watchrv top --servers --once

  # CI: fail when services have more than 320 watchers or any watcher is closed as too slow
  kubectl watchrv top --check --max-watchers services=320 --max-terminated 0

  # One interval of 10 seconds as JSON (every rate with its interval and both samples)
  kubectl watchrv top --interval 10s -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(cmd, args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
		ValidArgsFunction: o.completeResource,
	}
	f := cmd.Flags()
	f.DurationVar(&o.Interval, "interval", defaultTopInterval, rangeTopInterval.help("Time between the two reads of /metrics (and between refreshes)"))
	f.BoolVar(&o.Once, "once", false, "Print one interval and exit (also when stdout is not a terminal, with -o json|yaml and with --check)")
	f.StringVar(&o.Sort, "sort", "watchers", "Sort the rows by: "+top.SortKeysText())
	f.IntVar(&o.Limit, "limit", 20, "Most rows shown in the table (0: all; -o json|yaml carries every row)")
	f.BoolVar(&o.Check, "check", false, "Check the --max-* bounds over one interval: exit 14 when one is crossed, naming each")
	f.StringArrayVar(&o.MaxWatchers, "max-watchers", nil, "With --check: the most watchers of RESOURCE, summed over the servers read (RESOURCE=N, or N for every resource; repeatable)")
	f.IntVar(&o.MaxTerminated, "max-terminated", -1, "With --check: the most watchers closed as too slow in the interval (every resource and server)")
	f.Float64Var(&o.MaxStorageListRatio, "max-storage-list-ratio", -1, "With --check: the most objects a resource's storage lists may read per object they return, over the interval")
	f.IntVar(&o.MaxRejected, "max-rejected", -1, "With --check: the most requests API Priority and Fairness may reject in the interval (every server)")
	o.outputFlags = newOutputFlags(render.FormatWide, render.FormatJSON, render.FormatYAML)
	o.addOutputFlag(f)
	o.addServersFlags(f, false)
	return cmd
}

// Complete parses the per-server flags and the --max-watchers values.
func (o *TopOptions) Complete(cmd *cobra.Command, args []string) error {
	o.completeServers(cmd)
	o.suggest = suggest.From(cmd.Flags(), os.Getenv)
	o.resources = args
	o.watchers = nil
	for _, v := range o.MaxWatchers {
		res, max, err := top.ParseWatcherBound(v)
		if err != nil {
			o.watchErr = fmt.Errorf("--max-watchers %q: %w: give RESOURCE=N (for example services=320) or N", v, err)
			break
		}
		o.watchers = append(o.watchers, watcherFlag{resource: res, max: max, given: v})
	}
	return nil
}

// Validate rejects bad flags with a one-line error; it changes nothing.
func (o *TopOptions) Validate(cmd *cobra.Command, args []string) error {
	if err := rangeTopInterval.check(cmd, o.Interval); err != nil {
		return err
	}
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	if err := o.validateServers(cmd, ""); err != nil {
		return err
	}
	bounds := len(o.MaxWatchers) > 0 || o.MaxTerminated >= 0 || o.MaxStorageListRatio >= 0 || o.MaxRejected >= 0
	switch {
	case !top.ValidSortKey(o.Sort):
		return usageErrorf(cmd, "--sort %q is not a column: use one of %s", o.Sort, top.SortKeysText())
	case o.Limit < 0:
		return usageErrorf(cmd, "--limit %d must be 0 (all rows) or more", o.Limit)
	case o.watchErr != nil:
		return usageErrorf(cmd, "%v", o.watchErr)
	case cmd.Flags().Changed("max-terminated") && o.MaxTerminated < 0:
		return usageErrorf(cmd, "--max-terminated %d must be 0 or more", o.MaxTerminated)
	case cmd.Flags().Changed("max-rejected") && o.MaxRejected < 0:
		return usageErrorf(cmd, "--max-rejected %d must be 0 or more", o.MaxRejected)
	case cmd.Flags().Changed("max-storage-list-ratio") && (o.MaxStorageListRatio < 1 || math.IsNaN(o.MaxStorageListRatio) || math.IsInf(o.MaxStorageListRatio, 0)):
		return usageErrorf(cmd, "--max-storage-list-ratio %g must be a number of 1 or more (objects read per object returned)", o.MaxStorageListRatio)
	case bounds && !o.Check:
		return usageErrorf(cmd, "the --max-* bounds are checked with --check: add --check")
	case o.Check && !bounds:
		return usageErrorf(cmd, "--check needs at least one bound: --max-watchers RESOURCE=N, --max-terminated N, --max-storage-list-ratio N or --max-rejected N")
	}
	for _, r := range args {
		if r == "" {
			return usageErrorf(cmd, "RESOURCE is empty: name a resource type such as configmaps, pods or deployments.apps")
		}
	}
	return nil
}

// once: print one interval and exit.
func (o *TopOptions) once(p *render.Printer) bool {
	return o.Once || o.Check || p.Machine() || !p.Live()
}

// shortDuration is d as a user types it: "10m", never Go's "10m0s"
// (fresh user try 39 F7).
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
