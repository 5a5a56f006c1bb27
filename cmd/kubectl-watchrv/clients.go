package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/audit"
	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// ClientsOptions reads audit logs and reports who lists and watches what.
type ClientsOptions struct {
	*RootOptions

	Filenames []string
	// positional are the names given as arguments (read as logs, as -f).
	positional map[string]bool
	outputFlags
	BySourceIP      bool
	ServerVersion   string
	WatchCache      string
	WatchCacheSizes string
	Top             int
	TimelineTop     int
	MaxClients      int

	cache   string
	sizes   map[string]int
	sources []audit.Source
	names   []string
	closers []io.Closer
}

func newClientsCommand(root *RootOptions) *cobra.Command {
	return clientsCommand(&ClientsOptions{RootOptions: root})
}

// clientsCommand wires the command and its flags to o (tests build o themselves).
func clientsCommand(o *ClientsOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clients -f AUDIT_LOG... | -f -",
		Short: "From an API server's audit log: who lists and watches what, who polls, who is in a relist loop",
		Long: `Read API server audit logs (audit.k8s.io/v1 Event JSON lines, at any level,
with or without the RequestReceived stage; also wrapped by a log shipper as a
JSON field or a JSON string, rotated files and .gz) and tell, per client
(user + user agent; --by-source-ip to split by source IP) and per resource:

  lists    by read mode: RV unset (consistent), 0 (any), exact, NotOlderThan;
           with a limit; continued pages
  watches  by start mode, by what the server sends: state + changes (RV unset
           or 0), changes only (sendInitialEvents=false), exact RV, streaming
           list; how long they lived and how they ended (timed out, closed
           early, at once, error)
  gets, and the 410, 504, 429 and 5xx answers

and the patterns those show, each with its evidence and a fix:

  polling                   lists at a steady period, no watch
  relist-loop               a re-read of the whole collection (a list, or a
                            watch that sends it) right after a watch ended,
                            again and again
  stale-reconnect           watches from an RV the server no longer holds (410)
  herd                      3 or more clients relisting within 10 seconds
  consistent-read-pressure  many lists with no RV that read etcd on the
                            server's version (--server-version; else unknown)

Which lists reach storage (etcd) depends on the server's version
(--server-version) and on its watch cache, which the audit log does not
record: give the server's own flags (--watch-cache=false, or
--watch-cache-sizes=configmaps#0,...) or --watch-cache=on. Where it is not
known, a list the watch cache would serve is counted as not known (?), never
as served by the cache.

Clients are ranked by load: lists that reach storage, then objects returned
(level RequestResponse), then lists, then requests. A per-minute chart of
lists, watches and 410s shows the top clients.

The log is streamed (several files merged in time order), and memory stays
flat however big it is: a line of any length is read in one pass; at most
--max-clients clients are kept apart (anyone can mint one by changing its
user agent), the lightest of the others folded into one row, said so.
Input out of time order is put in order (a file newest first, or two logs
one after the other, is read twice; stdin within a window of events), each
event counted once (a file given twice, a shipper's retries), and the
report says what was done. Lines that are not audit events are counted and
shown, never fatal; a gzip file cut short gives what was read before, and
says so. Interrupted (Ctrl-C), it prints the report of what it read. It
reads files only: no request goes to any cluster.

Exit codes: 0 read (patterns or not); 2 bad flags, a file that cannot be
read, or no audit event in the input; 130 interrupted (after the report).`,
		Example: `  # The API server is hot: who is listing?
  kubectl watchrv clients -f /var/log/kubernetes/audit/audit.log

  # Rotated and compressed files, merged in time order
  kubectl watchrv clients -f audit.log -f audit-2026-12-01T10-00-00.000.log.gz
  kubectl watchrv clients -f 'audit*.log'   # quoted or not: every file is read

  # Say which lists reach etcd on this server version
  kubectl watchrv clients -f audit.log --server-version v1.30.14

  # The server runs without a watch cache for configmaps (its own flag)
  kubectl watchrv clients -f audit.log --server-version v1.37.2 --watch-cache-sizes configmaps#0

  # A DaemonSet's pods share a user and user agent: split them by source IP
  kubectl watchrv clients -f audit.log --by-source-ip

  # From a log shipper's export, on stdin, as JSON
  zcat export.json.gz | kubectl watchrv clients -f - -o json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(cmd, args); err != nil {
				return err
			}
			if err := o.open(cmd); err != nil {
				return err
			}
			defer o.close()
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.Filenames, "filename", "f", nil, `An audit log file (repeat for several; "-" for stdin); plain or gzip`)
	o.outputFlags = newOutputFlags(render.FormatJSON, render.FormatYAML)
	o.addOutputFlag(f)
	f.BoolVar(&o.BySourceIP, "by-source-ip", false, "Tell clients apart by source IP too (pods of one DaemonSet share a user and user agent)")
	f.StringVar(&o.ServerVersion, "server-version", "", "The API server's version (e.g. v1.30.14): decides which lists reach etcd")
	f.StringVar(&o.WatchCache, "watch-cache", clients.CacheUnknown, "The API server's watch cache: on, off (its --watch-cache=true|false) or unknown (not in the audit log: lists the cache would serve count as not known)")
	f.StringVar(&o.WatchCacheSizes, "watch-cache-sizes", "", "The API server's own --watch-cache-sizes (RESOURCE[.GROUP]#SIZE,...; #0 is no watch cache for that resource)")
	f.IntVar(&o.Top, "top", 10, "How many clients the table and the details show (-o json|yaml has them all)")
	f.IntVar(&o.TimelineTop, "timeline", 5, "How many of the top clients the per-minute chart shows (0: none)")
	f.IntVar(&o.MaxClients, "max-clients", clients.DefaultMaxClients, "How many clients are kept apart; the lightest of the others are folded into one row (memory stays bounded)")
	return cmd
}

// Complete takes the files given as arguments too, so that an unquoted
// glob (-f audit*.log) reads every file it expands to.
// A quoted glob (-f 'audit*.log') is expanded here; a name that exists as
// it is is never taken for a pattern.
func (o *ClientsOptions) Complete(cmd *cobra.Command, args []string) error {
	var names []string
	o.positional = map[string]bool{}
	for _, a := range args {
		o.positional[a] = true
	}
	for _, name := range append(o.Filenames, args...) {
		if _, err := os.Stat(name); err != nil && strings.ContainsAny(name, "*?[") {
			if m, gerr := filepath.Glob(name); gerr == nil && len(m) > 0 {
				names = append(names, m...)
				continue
			}
		}
		names = append(names, name)
	}
	o.Filenames = names
	// Validate refuses what does not parse.
	o.cache, _ = clients.ParseWatchCache(o.WatchCache)
	o.sizes, _ = clients.ParseWatchCacheSizes(o.WatchCacheSizes)
	return nil
}

// Validate rejects bad flags with a one-line error.
func (o *ClientsOptions) Validate(cmd *cobra.Command, _ []string) error {
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	if err := clients.ValidateVersion(o.ServerVersion); err != nil {
		return usageErrorf(cmd, "--server-version %v", err)
	}
	if _, err := clients.ParseWatchCache(o.WatchCache); err != nil {
		return usageErrorf(cmd, "--watch-cache %v", err)
	}
	if _, err := clients.ParseWatchCacheSizes(o.WatchCacheSizes); err != nil {
		return usageErrorf(cmd, "--watch-cache-sizes %v", err)
	}
	if o.MaxClients < 1 {
		return usageErrorf(cmd, "--max-clients %d must be at least 1", o.MaxClients)
	}
	if o.Top < 1 {
		return usageErrorf(cmd, "--top %d must be at least 1", o.Top)
	}
	if o.TimelineTop < 0 {
		return usageErrorf(cmd, "--timeline %d must be 0 or more", o.TimelineTop)
	}
	stdin := 0
	for _, f := range o.Filenames {
		if f == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usageErrorf(cmd, "-f - (stdin) can be given once")
	}
	if len(o.Filenames) == 0 && explainStdinIsTerminal(o.In) {
		return usageErrorf(cmd, "no audit log: give -f FILE (the API server's --audit-log-path) or pipe it on stdin with -f -")
	}
	return nil
}

// open opens every input before reading any, so that a missing file is
// reported at once (exit 2), not after minutes of reading the others.
func (o *ClientsOptions) open(cmd *cobra.Command) error {
	names := o.Filenames
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, name := range names {
		if name == "-" {
			if o.In == nil {
				return usageErrorf(cmd, "no stdin to read the audit log from")
			}
			o.sources = append(o.sources, audit.Source{Name: "stdin", R: o.In})
			o.names = append(o.names, "stdin")
			continue
		}
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			o.close()
			return usageErrorf(cmd, "%s is a directory: give the audit log files in it (-f %s/audit*.log)", o.logArg(name), name)
		}
		f, err := os.Open(name)
		if err != nil {
			o.close()
			return usageErrorf(cmd, "cannot read %s: %v", o.logArg(name), explainPathError(err))
		}
		o.closers = append(o.closers, f)
		src := audit.Source{Name: name, R: f}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			// A regular file can be read again (to put it in time order);
			// a FIFO or a device is read once, as stdin.
			path := name
			src.Open = func() (io.ReadCloser, error) {
				g, err := os.Open(path)
				if err == nil {
					o.closers = append(o.closers, g)
				}
				return g, err
			}
		}
		o.sources = append(o.sources, src)
		o.names = append(o.names, name)
	}
	return nil
}

func (o *ClientsOptions) close() {
	for _, c := range o.closers {
		c.Close()
	}
	o.closers = nil
}

// Run reads, analyzes and prints. Interrupted, it prints the report of
// what it read, says so, and the run exits 130.
func (o *ClientsOptions) Run(ctx context.Context) error {
	p := o.Printer(o.Output)
	o.warnNamespaceNotApplied(p, "clients reports every namespace of the audit log")
	opts := clients.Options{BySourceIP: o.BySourceIP, ServerVersion: o.ServerVersion, WatchCache: o.cache, WatchCacheSizes: o.sizes, Top: o.TimelineTop, MaxClients: o.MaxClients}
	a := clients.New(opts)
	st, err := audit.Read(ctx, o.sources, audit.Options{Restart: func() { a = clients.New(opts) }}, func(e *audit.Event) error {
		a.Add(e)
		return nil
	})
	interrupted := err != nil && ctx.Err() != nil
	if err != nil && !interrupted {
		return withCode(ExitUsage, err)
	}
	for _, c := range st.Cut {
		p.Warnf("%s ends early after %s (%s): %s; the report covers what was read", c.Source, text.Count(c.Lines, "line"), text.Count(c.Bytes, "byte"), c.End)
	}
	if st.Events == 0 {
		if interrupted {
			return err
		}
		why := ""
		if len(st.Cut) > 0 {
			why = " (" + st.Cut[0].Source + ": " + st.Cut[0].End + ")"
		}
		return withCode(ExitUsage, fmt.Errorf("no audit event in %s of %s (%d unreadable)%s: give the API server's --audit-log-path file (audit.k8s.io/v1 JSON lines)", text.Count(st.Lines, "line"), joinNames(o.names), st.UnreadableTotal(), why))
	}
	r := a.Report(o.names, st)
	if o.TimelineTop == 0 {
		r.Timeline.Clients = nil
	}
	if perr := p.Clients(r, o.Top); perr != nil {
		return perr
	}
	if interrupted {
		p.Notef("interrupted: the report covers the %s read before the signal", text.Count(st.Lines, "line"))
		return err
	}
	return nil
}

func joinNames(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return fmt.Sprintf("%d inputs", len(names))
}

// logArg names a log as the user gave it: -f NAME, or an argument (every
// argument is read as a log, so that -f audit*.log reads what the shell
// expanded it to).
func (o *ClientsOptions) logArg(name string) string {
	if o.positional[name] {
		return fmt.Sprintf("the argument %q (every argument is read as an audit log, as with -f)", text.Echo(name))
	}
	return "-f " + text.Echo(name)
}
