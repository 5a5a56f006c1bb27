package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// ListOptions reads a collection and reports its resourceVersion facts.
type ListOptions struct {
	*RootOptions
	serversFlags

	Resource      string
	Name          string
	AllNamespaces bool
	LabelSelector string
	FieldSelector string
	Limit         int64
	RV            string
	RVMatch       string
	RVOnly        bool
	NoRestart     bool
	outputFlags

	rvSet bool
	// namespaceGiven is -n as given (kept to say it is ignored for a
	// cluster-scoped resource, as kubectl does).
	namespaceGiven string
	// suggest is the user's context, carried by every suggested command.
	suggest suggest.Context
}

func newListCommand(root *RootOptions) *cobra.Command {
	return listCommand(&ListOptions{RootOptions: root})
}

// listCommand wires the command and its flags to o (tests build o themselves).
func listCommand(o *ListOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list RESOURCE [NAME] | RESOURCE/NAME",
		Short: "Show a List's resourceVersion, pages and read semantics",
		Long: `Read a collection through the raw REST API and report what
"kubectl get -o json" hides: the List's metadata.resourceVersion (the right
starting point of a watch), how many items and pages, whether every page
carried the same RV, the newest item RV, and which read semantics served it.

Pages are read with metadata only and never kept, so memory stays bounded
whatever the collection size. --rv-only asks for one item of metadata: the
cheapest read of a collection's current RV (with a selector the server does
not count the rest: the total is then unknown, and said so). A NAME (cm a,
or cm/a) lists the collection narrowed to that object (--field-selector
metadata.name=NAME): the RV is still the collection's; a NAME not found is
kubectl's NotFound (exit 9). One resource type at a time: cm,secrets is
refused (exit 2).

"Served by" says who served each page: page 1 and the pages read with a
continue token follow different rules (before ListFromCacheSnapshot, v1.34,
continue pages come from storage), with the storage requests counted. It
rests on the server's version, gates and watch cache, read from /version
and two or three families of /metrics (v1.37 and later filter /metrics by name:
under 256 KiB, kept 10 minutes beside kubectl's discovery cache, --cache-dir).
Older servers send all of /metrics whatever is asked, so they are not
asked: their version's defaults are used, and a note says so.

"Watch from here" is the watch that continues from this list, narrowed as
the list was and carrying your kubeconfig flags and KUBECONFIG, ready to
paste (--token is read from $WATCHRV_TOKEN, never printed).

` + exitCodesHelp,
		Example: `  # The RV to start a watch from, for about a kilobyte of traffic
  kubectl watchrv list configmaps -n demo --rv-only

  # Walk all pods in pages of 100 and show each page
  kubectl watchrv list pods -A --limit 100 -o wide

  # The collection as it was at RV 12345 (fails with 410 once compacted)
  kubectl watchrv list cm -n demo --rv 12345 --rv-match Exact -o json`,
		Args: resourceNameArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(cmd); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
		ValidArgsFunction: o.completeResourceName,
	}
	f := cmd.Flags()
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "List across all namespaces")
	f.StringVarP(&o.LabelSelector, "selector", "l", "", "Label selector (e.g. -l app=web)")
	f.StringVar(&o.FieldSelector, "field-selector", "", "Field selector (e.g. --field-selector metadata.name=a)")
	f.Int64Var(&o.Limit, "limit", 500, "Page size (the limit parameter of each List request)")
	f.StringVar(&o.RV, "rv", "", "resourceVersion to list at: 0 (any, from cache) or a number; unset means a consistent read")
	f.StringVar(&o.RVMatch, "rv-match", "", "How --rv applies: NotOlderThan or Exact")
	f.BoolVar(&o.RVOnly, "rv-only", false, "Read only the current RV (one item of metadata, about 1 KB)")
	f.BoolVar(&o.NoRestart, "no-restart", false, "Stop when a continue token expires instead of restarting from page 1 once")
	o.outputFlags = newOutputFlags(render.FormatWide, render.FormatJSON, render.FormatYAML, render.FormatName)
	o.addOutputFlag(f)
	o.addServersFlags(f, false)
	return cmd
}

// Complete fills in the namespace and what was set.
func (o *ListOptions) Complete(cmd *cobra.Command, args []string) error {
	var err error
	if o.Resource, o.Name, err = resourceArgs(cmd, args); err != nil {
		return err
	}
	o.rvSet = cmd.Flags().Changed("rv")
	o.completeServers(cmd)
	if m, ok := normalizeMatch(o.RVMatch); ok {
		o.RVMatch = m
	}
	if f := o.ConfigFlags.Namespace; f != nil {
		o.namespaceGiven = *f
	}
	o.suggest = suggest.From(cmd.Flags(), os.Getenv)
	if o.RVOnly && !cmd.Flags().Changed("limit") {
		o.Limit = 1
	}
	return nil
}

