package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// rvList is the --rv value that lists first and watches from the List's RV.
const rvList = "list"

// WatchOptions opens a raw watch and shows exactly what the server sends.
type WatchOptions struct {
	*RootOptions

	Resource          string
	Name              string
	AllNamespaces     bool
	LabelSelector     string
	FieldSelector     string
	RV                string
	SendInitialEvents bool
	Bookmarks         bool
	Timeout           time.Duration
	MaxEvents         int
	Until             string
	ExplainDeletes    bool
	Follow            bool
	StallTimeout      time.Duration
	stallDefault      bool // StallTimeout is --follow's default, not the user's
	outputFlags

	rvSet bool
}

func newWatchCommand(root *RootOptions) *cobra.Command {
	return watchCommand(&WatchOptions{RootOptions: root})
}

// watchCommand wires the command and its flags to o (tests build o themselves).
func watchCommand(o *WatchOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch RESOURCE [NAME] | RESOURCE/NAME",
		Short: "Open a raw watch and show every event with its resourceVersion",
		Long: `Open a raw watch (?watch=1) and show exactly what the API server sends:
each event's type, object, UID and resourceVersion, and how that RV relates to
the start. ERROR events (and a 410 or 504 answering the request itself) are
decoded and classified: Expired (too old) or TooLarge (too new), with the fix.

--rv chooses where the watch starts:
  (unset)  the current state as ADDED events, then the changes
  0        start at any: state (possibly from an older cache), then changes
  N        exactly the changes after RV N (410 Expired once N has left the window)
  list     List first, then watch from the List's RV: the correct pattern

--follow keeps watching like client-go's Reflector: it reconnects from the last
RV seen, relists on Expired or TooLarge, and reports what a Reflector hides:
the objects added, changed or deleted while the watch was broken, the RVs
skipped, and events delivered twice.

The plugin only reads; a watch is bounded by --timeout (the whole run,
credentials included), --max-events, --until or Ctrl-C, each of which ends
with a summary. One exit rule, with and without --follow: the outcome of the
last attempt. Answered and ended as asked, however quiet: 0; never answered
by the deadline: 4; an ERROR event or HTTP status: its own code (410 and
TooLarge 10, 403 7, 500 1 ...); a stream ended at once with nothing from an
RV ahead of the server: 10.

` + exitCodesHelp,
		Example: `  # The changes after RV 12345, for 30 seconds
  kubectl watchrv watch configmaps -n demo --rv 12345 --timeout 30s

  # List, then watch from the List's RV (what an informer does)
  kubectl watchrv watch cm -n demo --rv list --max-events 10

  # A streaming list: the state, a marker when it is complete, then changes
  kubectl watchrv watch pods -A --send-initial-events --until BOOKMARK

  # Which DELETED events only mean "no longer matches the selector"
  kubectl watchrv watch pods -n web -l tier=frontend --explain-deletes

  # Behave like an informer across API server restarts, as JSON lines
  kubectl watchrv watch cm -n demo --rv list --follow -o json`,
		Args: resourceNameArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(cmd); err != nil {
				return err
			}
			return o.Run(cmd)
		},
		ValidArgsFunction: o.completeResourceName,
	}
	f := cmd.Flags()
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Watch across all namespaces")
	f.StringVarP(&o.LabelSelector, "selector", "l", "", "Label selector (e.g. -l app=web)")
	f.StringVar(&o.FieldSelector, "field-selector", "", "Field selector (e.g. --field-selector metadata.name=a)")
	f.StringVar(&o.RV, "rv", "", "Where to start: 0 (any), a number N (changes after N) or list (List first, watch from its RV); unset means state, then changes")
	f.BoolVar(&o.SendInitialEvents, "send-initial-events", false, "Ask for a streaming list (sendInitialEvents=true) and mark where the initial state ends")
	f.BoolVar(&o.Bookmarks, "bookmarks", false, "Request BOOKMARK events and show them (the initial-events-end bookmark is always shown)")
	f.DurationVar(&o.Timeout, "timeout", 0, rangeWatchTimeout.help("Stop the run after this long, the reads before the watch included (sent as timeoutSeconds and enforced here; the summary times the watch alone), e.g. 30s"))
	f.IntVar(&o.MaxEvents, "max-events", 0, "Stop after this many shown events (0 = no limit)")
	f.StringVar(&o.Until, "until", "", "Stop at the first event of this type: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR")
	f.BoolVar(&o.ExplainDeletes, "explain-deletes", false, "With a selector, check (one GET) whether each DELETED object left the selector or was deleted")
	f.BoolVar(&o.Follow, "follow", false, "Keep watching like client-go's Reflector: reconnect, relist on Expired/TooLarge, report the gaps")
	f.DurationVar(&o.StallTimeout, "stall-timeout", 0, fmt.Sprintf("Give up a watch request unanswered for this long, and close a stream that sends nothing (not even a bookmark) for as long: with --follow watch again from the last RV, else stop. Silence is a hang only where a bookmark was due (watch cache, bookmarks asked for, above 75s) (default 90s with --follow, off without) (%s)", rangeStallTimeout))
	o.outputFlags = newOutputFlags(render.FormatWide, render.FormatJSON, render.FormatYAML, render.FormatName)
	o.streamed = true
	o.addOutputFlag(f)
	return cmd
}

