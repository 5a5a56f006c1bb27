package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// historyLength is how many intervals a row's sparkline shows.
const historyLength = 20

// sampled is one server's read of one refresh; sent: its request was
// sent (not a server without a client, nor one not asked again).
type sampled struct {
	sample *top.Sample
	err    error
	sent   bool
}

// Run reads every server's /metrics, --interval apart, and prints each
// interval: once, or refreshing on a terminal until Ctrl-C.
func (o *TopOptions) Run(ctx context.Context) error {
	p := o.Printer(o.Output)
	o.warnNamespaceNotApplied(p, "top counts every namespace: /metrics counts per resource type, not per namespace")
	fleet, found, err := o.topFleet(ctx)
	if err != nil {
		return err
	}
	only, err := o.topResources(ctx)
	if err != nil {
		return err
	}
	bounds, err := o.topBounds(ctx)
	if err != nil {
		return err
	}
	once := o.once(p)
	kinds := o.kindResources()
	history := top.NewHistory(historyLength)
	sampler := &topSampler{clock: clock.RealClock{}, interval: o.Interval, read: func() []sampled { return readFleet(ctx, fleet, kinds) }}
	prev, err := sampler.sample(ctx)
	if err != nil {
		return err
	}
	for refresh := 1; ; refresh++ {
		cur := prev
		second := refresh > 1 || !everyReadFailed(prev)
		if second {
			// (When no server answered the first read, a second would
			// take its time bound again to the same end: adversary try
			// 14, a trickled /metrics took twice --request-timeout.)
			if cur, err = sampler.sample(ctx); err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The reads each server was sent for this interval: both samples
		// on the first, unless no second was sent (adversary try 16: 2
		// counted, 1 sent).
		srvs, errs := buildServers(fleet, prev, cur, only, refresh == 1 && second)
		report := top.Assemble(srvs, o.Interval, o.Sort, refresh)
		if o.Check {
			report.Checks = top.CheckBounds(report, bounds)
			for i := range report.Checks {
				report.Checks[i].Flag = checkFlag(report.Checks[i])
			}
		}
		if refresh == 1 && len(srvs) == 1 && errs[0] != nil {
			// One server, not read: the error says it all.
			return o.topExit(report, errs)
		}
		o.suggestProbes(report)
		history.Add(report)
		if err := p.Top(render.TopReport{Report: report, Discovery: found, History: history, Live: !once, Clear: !once, Limit: o.Limit}); err != nil {
			return err
		}
		if once || (refresh == 1 && allFailed(errs)) {
			return o.topExit(report, errs)
		}
		prev = cur
	}
}

// topFleet is the servers read: every server (--servers, --endpoints), or
// the kubeconfig's.
func (o *TopOptions) topFleet(ctx context.Context) (*servers.Fleet, *servers.Found, error) {
	if o.serversOn() {
		fleet, err := o.findServers(ctx, &o.serversFlags, apiclient.NewBudget(0, 0))
		if err != nil {
			return nil, nil, err
		}
		return fleet, &fleet.Found, nil
	}
	cfg, err := o.restConfig()
	if err != nil {
		return nil, nil, err
	}
	client, err := o.Client()
	if err != nil {
		return nil, nil, err
	}
	return &servers.Fleet{Members: []servers.Member{{Endpoint: text.RedactURL(cfg.Host), Client: client}}}, nil, nil
}

// readFleet reads every server's /metrics at once (top.Read, one GET each).
// everyReadFailed: no server answered reads (allFailed of their errors).
func everyReadFailed(reads []sampled) bool {
	errs := make([]error, len(reads))
	for i, r := range reads {
		errs[i] = r.err
	}
	return allFailed(errs)
}

// A server that gave no answer to a read is not asked again in the run
// (servers.AskUnlessSilent): its row says so, and the interval is not
// held for its time bound a second time.
func readFleet(ctx context.Context, fleet *servers.Fleet, kinds top.KindResources) []sampled {
	out := make([]sampled, len(fleet.Members))
	fleet.Each(ctx, apiclient.NewBudget(0, 0), 0, func(ctx context.Context, i int, m servers.Member, _ *apiclient.Budget) {
		var s *top.Sample
		sent := false
		err := servers.AskUnlessSilent(ctx, m.Endpoint, func() (err error) {
			sent = true
			s, err = top.Read(ctx, m.Client, kinds)
			return err
		})
		out[i] = sampled{sample: s, err: err, sent: sent}
	}, func(i int, m servers.Member) {
		out[i] = sampled{err: m.Err}
	})
	return out
}

// buildServers pairs each server's two reads into its interval; errs are
// the failures by server (nil where both reads were answered). both: the
// first sample was read for this interval too (the first refresh, when
// its second was asked for), so its request counts here.
func buildServers(fleet *servers.Fleet, prev, cur []sampled, only []schema.GroupResource, both bool) ([]*top.Server, []error) {
	out := make([]*top.Server, len(fleet.Members))
	errs := make([]error, len(fleet.Members))
	for i, m := range fleet.Members {
		reads := 0
		if cur[i].sent {
			reads++
		}
		if both && prev[i].sent {
			reads++
		}
		s := &top.Server{Index: i + 1, Endpoint: m.Endpoint, First: prev[i].sample, Second: cur[i].sample, ReadRequests: reads}
		err := cur[i].err
		if err == nil {
			err = prev[i].err
		}
		if err != nil {
			errs[i] = err
			// Top reads only /metrics: its row says a failed answer as
			// every note of /metrics does (metrics.FailureWords).
			s.Err, s.Reason, s.Fix = metrics.FailureWords(err), sweep.Reason(err), topServerFix(err)
			s.First, s.Second = nil, nil
		}
		s.Build(only)
		out[i] = s
	}
	return out, errs
}

// topServerFix is the fix for one server of several that could not be
// read, by its failure (pkg/diagnose's classes).
func topServerFix(err error) string {
	if servers.IsNotIP(err) {
		return render.NotIPFix
	}
	if apiclient.HandshakeCut(err) {
		return apiclient.HandshakeFix
	}
	if fix := render.ConnectionFix(err); fix != "" {
		return fix
	}
	switch diagnose.ClassifyFailure(err) {
	case diagnose.FailureUnauthorized:
		return "this server rejected the kubeconfig's credentials: refresh the token or choose another --user/--context"
	case diagnose.FailureForbidden:
		return "reading /metrics needs " + metricsNeeds
	case diagnose.FailureNoAnswer, diagnose.FailureTimeout:
		return "no answer within the request timeout: raise --request-timeout, or check the server"
	case diagnose.FailureThrottled:
		return render.ThrottledFix(err)
	}
	return ""
}

// allFailed: no server was read (a live view that can show nothing ends).
func allFailed(errs []error) bool {
	for _, err := range errs {
		if err == nil {
			return false
		}
	}
	return true
}

// topResources resolves RESOURCE... through discovery.
func (o *TopOptions) topResources(ctx context.Context) ([]schema.GroupResource, error) {
	var out []schema.GroupResource
	for _, arg := range o.resources {
		r, err := o.resolveResource(ctx, arg)
		if err != nil {
			return nil, err
		}
		out = append(out, r.GVR.GroupResource())
	}
	return out, nil
}

// topBounds resolves the --check bounds.
func (o *TopOptions) topBounds(ctx context.Context) (top.Bounds, error) {
	b := top.Bounds{Watchers: map[string]top.WatcherBound{}}
	given := map[schema.GroupResource]watcherFlag{}
	for _, w := range o.watchers {
		wb := top.WatcherBound{Given: w.resource, Max: w.max}
		if w.resource != "" {
			r, err := o.resolveResource(ctx, w.resource)
			if err != nil {
				return b, withFlagName(err, "--max-watchers "+strconv.Quote(w.given))
			}
			wb.GR = r.GVR.GroupResource()
		}
		// Two bounds of one resource (services=1 and svc=2, or N twice):
		// which one holds would be a guess, so neither is taken.
		if before, ok := given[wb.GR]; ok {
			what := "every resource"
			if !wb.GR.Empty() {
				what = wb.GR.String()
			}
			return b, withCode(ExitUsage, fmt.Errorf("--max-watchers %s and --max-watchers %s both bound %s: give one bound per resource", before, w, what))
		}
		given[wb.GR] = w
		b.Watchers[w.resource] = wb
	}
	if o.MaxTerminated >= 0 {
		b.Terminated = ptrFloat(float64(o.MaxTerminated))
	}
	if o.MaxStorageListRatio >= 0 {
		b.StorageListRatio = ptrFloat(o.MaxStorageListRatio)
	}
	if o.MaxRejected >= 0 {
		b.Rejected = ptrFloat(float64(o.MaxRejected))
	}
	return b, nil
}

func ptrFloat(f float64) *float64 { return &f }

// kindResources maps a watch event's kind to its resource through
// cli-runtime's RESTMapper (kubectl's discovery cache), built on first use:
// only servers before v1.34 label watch events by kind.
func (o *TopOptions) kindResources() top.KindResources {
	var (
		once   sync.Once
		mapper meta.RESTMapper
		mu     sync.Mutex
		known  = map[schema.GroupKind]string{}
	)
	return func(group, kind string) (string, bool) {
		once.Do(func() { mapper, _ = o.ConfigFlags.ToRESTMapper() })
		if mapper == nil {
			return "", false
		}
		gk := schema.GroupKind{Group: group, Kind: kind}
		mu.Lock()
		defer mu.Unlock()
		if r, ok := known[gk]; ok {
			return r, r != ""
		}
		m, err := mapper.RESTMapping(gk)
		r := ""
		if err == nil {
			r = m.Resource.Resource
		}
		known[gk] = r
		return r, r != ""
	}
}

// topExit is the exit code of one printed interval: a crossed bound (14)
// first, then the partial-failure rule of every run over several targets,
// then a bound that could not be checked (1).
func (o *TopOptions) topExit(r *top.Report, errs []error) error {
	var crossed, unchecked []string
	for _, c := range r.Checks {
		switch {
		case !c.Checked():
			unchecked = append(unchecked, c.Flag+" ("+c.Note+")")
		case c.Crossed:
			crossed = append(crossed, fmt.Sprintf("%s: %s", c.Flag, c.Where))
		}
	}
	if len(crossed) > 0 {
		// The crossed bound decides the code (14); one not checked is
		// still said, for a job that reads only this line.
		also := ""
		if len(unchecked) > 0 {
			also = fmt.Sprintf("; and %s not checked: %s", text.Count(len(unchecked), "bound"), strings.Join(unchecked, "; "))
		}
		// Every error line ends with a fix (fresh user try 15).
		return withCode(ExitCheck, fmt.Errorf("--check: %s crossed: %s%s: find who adds the load with the clients command on the API server's audit log (docs/clients.md), or raise the bound where this load is expected", text.Count(len(crossed), "bound"), strings.Join(crossed, "; "), also))
	}
	var failures []sweep.Failure
	for i, err := range errs {
		if err != nil {
			failures = append(failures, sweep.Failure{Name: fmt.Sprintf("server %d %s", i+1, r.Servers[i].Endpoint), Reason: r.Servers[i].Reason, Err: err})
		}
	}
	if len(r.Servers) == 1 && len(failures) == 1 {
		return o.metricsError(failures[0].Err, r.Servers[0].Endpoint)
	}
	if err := sweep.Partial("API server", len(r.Servers), failures); err != nil {
		return sweep.SeeAt(sweep.ReadAs(err, sweep.Read{Verb: "get", What: "/metrics", Needs: metricsNeeds}), topFailuresShown)
	}
	if len(unchecked) > 0 {
		return withCode(ExitFailure, fmt.Errorf("--check: %s could not be checked: %s: drop the bound where the server does not measure what it reads (a family not exposed, a resource without a watch cache), or read a longer --interval where a counter went down or a server restarted", text.Count(len(unchecked), "bound"), strings.Join(unchecked, "; ")))
	}
	return nil
}

// topFailuresShown is where top's output names each server it could not
// read (it has no NOTE column).
const topFailuresShown = `the "server N ...: not read" lines above the table`

// checkFlag is a bound as the user gave it: "--max-watchers services=320".
func checkFlag(c top.Check) string {
	max := strconv.FormatFloat(c.Max, 'f', -1, 64)
	if c.Resource != "" {
		max = c.Resource + "=" + max
	}
	return "--max-" + c.Bound + " " + max
}

// metricsNeeds is what top's read of /metrics needs: the one source of
// its rows' hint, the one-server line and the none-measured line (adversary
// try 29 F6: "it needs RBAC permission to list and watch them").
const metricsNeeds = `a ClusterRole with nonResourceURLs ["/metrics"], verbs ["get"], bound to this user`

// metricsError is a failed read of /metrics of server (its endpoint) in
// the plugin's words.
func (o *TopOptions) metricsError(err error, server string) error {
	switch diagnose.ClassifyFailure(err) {
	case diagnose.FailureForbidden:
		// Named as every command's 403 is: the server, the request and
		// the status, then the server's words (adversary try 35 F4).
		// apiclient.AnswerWords: the one way an answer is said, as the
		// --endpoints line says it (fresh user try 36 F3).
		said, _ := apiclient.AnswerWords("the API server at "+text.RedactURL(server), "get", "/metrics", err)
		return withCode(ExitForbidden, &worded{msg: "forbidden: " + said + ": top reads GET /metrics, which needs " + metricsNeeds, err: err})
	case diagnose.FailureUnbounded:
		// The request is named short, without its server
		// (apiclient.RequestName: "GET /metrics (21 families)"): the
		// line names the server.
		return fmt.Errorf("the API server at %s: %w", server, err)
	}
	if !o.serversOn() {
		return o.requestError(err, "get", "/metrics") // the kubeconfig's server
	}
	return o.requestErrorAt(err, server, "get", "/metrics")
}

// suggestProbes sets the command of each callout a probe answers: a probe
// of its resource in every namespace (top counts them all), in the user's
// context (pkg/suggest).
func (o *TopOptions) suggestProbes(r *top.Report) {
	for i := range r.Callouts {
		c := &r.Callouts[i]
		if !c.Probe || c.Resource == "" {
			continue
		}
		if l, err := o.suggest.Command("probe", c.Resource, suggest.Scope{AllNamespaces: true}); err == nil {
			c.Command = l.String()
		}
	}
}
