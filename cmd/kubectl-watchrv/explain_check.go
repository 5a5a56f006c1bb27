package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// checkNow asks the kubeconfig's server the one question of --check
// (servers.Repeat, the same one --servers asks every server): the request
// the error came from, once. Only what was tried is claimed; nothing is
// tried for an Expired RV ahead of the current one. err is the request's
// own failure (a 403, no connection, a credential plugin's), with its
// class: the command exits with its code, as any other request's.
// try bounds its watch (RootOptions.watchAnswerBound).
func checkNow(ctx context.Context, c *apiclient.Client, t apiclient.Target, d diagnose.Diagnosis, requested, current string, try probe.TryOptions) (tried *diagnose.Tried, err error) {
	want, ok := rv.Parse(requested)
	cur, ok2 := rv.Parse(current)
	q, ask := servers.QuestionOf(d, want)
	q.Current = cur
	if !ok || !ok2 || !ask || (d.Class == diagnose.ClassExpired && want > cur) {
		return nil, nil
	}
	rep := servers.Repeat(ctx, c, t, q, apiclient.NewBudget(0, 0), try)
	return rep.Tried, rep.Err
}

// checkTarget is the collection --check asks, and how it was chosen
// (diagnose.RequestFrom*): the one the error's URL names (d.Request: its
// resource, namespace, name and selectors), else --resource in the current
// namespace. Only the URL's, or one the user named with --resource, is
// the error's own request: a watch cache's window is one resource's, so
// what another resource's answers says nothing of it (adversary try 48
// F1: a pods watch in namespace foo was checked as a configmaps watch in
// default, and called "the same request"). A --resource or -n that names
// another collection than the URL is refused: the check asks one.
func (o *ExplainErrorOptions) checkTarget(ctx context.Context, d diagnose.Diagnosis, verbs ...string) (apiclient.Resource, apiclient.Target, string, error) {
	req := d.Request
	if req == nil && d.Type != nil {
		fits := o.resourcesOfType(*d.Type)
		o.typeFits = nil
		for _, r := range fits {
			o.typeFits = append(o.typeFits, text.Echo(r.Name())) // a server's name: bounded
		}
		switch {
		case o.resourceSet && len(fits) > 0:
			// The one rule of a URL's request: a --resource that names
			// another resource than the text's is refused (adversary
			// try 51 F14: it was used silently for *v1.ConfigMap).
			mine, err := o.resolveResource(ctx, o.Resource, verbs...)
			if err != nil {
				return mine, apiclient.Target{}, "", err
			}
			if !slices.ContainsFunc(fits, func(r apiclient.Resource) bool { return r.GVR == mine.GVR }) {
				return mine, apiclient.Target{}, "", withCode(ExitUsage, fmt.Errorf("--resource %s names another resource than the error's Go type %s (%s): --check asks the error's own request; drop --resource", text.Echo(o.Resource), d.Type, strings.Join(o.typeFits, ", ")))
			}
		case len(fits) == 1 && !o.resourceSet:
			t, err := o.targetOf(fits[0], false)
			return fits[0], t, diagnose.RequestFromType, err
		}
	}
	if req == nil {
		res, err := o.resolveResource(ctx, o.Resource, verbs...)
		if err != nil {
			return res, apiclient.Target{}, "", err
		}
		t, err := o.targetOf(res, false)
		from := diagnose.RequestFromDefault
		if o.resourceSet {
			from = diagnose.RequestFromFlag
		}
		return res, t, from, err
	}
	res, err := o.resolveResource(ctx, req.GroupResource(), verbs...)
	if err != nil {
		return res, apiclient.Target{}, "", err
	}
	named := res.Name()
	if req.Namespace != "" {
		named += " in namespace " + req.Namespace
	}
	if o.resourceSet {
		mine, err := o.resolveResource(ctx, o.Resource, verbs...)
		if err != nil {
			return res, apiclient.Target{}, "", err
		}
		if mine.GVR.GroupResource() != res.GVR.GroupResource() {
			return res, apiclient.Target{}, "", withCode(ExitUsage, fmt.Errorf("--resource %s names another resource than the request in the error (%s): --check asks the error's own request; drop --resource", text.Echo(o.Resource), named))
		}
	}
	t := apiclient.Target{Resource: res, LabelSelector: req.LabelSelector, FieldSelector: req.FieldSelector}
	if !res.Namespaced && req.Namespace != "" {
		// No API server answers it (404): asked without the namespace,
		// it would be another request (adversary try 49 F3).
		return res, t, "", withCode(ExitUsage, fmt.Errorf("the error's URL names namespace %q for %s, which are cluster-scoped: no API server serves that request, so --check cannot ask it again; check the URL", text.Echo(req.Namespace), res.Name()))
	}
	if res.Namespaced {
		if err := apiclient.ValidateNamespace(req.Namespace); req.Namespace != "" && err != nil {
			return res, t, "", withCode(ExitUsage, fmt.Errorf("the error's URL names namespace %q: %w", text.Echo(req.Namespace), err))
		}
		t.Namespace = req.Namespace
		if ns, explicit, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace(); err == nil && explicit && ns != req.Namespace {
			scope := "all namespaces"
			if req.Namespace != "" {
				scope = "namespace " + req.Namespace
			}
			return res, t, "", withCode(ExitUsage, fmt.Errorf("-n %s names another namespace than the request in the error (%s, %s): --check asks the error's own request; drop -n", text.Echo(ns), res.Name(), scope))
		}
	}
	// The one object the URL watches, by the API's own escaping (the
	// API server escapes it so: adversary try 51 F4, a ClusterRole
	// "adv51:a,b" was an invalid selector).
	t.FieldSelector = nameSelector(req.Name, t.FieldSelector)
	return res, t, diagnose.RequestFromURL, nil
}

