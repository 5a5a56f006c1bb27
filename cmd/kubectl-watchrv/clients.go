package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// ClientsOptions reads audit logs and reports who lists and watches what.
type ClientsOptions struct {
	*RootOptions

	Filenames []string
	outputFlags
	BySourceIP    bool
	ServerVersion string
	Top           int
	TimelineTop   int

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
  watches  by start mode: unset, 0, exact RV, streaming list; how long they
           lived and how they ended (timed out, closed early, at once, error)
  gets, and the 410, 504, 429 and 5xx answers

and the patterns those show, each with its evidence and a fix:

  polling                   lists at a steady period, no watch
  relist-loop               a list right after a watch ended, again and again
  stale-reconnect           watches from an RV the server no longer holds (410)
  herd                      3 or more clients relisting within 10 seconds
  consistent-read-pressure  many lists with no RV that read etcd on the
                            server's version (--server-version; else unknown)

Clients are ranked by load: lists that reach storage, then objects returned
(level RequestResponse), then lists, then requests. A per-minute chart of
lists, watches and 410s shows the top clients.

The log is streamed (several files merged in time order): memory stays flat
however big it is. Lines that are not audit events are counted and shown,
never fatal. It reads files only: no request goes to any cluster.

Exit codes: 0 read (patterns or not); 2 bad flags, a file that cannot be
read, or no audit event in the input.`,
		Example: `  # The API server is hot: who is listing?
  kubectl watchrv clients -f /var/log/kubernetes/audit/audit.log

  # Rotated and compressed files, merged in time order
  kubectl watchrv clients -f audit.log -f audit-2026-12-01T10-00-00.000.log.gz
  kubectl watchrv clients -f 'audit*.log'   # quoted or not: every file is read

  # Say which lists reach etcd on this server version
  kubectl watchrv clients -f audit.log --server-version v1.30.14

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
	f.IntVar(&o.Top, "top", 10, "How many clients the table and the details show (-o json|yaml has them all)")
	f.IntVar(&o.TimelineTop, "timeline", 5, "How many of the top clients the per-minute chart shows (0: none)")
	return cmd
}

// Complete takes the files given as arguments too, so that an unquoted
// glob (-f audit*.log) reads every file it expands to.
// A quoted glob (-f 'audit*.log') is expanded here; a name that exists as
// it is is never taken for a pattern.
func (o *ClientsOptions) Complete(cmd *cobra.Command, args []string) error {
	var names []string
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
			return usageErrorf(cmd, "-f %s is a directory: give the audit log files in it (-f %s/audit*.log)", name, name)
		}
		f, err := os.Open(name)
		if err != nil {
			o.close()
			return usageErrorf(cmd, "cannot read -f %s: %v", name, explainPathError(err))
		}
		o.closers = append(o.closers, f)
		o.sources = append(o.sources, audit.Source{Name: name, R: f})
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

// Run reads, analyzes and prints.
func (o *ClientsOptions) Run(ctx context.Context) error {
	p := o.Printer(o.Output)
	a := clients.New(clients.Options{BySourceIP: o.BySourceIP, ServerVersion: o.ServerVersion, Top: o.TimelineTop})
	st, err := audit.Read(ctx, o.sources, audit.Options{}, func(e *audit.Event) error {
		a.Add(e)
		return ctx.Err()
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return withCode(ExitUsage, err)
	}
	if st.Events == 0 {
		return withCode(ExitUsage, fmt.Errorf("no audit event in %d line(s) of %s (%d unreadable): give the API server's --audit-log-path file (audit.k8s.io/v1 JSON lines)", st.Lines, joinNames(o.names), st.UnreadableTotal()))
	}
	r := a.Report(o.names, st)
	if o.TimelineTop == 0 {
		r.Timeline.Clients = nil
	}
	return p.Clients(r, o.Top)
}

func joinNames(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return fmt.Sprintf("%d inputs", len(names))
}
