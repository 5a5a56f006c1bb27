package render

import (
	"fmt"
	"strconv"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// ServersReport is the stable schema of "probe|list RESOURCE --servers -o
// json|yaml": one entry per API server, and what they mean together.
type ServersReport struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost         *Cost  `json:"cost,omitempty"`
	Resource     string `json:"resource"`
	GroupVersion string `json:"groupVersion"`
	Namespace    string `json:"namespace"`
	// Mode is probe (RVs and windows) or list (RVs only).
	Mode      string            `json:"mode"`
	Discovery servers.Found     `json:"discovery"`
	Servers   []*servers.Server `json:"servers"`
	Verdict   servers.Verdict   `json:"verdict"`
	// Requests counts every request of the run: the servers' and the
	// discovery's (EndpointSlices, leases).
	Requests int     `json:"requests"`
	Millis   float64 `json:"ms"`
	// Server is what list reads of the API server behind the kubeconfig's
	// address (serverinfo.Read), read only where whether the servers serve
	// the resource themselves decides a text (NeedsServer): the API
	// servers of one cluster serve the same resources.
	Server *serverinfo.Info `json:"server,omitempty"`
	// Interrupted is set when Ctrl-C or SIGTERM stopped the run: the rows
	// are the servers measured before the signal, and the verdict is
	// theirs only.
	Interrupted *Interruption `json:"interrupted,omitempty"`

	// ctx and scope are what the commands the verdict suggests carry
	// (seeCommands): the user's context, --endpoints included.
	ctx   suggest.Context
	scope suggest.Scope
}

// NewServersReport builds the report of one collection; ctx is the user's
// context, which the commands the verdict suggests carry.
func NewServersReport(mode string, found servers.Found, v *servers.View, ctx suggest.Context) ServersReport {
	t := v.Target
	var cut *Interruption
	if v.Interrupted {
		cut = &Interruption{Done: len(v.Servers), Of: v.Of, CutRequests: v.Cut.Requests, CutTargets: v.Cut.Servers}
	}
	return ServersReport{
		Interrupted:  cut,
		ctx:          ctx,
		scope:        suggest.Scope{Namespace: t.Namespace, AllNamespaces: t.Resource.Namespaced && t.Namespace == ""},
		Resource:     t.Resource.Name(),
		GroupVersion: t.Resource.GVR.GroupVersion().String(),
		Namespace:    t.Namespace,
		Mode:         mode,
		Discovery:    found,
		Servers:      withHints(v.Servers, t.Resource.Name()),
		Verdict:      v.Verdict,
		Requests:     v.Requests + found.Requests,
		// The view's wall time (a row of probe --all --servers); a
		// run of one view prints the run's (Printer.Servers).
		Millis: float64(v.Duration.Microseconds()) / 1000,
	}
}

// seeCommands are the commands the verdict suggests, built by pkg/suggest
// in the user's context: window, the probe that finds each server's
// oldest RV; metrics, the one that shows each server's watch cache.
type seeCommands struct {
	window, metrics string
	// notOwn: the resource is not known to be the servers' own
	// (ServersReport.notOwn): why, said where their cache would be.
	notOwn string
	// measured is "measured " when the signal cut the run: each claim of
	// the verdict is then of the servers measured before it ("every
	// measured server"), never of the fleet (adversary try 22 F4/F5);
	// "" otherwise.
	measured string
}

// every is "every NOUN" of the servers the verdict is drawn from (with
// any and no: the same, for "any" and "no").
func (see seeCommands) every(noun string) string { return "every " + see.measured + noun }
func (see seeCommands) any(noun string) string   { return "any " + see.measured + noun }
func (see seeCommands) no(noun string) string    { return "no " + see.measured + noun }

func (r ServersReport) seeCommands() seeCommands {
	line := func(flags ...suggest.Flag) string {
		l, _ := r.ctx.Command("probe", r.Resource, r.scope, flags...) // no --rv: no error
		return l.String()
	}
	see := seeCommands{
		window:  line(suggest.Bool("servers")),
		metrics: line(suggest.Bool("servers"), suggest.Bool("metrics")),
		notOwn:  r.notOwn(),
	}
	if r.Interrupted != nil {
		see.measured = "measured "
	}
	return see
}

// ServersAllReport is the schema of "probe --all --servers -o json|yaml".
type ServersAllReport struct {
	// Cost is what the run took from the API server(s) (cost.go).
	Cost      *Cost           `json:"cost,omitempty"`
	Discovery servers.Found   `json:"discovery"`
	Resources []ServersReport `json:"resources"`
	Requests  int             `json:"requests"`
	Millis    float64         `json:"ms"`
	// Interrupted is set when Ctrl-C or SIGTERM stopped the run.
	Interrupted *Interruption `json:"interrupted,omitempty"`
	// DiscoveryFailed says which group versions' discovery failed, and
	// why: their resources are not among the rows.
	DiscoveryFailed string `json:"discoveryFailed,omitempty"`
}

