package main

import (
	"context"
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
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
	if req == nil && d.Type != nil && !o.resourceSet {
		if res, ok := o.resourceOfType(*d.Type); ok {
			t, err := o.targetOf(res, false)
			return res, t, diagnose.RequestFromType, err
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
	if req.Name != "" {
		byName := "metadata.name=" + req.Name
		if t.FieldSelector != "" {
			byName = t.FieldSelector + "," + byName
		}
		t.FieldSelector = byName
	}
	return res, t, diagnose.RequestFromURL, nil
}

// resourceOfType is the one resource discovery serves with the Go type's
// kind at its version (ok false: none, several, or discovery failed): a
// reflector's line names its type, not its resource (fresh user try 49
// F4, 50 F5: `watch of *v1.Secret` was checked on configmaps). Several
// (*v1.Event: events and events.events.k8s.io) name none.
func (o *ExplainErrorOptions) resourceOfType(g diagnose.GoType) (apiclient.Resource, bool) {
	if _, err := o.restConfig(); err != nil {
		return apiclient.Resource{}, false
	}
	disco, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return apiclient.Resource{}, false
	}
	all, _ := apiclient.ListableResources(disco, o.ledger)
	var found []apiclient.Resource
	for _, r := range all {
		if r.Kind == g.Kind && r.GVR.Version == g.Version {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return apiclient.Resource{}, false
	}
	return found[0], true
}