// Complete fills in the namespace, NAME and what was set.
func (o *WatchOptions) Complete(cmd *cobra.Command, args []string) error {
	var err error
	if o.Resource, o.Name, err = resourceArgs(cmd, args); err != nil {
		return err
	}
	o.rvSet = cmd.Flags().Changed("rv")
	if n, err := strconv.ParseUint(o.RV, 10, 64); err == nil && strings.Trim(o.RV, "0123456789") == "" {
		// The server reads --rv 0007 as 7: every line says 7 (a
		// leading zero was echoed back, fresh user try 11).
		o.RV = strconv.FormatUint(n, 10)
	}
	o.Until = strings.ToUpper(o.Until)
	if o.Follow && !cmd.Flags().Changed("stall-timeout") {
		// The watch cache sends a bookmark to every watcher about once a
		// minute, so 90 s of silence means the stream is dead; where the
		// resource has no watch cache, Run turns this off (serverinfo).
		o.StallTimeout = defaultFollowStallTimeout
		o.stallDefault = true
	}
	return nil
}

// Validate rejects bad flags with a one-line error.
func (o *WatchOptions) Validate(cmd *cobra.Command) error {
	if err := o.validateOutput(); err != nil {
		return usageErrorf(cmd, "%v", err)
	}
	if o.rvSet && o.RV != rvList {
		if err := validateRV(cmd, "rv", o.RV); err != nil {
			if o.RV != "" && strings.Trim(o.RV, "0123456789") == "" {
				return err // a number too large: validateRV says so
			}
			return usageErrorf(cmd, "--rv %q is not a start: use 0, a resourceVersion such as 12345, or list, or leave --rv out to watch from the current state (RV unset)", o.RV)
		}
	}
	if o.SendInitialEvents && o.RV == rvList {
		return usageErrorf(cmd, "--send-initial-events and --rv list both deliver the initial state: choose one")
	}
	if o.Timeout != 0 || cmd.Flags().Changed("timeout") {
		if err := rangeWatchTimeout.check(cmd, o.Timeout); err != nil {
			return err
		}
	}
	if !o.stallDefault && (o.StallTimeout != 0 || cmd.Flags().Changed("stall-timeout")) {
		if err := rangeStallTimeout.check(cmd, o.StallTimeout); err != nil {
			return err
		}
	}
	if o.MaxEvents < 0 {
		return usageErrorf(cmd, "--max-events %d is below 0: use a count such as 10, or 0 for no limit", o.MaxEvents)
	}
	if o.Until != "" {
		switch o.Until {
		case watchstream.EventAdded, watchstream.EventModified, watchstream.EventDeleted, watchstream.EventBookmark, watchstream.EventError:
		default:
			return usageErrorf(cmd, "--until %q is not an event type: use ADDED, MODIFIED, DELETED, BOOKMARK or ERROR", o.Until)
		}
		if o.Until == watchstream.EventBookmark && !o.Bookmarks && !o.SendInitialEvents {
			return usageErrorf(cmd, "--until BOOKMARK needs --bookmarks or --send-initial-events, or no bookmark is ever shown")
		}
	}
	if o.ExplainDeletes && o.LabelSelector == "" && o.FieldSelector == "" {
		return usageErrorf(cmd, "--explain-deletes needs -l or --field-selector: without a selector every DELETED is a deletion")
	}
	return validateNameSelector(cmd, o.Name, o.FieldSelector)
}

// defaultFollowStallTimeout is --stall-timeout with --follow.
const defaultFollowStallTimeout = 90 * time.Second

// fieldSelector adds NAME to --field-selector as metadata.name.
func (o *WatchOptions) fieldSelector() string {
	return nameSelector(o.Name, o.FieldSelector)
}

// watchOptions are the parameters of the first watch request.
func (o *WatchOptions) watchOptions() watchstream.Options {
	w := watchstream.Options{SendInitialEvents: o.SendInitialEvents, AllowBookmarks: o.Bookmarks || o.Follow}
	if o.rvSet && o.RV != rvList {
		w.ResourceVersion, w.RVSet = o.RV, true
	}
	if o.Timeout > 0 {
		w.TimeoutSeconds = int64(math.Ceil(o.Timeout.Seconds()))
	}
	return w
}

// describeStart is the header's account of what the watch starts with;
// in is the server's facts (nil when not read).
func (o *WatchOptions) describeStart(in *serverinfo.Info) string {
	switch {
	case o.RV == rvList:
		return "list first, then the changes after the List's RV"
	case o.SendInitialEvents:
		return "streaming list: the state, an initial-events-end bookmark, then changes"
	case !o.rvSet:
		return "RV unset: the current state as ADDED, then changes"
	case o.RV == "0":
		if said := in.WatchFromZero(); said != "" {
			return said
		}
		return "RV 0: the state as the watch cache holds it (possibly older; storage's newest where the resource has no watch cache), then changes"
	}
	return fmt.Sprintf("exactly the changes after RV %s", o.RV)
}

// verbs are what the run asks the server for, as a refusal's fix names
// them: --rv list lists first, and --follow relists after Expired.
func (o *WatchOptions) verbs() string {
	if o.RV == rvList || o.Follow {
		return "list and watch"
	}
	return "watch"
}