// Servers prints the per-server view of one collection.
func (p *Printer) Servers(r ServersReport) error {
	r.Cost, r.Millis = p.cost(), p.runMillis()
	return p.emit(oneDocument, r, func() error { return p.serversHuman(r) })
}

func (p *Printer) serversHuman(r ServersReport) error {
	fmt.Fprintln(p.Out, p.Style.Header.Sprint(serversTitle(r)))
	if err := p.tableOfRun(p.serversTable(r, false), r.Interrupted); err != nil {
		return err
	}
	if err := p.interruptedLine(r.Interrupted, "server"); err != nil {
		return err
	}
	fmt.Fprintln(p.Out)
	kv := serversVerdict(r)
	kv = append(kv, [2]string{"Requests", r.requestsText()})
	if err := KeyValues(p.Out, kv); err != nil {
		return err
	}
	// --metrics: each server's own watch cache, side by side.
	rows := make([]metricsRow, 0, len(r.Servers))
	for _, s := range r.Servers {
		rows = append(rows, metricsRow{s.Label(), s.Metrics})
	}
	return p.metricsTable("SERVER", rows)
}

// ServersAll prints one table for every resource, a server per row, and a
// verdict line only for the resources whose servers disagree.
func (p *Printer) ServersAll(r ServersAllReport) error {
	r.Cost, r.Millis = p.cost(), p.runMillis()
	return p.emit(oneDocument, r, func() error { return p.serversAllHuman(r) })
}

func (p *Printer) serversAllHuman(r ServersAllReport) error {
	cols := []string{colResource, colServer, colCurrent, colCache, colLag, colOldest, colWidth, colSource, colNote}
	t := NewTable(cols...)
	var notes []string
	for _, res := range r.Resources {
		for _, s := range res.Servers {
			c := serverCells(s, true, res.seeCommands().metrics, false)
			c[colResource] = res.Resource
			t.Row(cellsIn(cols, c)...)
			if s.Error != "" {
				t.PaintLast(columnOf(cols, colNote), p.Style.Bad.Sprint)
			}
		}
		if v := res.Verdict; v.LargestLag > 0 || v.CommonEmpty || v.Answered < v.Servers {
			notes = append(notes, res.Resource+": "+oneLineVerdict(v))
		}
	}
	if err := p.tableOfRun(t, r.Interrupted); err != nil {
		return err
	}
	if err := p.interruptedLine(r.Interrupted, "resource"); err != nil {
		return err
	}
	fmt.Fprintln(p.Out)
	if len(notes) == 0 && len(r.Resources) > 0 {
		// Drawn from the rows only: with none, no line (adversary try
		// 22 F5: "every server agrees ... on every resource" after 0 of
		// 3 resources were measured), and of the measured ones only
		// when the signal cut the run.
		agree := "every server agrees: no lag, and a common window on every resource"
		if in := r.Interrupted; in != nil {
			agree = fmt.Sprintf("of the %d resources measured before the signal (of %d), every server agrees on each: no lag, and a common window", in.Done, in.Of)
		}
		notes = []string{agree}
	}
	for _, n := range notes {
		fmt.Fprintln(p.Out, n)
	}
	p.Notef("%s on %s (%s), %s in %s", text.Count(len(r.Resources), "resource"), text.Count(len(r.Discovery.Endpoints), "server"), discoveryText(r.Discovery), text.Count(r.Requests, "request"), millis(r.Millis))
	return nil
}

func serversTitle(r ServersReport) string {
	scope := r.Resource
	if r.Namespace != "" {
		scope += " in namespace " + r.Namespace
	}
	return fmt.Sprintf("%s on %s (%s)", scope, text.Count(r.fleet(), "API server"), discoveryText(r.Discovery))
}

func discoveryText(f servers.Found) string {
	from := discoverySource(f)
	switch {
	case f.Leases == nil:
		return from // their read was cut: nothing is known of them
	case f.Leases.Error != "":
		// 20 words: an answer's status and request take 9 of them
		// (apiclient.FailureWords), its message the rest.
		return from + "; identity leases not readable: " + firstWords(f.Leases.Error, 20)
	default:
		return fmt.Sprintf("%s; %s", from, text.Count(f.Leases.Count, "kube-apiserver identity lease"))
	}
}

