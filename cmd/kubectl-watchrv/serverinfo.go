package main

import (
	"context"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// serverInfo reads what the plugin knows of the server for group/resource
// (serverinfo.Read: /version and a few families of /metrics, or the facts
// cache; bounded to 10 s): the texts that depend on the server are chosen
// from it.
func (o *RootOptions) serverInfo(ctx context.Context, group, resource string) *serverinfo.Info {
	client, err := o.Client()
	if err != nil {
		return serverinfo.Build("", 0, nil, "server not read: "+err.Error(), serverinfo.Name(group, resource))
	}
	return o.readServerInfo(ctx, client, group, resource)
}

// serverInfoOf is serverInfo of a resource named "resource.group".
func (o *RootOptions) serverInfoOf(ctx context.Context, name string) *serverinfo.Info {
	group, resource := serverinfo.SplitName(name)
	return o.serverInfo(ctx, group, resource)
}

// readServerInfo is every command's read of the server's facts but
// explain-error --check's (ReadWhole: cutFacts). nil when the run was cut
// (Ctrl-C, SIGTERM) while it read them: what a read the signal cut got is
// the signal's, not the server's (list printed "/metrics not read (...:
// interrupt signal received)" and its gates as assumed: adversary try 23
// F6), so it is no facts at all, as apiclient.Unanswered makes a cut
// request no outcome; the run then prints what was answered before the
// signal and ends "interrupted", 130.
func (o *RootOptions) readServerInfo(ctx context.Context, client *apiclient.Client, group, resource string) *serverinfo.Info {
	rctx, cancel := context.WithTimeout(ctx, metrics.SideReadWait)
	defer cancel()
	in := serverinfo.Read(rctx, client, group, resource, o.factsCache())
	if cutFacts(ctx) {
		return nil
	}
	return in
}

// cutFacts: the run whose context is run was cut while the facts were
// read (readServerInfo).
func cutFacts(run context.Context) bool { return apiclient.Cut(run) }

// factsAt holds the facts in (of group/resource) to listRV, the RV of a
// consistent list of the resource this run made anyway
// (serverinfo.Cache.SeenRV: no request): an RV below one kept with facts
// at this address is another storage's, which is said on stderr, and facts
// that may be the other server's are read again (fresh user try 22 #2: the
// list RV went from 788 back to 632, and facts of the server before were
// used). listRV is only ever an RV of an answer that kept the List
// contract (render.ListReport.StorageRV, listing.List's page): one the
// run refuses says nothing of the storage (adversary try 23 F5).
func (o *RootOptions) factsAt(ctx context.Context, p *render.Printer, client *apiclient.Client, in *serverinfo.Info, group, resource, listRV string) *serverinfo.Info {
	cache := o.factsCache()
	back := cache.SeenRV(in, listRV)
	if back == nil {
		return in
	}
	p.Warnf("%s", back.Text())
	if !back.Dropped {
		return in
	}
	in = o.readServerInfo(ctx, client, group, resource)
	cache.SeenRV(in, listRV)
	return in
}

// ownerFacts are the facts of res for a command that names who serves it
// and reads no facts otherwise (probe, --servers), where only they can
// tell that this API server serves it itself (need: render's
// NeedsServer): the same facts, from the same cache, as list's
// (serverinfo.ServesSeen), so that no two commands name its server
// differently (fresh user try 22 #9). listRV is the RV of a consistent
// list of it the run made ("" for none): factsAt.
func (o *RootOptions) ownerFacts(ctx context.Context, p *render.Printer, client *apiclient.Client, res apiclient.Resource, listRV string) *serverinfo.Info {
	in := o.readServerInfo(ctx, client, res.GVR.Group, res.GVR.Resource)
	return o.factsAt(ctx, p, client, in, res.GVR.Group, res.GVR.Resource, listRV)
}

// factsCache keeps the server's facts between runs beside kubectl's
// discovery cache (--cache-dir), keyed by the server's URL and, within it,
// by the server (serverinfo.Cache).
func (o *RootOptions) factsCache() *serverinfo.Cache {
	cfg, err := o.restConfig()
	if err != nil || o.ConfigFlags.CacheDir == nil {
		return nil
	}
	return &serverinfo.Cache{Dir: *o.ConfigFlags.CacheDir, Server: cfg.Host}
}

// streamingRefused turns the 422 of a server without streaming lists into
// what it means: the request is fine, the server lacks the feature (exit
// 1, not 2: nothing in the user's input is wrong). nil for other errors.
// resource ("resource.group") is the one refused: its server's gate is the
// one that tells, which is this one's only for its own resources.
func (o *RootOptions) streamingRefused(err error, server, resource string) error {
	if !diagnose.IsWatchListRefused(err) {
		return nil
	}
	in := o.serverInfoOf(context.Background(), resource)
	return withCode(ExitFailure, fmt.Errorf("%s refused the streaming list: %w: %s", server, err, in.StreamingRefusedHint()))
}