// Validate rejects bad flags with a one-line error.
func (o *ListOptions) Validate(cmd *cobra.Command) error {
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	if err := o.validateServers(cmd, o.listServersConflict(cmd)); err != nil {
		return err
	}
	if o.isName() && (o.RVOnly || o.serversOn()) {
		// Name the flags given (fresh user try 12: --endpoints was
		// given, and the line named --rv-only and --servers).
		var given []string
		for _, f := range []string{"rv-only", "servers", "endpoints"} {
			if cmd.Flags().Changed(f) {
				given = append(given, "--"+f)
			}
		}
		verb := "read"
		if len(given) == 1 {
			verb = "reads"
		}
		return usageErrorf(cmd, "-o name prints every object the list reads; %s %s no whole list: drop it, or use -o json", strings.Join(given, " and "), verb)
	}
	if err := validateNameSelector(cmd, o.Name, o.FieldSelector); err != nil {
		return err
	}
	if o.RVOnly && cmd.Flags().Changed("limit") {
		return usageErrorf(cmd, "--rv-only reads one item and cannot be combined with --limit")
	}
	if o.Limit < 1 {
		return usageErrorf(cmd, "--limit %d is not a page size: use a number of at least 1 (default 500)", o.Limit)
	}
	if o.rvSet {
		if err := validateRV(cmd, "rv", o.RV); err != nil {
			return err
		}
	}
	if o.RVMatch != "" {
		if !o.rvSet {
			return usageErrorf(cmd, "--rv-match needs --rv: give the resourceVersion it applies to")
		}
		if _, ok := normalizeMatch(o.RVMatch); !ok {
			return usageErrorf(cmd, "--rv-match %q is not a match rule: use NotOlderThan or Exact", o.RVMatch)
		}
		if o.RV == "0" && o.RVMatch == "Exact" {
			return usageErrorf(cmd, "--rv 0 --rv-match Exact is refused by the API server: 0 means any; give a real RV for Exact")
		}
	}
	return nil
}

func normalizeMatch(m string) (string, bool) {
	switch strings.ToLower(m) {
	case "notolderthan":
		return "NotOlderThan", true
	case "exact":
		return "Exact", true
	}
	return m, false
}