func (p *Printer) serversTable(r ServersReport, _ bool) *Table {
	probe := r.Mode == "probe"
	cols := []string{colServer, colCurrent, colCache, colLag, colRequests, colTime, colNote}
	if probe {
		cols = []string{colServer, colCurrent, colCache, colLag, colOldest, colWidth, colSource, colRequests, colTime, colNote}
	}
	t := NewTable(cols...)
	for _, s := range r.Servers {
		t.Row(cellsIn(cols, serverCells(s, probe, "", true))...)
		if s.LagKnown && s.Lag > 0 && s.Endpoint == r.Verdict.LargestLagServer {
			t.PaintLast(columnOf(cols, colLag), p.Style.Warn.Sprint)
		}
		if probe {
			t.PaintLast(columnOf(cols, colSource), sourcePaint(p.Style, s.Source))
		}
		if s.Error != "" {
			t.PaintLast(columnOf(cols, colNote), p.Style.Bad.Sprint)
		}
	}
	return t
}

// The columns of the per-server tables; each table picks its own, by name.
const (
	colResource = "RESOURCE"
	colServer   = "SERVER"
	colCurrent  = "CURRENT RV"
	colCache    = "CACHE RV"
	colLag      = "LAG"
	colOldest   = "OLDEST RV"
	colWidth    = "WIDTH"
	colSource   = "SOURCE"
	colRequests = "REQUESTS"
	colTime     = "TIME"
	colNote     = "NOTE"
)

// cellsIn lays out the cells of one row in the order of cols.
func cellsIn(cols []string, cells map[string]string) []string {
	row := make([]string, len(cols))
	for i, c := range cols {
		row[i] = cells[c]
	}
	return row
}

// columnOf is the index of a column in cols (len(cols) when absent:
// PaintLast then paints nothing).
func columnOf(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return len(cols)
}

// serverCells are one server's cells, by column. seeMetrics is the command
// that shows each server's watch cache, for a row of --all (no verdict
// below it names one); "" for the view of one resource, whose verdict does.
// timeCol: the table has a TIME column, which the row's retries are said
// not to be in (fresh user try 42 F6: "not in TIME" in --all's table,
// which has none).
func serverCells(s *servers.Server, probe bool, seeMetrics string, timeCol bool) map[string]string {
	rv := func(known bool, n uint64) string {
		if !known {
			return "?"
		}
		return strconv.FormatUint(n, 10)
	}
	lag := rv(s.LagKnown, s.Lag)
	if s.LagKnown && s.LagAgainst != "" {
		lag += "*"
	}
	source := s.Source
	if !probe || s.Source == "" || (!s.WindowKnown && s.Source == "unknown" && s.Error != "") {
		// Not measured: "-", alike on every row of the server (fresh user
		// try 17: blank on the rows of a server not dialled again).
		source = "-"
	}
	note := ""
	if s.Error != "" {
		note = diagnose.Prefixed(s.Reason, s.Error)
		if s.Hint != "" {
			note += " (hint: " + s.Hint + ")"
		}
		if s.LagAgainst != "" {
			note = "*lag against the " + s.LagAgainst + "; " + note
		}
	} else if s.LagAgainst != "" {
		note = "*lag against the " + s.LagAgainst
	}
	note = withServerRetries(note, s, timeCol)
	cache := rv(s.CacheKnown, s.CacheRV)
	if s.CacheKnown || s.WatchCache == servers.CacheOff {
		see := "the command with --metrics in the verdict below"
		if seeMetrics != "" {
			see = seeMetrics
		}
		note = joinNote(cacheNote(s.WatchCache, s.WatchCacheWhy, see), note)
	}
	if s.WatchCache == servers.CacheOff {
		// Its rv=0 list read storage: that RV is no cache's, and no lag.
		cache, lag = "none", "-"
	}
	return map[string]string{
		colServer: s.Label(), colCurrent: rv(s.CurrentKnown, s.CurrentRV), colCache: cache, colLag: lag,
		colOldest: rv(s.WindowKnown, s.Oldest), colWidth: rv(s.WindowKnown, s.Width), colSource: source,
		colRequests: strconv.Itoa(s.Requests), colTime: millis(s.Millis), colNote: note,
	}
}

// discoverySource says where the servers' addresses came from.
func discoverySource(f servers.Found) string {
	if f.From == servers.FromFlag {
		return "from --endpoints"
	}
	return "from the kubernetes EndpointSlices"
}

// cacheNote is what a server row's CACHE RV is, by whether the server has
// a watch cache for the resource (servers.Server.WatchCache): the one
// wording of every per-server table (list, probe, explain-error --check).
// see names what would tell, where nothing read did.
func cacheNote(state, why, see string) string {
	switch state {
	case servers.CacheOff:
		return "no watch cache for this resource: " + why + "; it reads storage, always current"
	case servers.CacheOn:
		return ""
	}
	// An rv=0 list is the watch cache's answer only where the resource
	// has one; nothing this run read says whether it has.
	return "CACHE RV is its rv=0 list's RV: the watch cache's if the resource has one, storage's if not (not known here: " + see + " shows which)"
}

// joinNote puts first before the rest of a row's note.
func joinNote(first, rest string) string {
	switch {
	case first == "":
		return rest
	case rest == "":
		return first
	}
	return first + "; " + rest
}