// resourcesOfType are the resources discovery serves with the Go type's
// kind at its version (none when discovery failed): a reflector's line
// names its type, not its resource (fresh user try 49 F4, 50 F5: `watch
// of *v1.Secret` was checked on configmaps). Only one is the error's;
// several (*v1.Event: events and events.events.k8s.io) name none, and the
// note says which they are (adversary try 51 F5).
func (o *ExplainErrorOptions) resourcesOfType(g diagnose.GoType) []apiclient.Resource {
	if _, err := o.restConfig(); err != nil {
		return nil
	}
	disco, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil
	}
	all, _ := apiclient.ListableResources(disco, o.ledger)
	var found []apiclient.Resource
	for _, r := range all {
		if r.Kind == g.Kind && r.GVR.Version == g.Version {
			found = append(found, r)
		}
	}
	return found
}

// check reads the current RV of the collection checkTarget chooses (a
// consistent list of one item, metadata only), compares it with the
// error's RV, and asks the error's request again (checkNow).
func (o *ExplainErrorOptions) check(ctx context.Context, d diagnose.Diagnosis) (diagnose.Check, error) {
	res, t, from, err := o.checkTarget(ctx, d, "list")
	if err != nil {
		return diagnose.Check{}, err
	}
	client, err := o.Client()
	if err != nil {
		return diagnose.Check{}, err
	}
	current, _, err := listing.CurrentRV(ctx, client, t, listing.CurrentOptions{})
	if _, why := probe.StorageRV(current); err == nil && diagnose.BrokeContract(why) {
		// The one rule of a measured RV: "0" is no current RV to
		// compare the error's with.
		err = why
	}
	if err != nil {
		return diagnose.Check{}, o.requestError(err, "list", res.Name())
	}
	requested := d.RequestedResourceVersion
	if o.RV != "" {
		requested = o.RV
	}
	now := diagnose.Now{ResourceVersion: current}
	if d.Class == diagnose.ClassTooLarge || diagnose.NamesWatchAnswerer(d.Kind) {
		// A TooLarge verdict rests on who served the read: named from what
		// is known of the server (version, gates, the resource's watch
		// cache) by the rule list uses (serverinfo.ListServed); a check
		// reads the server's facts whole, even where /metrics ignores
		// name[]. A text that names who answered (the watch cache, or
		// storage where there is none) is weighed by whether this server
		// has a watch cache for the resource now: one read for both.
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		in := serverinfo.ReadWhole(rctx, client, res.GVR.Group, res.GVR.Resource)
		cancel()
		if cutFacts(ctx) {
			return diagnose.Check{}, ctx.Err()
		}
		if d.Class == diagnose.ClassTooLarge {
			now.Storage, now.ServedBy = in.StorageName(), "served by "+in.ListServed("", "", 1).First
		}
		if diagnose.NamesWatchAnswerer(d.Kind) || d.Class == diagnose.ClassTooLarge {
			// A TooLarge verdict names a watch cache's lag only where one
			// serves (CompareNow); Reconcile weighs it against the text
			// only for the words that name who answered.
			now.NoWatchCache, now.WatchCache = in.WatchCache == serverinfo.No, in.WatchCache == serverinfo.Yes
		}
	}
	var tried *diagnose.Tried
	if !d.Request.GetOfOne() {
		tried, err = checkNow(ctx, client, t, d, requested, current, o.watchAnswerBound(probe.TryOptions{}))
	}
	c := diagnose.CompareNow(d, requested, now, tried)
	if d.Request.GetOfOne() {
		c.Untried = d.Request.UntriedGet()
		c.Verdict += "; " + c.Untried
	}
	c.Resource, c.Namespace, c.RequestFrom = res.Name(), t.Namespace, from
	if d.Request != nil && d.Request.Host != "" {
		if cfg, err := o.restConfig(); err == nil {
			if mine := hostPort(cfg.Host); mine != "" && hostPort(d.Request.Host) != mine {
				c.TextServer, c.CheckedServer = d.Request.Host, mine
			}
		}
	}
	if err != nil {
		// What was tried is shown; the exit is the request's failure.
		return c, o.requestError(err, "list and watch", res.Name())
	}
	return c, nil
}

// hostPort is a server's host:port, lowercased, with the scheme's default
// port where none is given (https: 443): two forms of one address compare
// equal.
func hostPort(server string) string {
	if !strings.Contains(server, "://") {
		server = "https://" + server
	}
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80"}[u.Scheme]
		if port == "" {
			port = "443"
		}
	}
	return strings.ToLower(net.JoinHostPort(u.Hostname(), port))
}