// Run lists and reports.
func (o *ListOptions) Run(ctx context.Context) error {
	p := o.Printer(o.Output)
	res, err := o.resolveResource(ctx, o.Resource, "list")
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	t, err := o.targetOf(res, o.AllNamespaces)
	if err != nil {
		return err
	}
	t.LabelSelector, t.FieldSelector = o.LabelSelector, nameSelector(o.Name, o.FieldSelector)
	if o.serversOn() {
		return o.listServers(ctx, p, t)
	}
	wo := listing.WalkOptions{
		PageOptions: listing.PageOptions{Limit: o.Limit, ResourceVersion: o.RV, ResourceVersionMatch: o.RVMatch},
		NoRestart:   o.NoRestart,
	}
	if o.RVOnly {
		wo.MaxPages = 1
	}
	if o.Verbose {
		wo.Trace = p.Tracef
	}
	// The server's facts are read beside the list (they cost the server a
	// gather of its metrics): --rv-only promises one small read, so not
	// then.
	p.ObjectsOf(res)
	var names []string // -o name only: a restarted walk's last attempt is the tail
	var onItem func(listing.ItemMeta)
	if p.Names() {
		// The names are printed once the walk knows which attempt is the
		// list, so they are held: within the walk's bound of what its
		// caller keeps (listing.MaxKeptBytes).
		wo.Keeps = listing.KeptName
		onItem = func(it listing.ItemMeta) { names = append(names, it.Name) }
	}
	var facts chan *serverinfo.Info
	listCtx, connected := apiclient.Connected(ctx)
	walked := make(chan struct{})
	if !o.RVOnly {
		// Once the list has its connection, to share it (apiclient.Connected).
		facts = make(chan *serverinfo.Info, 1)
		go func() {
			select {
			case <-connected:
			case <-walked:
			}
			facts <- o.readServerInfo(ctx, client, res.GVR.Group, res.GVR.Resource)
		}()
	}
	walk, werr := listing.Walk(listCtx, client, t, wo, onItem)
	close(walked)
	if p.Names() && diagnose.ClassifyFailure(werr) == diagnose.FailureUnbounded {
		// The names held are a part of a list past a bound: printing them
		// would cost as much again, for a list that is not whole.
		return o.requestError(werr, "list", res.Name())
	}
	if werr != nil && (walk == nil || len(walk.Final().Pages) == 0) && !listing.IsContinueExpired(werr) {
		// The first page's answer: of the RV it sent, or none (adversary
		// try 29 F4: a list that sent none answered Expired).
		return o.sentRequestError(werr, "list", res.Name(), firstPageSent(o.RV, o.RVMatch))
	}
	if err := o.notFound(res, t, walk, werr); err != nil {
		return err
	}
	q := render.ListQuery{Target: t, Walk: wo, RVOnly: o.RVOnly, Name: o.Name, FieldSelector: o.FieldSelector, Context: o.suggest, RateLimit: client.RateLimit()}
	if !res.Namespaced && o.namespaceGiven != "" {
		q.NamespaceIgnored = o.namespaceGiven
	}
	report := render.NewListReport(q, walk)
	if n := int(walk.Final().ItemCount - walk.Final().Excluded); n <= len(names) {
		report.ObjectNames = names[len(names)-n:]
	}
	if facts != nil {
		in := <-facts
		if in != nil {
			in = o.factsAt(ctx, p, client, in, res.GVR.Group, res.GVR.Resource, report.StorageRV())
		}
		if in != nil { // nil: the signal cut the read (readServerInfo)
			report = report.WithServer(in)
		}
	}
	if report.NeedsCurrentRV() && werr == nil {
		current, _, cerr := listing.CurrentRV(ctx, client, t, listing.CurrentOptions{})
		if _, why := probe.StorageRV(current); cerr == nil && diagnose.BrokeContract(why) {
			cerr = why // "0" is no current RV to judge the list by
		}
		report.CheckWatchStart(current, cerr)
	}
	if apiclient.Cut(ctx) {
		// The signal cut the run before its report (in the walk, or in a
		// read beside it): a list stopped in its requests prints only
		// "interrupted" (docs/exit-codes.md, 130), never the pages read
		// as the list, nor a cut read as an answer (fresh user try 22 F2:
		// "Items: 223" of 305, "all 223 pages", a watch from there, and
		// "context canceled" in -o json).
		return ctx.Err()
	}
	if len(walk.Attempts) > 1 {
		p.Warnf("%s; restarted from page 1 once (attempt 1 stopped at page %d)", firstLine(walk.Attempts[0].Error), walk.Attempts[0].ExpiredOnPage)
	}
	if err := p.List(report); err != nil {
		return err
	}
	noteMixedServers(p, servers.SignsInWalk(walk, werr), o.serversCommand(res, q.Scope()))
	if werr != nil {
		if listing.IsContinueExpired(werr) && o.NoRestart {
			return withCode(ExitRVProblem, fmt.Errorf("%w (run without --no-restart to restart from page 1 automatically)", werr))
		}
		if listing.IsContinueExpired(werr) {
			return withCode(ExitRVProblem, fmt.Errorf("%w (it expired again after one restart: the collection is too large to list within etcd's compaction interval; list with a smaller scope or a larger --limit)", werr))
		}
		return o.requestError(werr, "list", res.Name())
	}
	if report.NoResourceVersion {
		return withCode(ExitFailure, fmt.Errorf("%s has no resourceVersion (the server sent none: it is not stored in etcd), so it has no watch window and no RV to watch from: nothing this plugin measures applies to it", res.Name()))
	}
	return nil
}

// contractFix is what to do about an answer that broke the List or Watch
// contract: no API server sends one, so something else answered.
const contractFix = "no API server answers so: check that the kubeconfig's server is the API server, and what an aggregated API or a proxy in front of it answers"

// serversCommand is "list RESOURCE --servers" in the user's context and
// scope: each server's RVs.
func (o *ListOptions) serversCommand(res apiclient.Resource, scope suggest.Scope) string {
	l, err := o.suggest.Command("list", res.Name(), scope, suggest.Bool("servers"))
	if err != nil {
		return ""
	}
	return l.String()
}

// notFound is kubectl's NotFound for a NAME that the list did not find
// (exit 9): a list narrowed to one name that holds no item.
func (o *ListOptions) notFound(res apiclient.Resource, t apiclient.Target, walk *listing.WalkResult, werr error) error {
	if o.Name == "" || werr != nil || walk.Final().ItemCount > 0 || len(walk.Final().Pages) == 0 {
		return nil
	}
	where := ""
	switch {
	case t.Namespace != "":
		where = " in namespace " + t.Namespace
	case res.Namespaced:
		where = " in any namespace"
	}
	at := walk.Final().Pages[0].ResourceVersion
	sel := ""
	if o.LabelSelector != "" || o.FieldSelector != "" {
		sel = " matching the selectors"
	}
	return withCode(ExitNotFound, fmt.Errorf("%s %q not found%s%s (the list at RV %s holds no object of that name)", res.Name(), o.Name, sel, where, at))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// firstPageSent is what a list's first page sent, for the diagnosis of
// its answer.
func firstPageSent(rv, match string) diagnose.Context {
	op := diagnose.OpList
	if rv != "" && rv != "0" && match == "Exact" {
		op = diagnose.OpListExact
	}
	return diagnose.Context{Operation: op, RequestedResourceVersion: rv, NoResourceVersionSent: rv == "", Live: true}
}
