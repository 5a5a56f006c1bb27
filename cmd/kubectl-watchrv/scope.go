package main

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/spf13/cobra"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
)

// resourceScope is what probe and streaming share: one RESOURCE or --all,
// and the namespace they look in.
type resourceScope struct {
	Resource      string
	All           bool
	AllNamespaces bool

	namespace string
	// namespaceExplicit: -n was given, so --all stays in that namespace.
	namespaceExplicit bool
}

// completeScope fills in RESOURCE and the namespace of -n.
func (o *RootOptions) completeScope(s *resourceScope, args []string) error {
	if len(args) == 1 {
		s.Resource = args[0]
	}
	// --all stays in the namespace of -n (checked before Complete) and
	// reads every namespace without it; one RESOURCE reads its namespace
	// through targetOf.
	if f := o.ConfigFlags.Namespace; f != nil && *f != "" {
		s.namespace, s.namespaceExplicit = *f, true
	}
	return nil
}

// allTarget is the collection of res in the scope of --all: one namespace
// only when -n was given (and not -A).
func (s *resourceScope) allTarget(res apiclient.Resource) apiclient.Target {
	t := apiclient.Target{Resource: res}
	if res.Namespaced && s.namespaceExplicit && !s.AllNamespaces {
		t.Namespace = s.namespace
	}
	return t
}

// listableResources is every resource of discovery that supports list and
// watch (--all); a partly failed discovery is a warning, a wholly failed
// one the error.
func (o *RootOptions) listableResources(p *render.Printer) ([]apiclient.Resource, error) {
	// Discovery builds its own rest.Config: the kubeconfig's header
	// values are checked first, as every request's are (restConfig).
	if _, err := o.restConfig(); err != nil {
		return nil, err
	}
	disco, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil, o.kubeconfigError(err)
	}
	// kubectl's disk cache (~/.kube/cache/discovery/HOST_PORT, 6 h) is
	// keyed by address only: after an upgrade or downgrade in place it
	// lists resources the server no longer serves, and each would be a
	// failed row (404). An --all run asks the server what it serves (the
	// aggregated discovery: two requests) and writes the cache anew.
	disco.Invalidate()
	resources, derr := apiclient.ListableResources(disco, o.ledger)
	derr = o.ledger.InServersWords(derr)
	if len(resources) == 0 {
		if derr == nil {
			derr = errors.New("discovery lists no resource that supports list and watch")
		}
		return nil, o.requestError(derr, "get", apiclient.DiscoveryWhat(derr))
	}
	if derr != nil {
		p.Warnf("part of discovery failed (%v): the resources of the failing groups are missing", diagnose.WithoutLibraryWords(text.OneLine(derr.Error())))
		o.discoveryPartial = derr
	}
	return resources, nil
}

// discoveryFailed is, for an --all run's report (-o json|yaml:
// "discoveryFailed"), the part of discovery that failed ("" when none):
// the document must say the run is partial, not only stderr and the exit
// code (adversary try 14: "failed": 0, apps/v1 named nowhere).
func (o *RootOptions) discoveryFailed() string {
	if o.discoveryPartial == nil {
		return ""
	}
	return diagnose.WithoutLibraryWords(text.OneLine(o.discoveryPartial.Error()))
}

// allOutcome is the error of an --all run whose own outcome is err: a run
// that read part of discovery only covered only part of the resources, so
// it is partial (exit 12) where it would have succeeded (adversary try 12:
// probe --all exited 0, "0 failed", with every core resource missing).
func (o *RootOptions) allOutcome(err error) error {
	if err != nil || o.discoveryPartial == nil {
		return err
	}
	return withCode(ExitPartial, fmt.Errorf("part of discovery failed, so the resources of the failing group versions were not read (%v): the verdict covers only the rest", diagnose.WithoutLibraryWords(text.OneLine(o.discoveryPartial.Error()))))
}

// validateScope checks RESOURCE against --all and --qps, the flags every
// command with a scope shares; verb says what --all does ("probes").
func (s *resourceScope) validateScope(cmd *cobra.Command, args []string, verb string, qps float64) error {
	switch {
	case s.All && len(args) > 0:
		return usageErrorf(cmd, "--all %s every resource: give no RESOURCE with it", verb)
	case !s.All && len(args) != 1:
		return usageErrorf(cmd, "expected one RESOURCE (for example configmaps, cm, deployments.apps) or --all, got %s", text.Count(len(args), "argument"))
	case math.IsNaN(qps) || math.IsInf(qps, 0) || qps <= 0:
		return usageErrorf(cmd, "--qps %g is not a rate: give a number of requests per second above 0 (default 5)", qps)
	}
	return nil
}

// oneTarget resolves RESOURCE (it must support list and watch) and scopes
// it to the namespace unless -A was given.
func (o *RootOptions) oneTarget(ctx context.Context, s *resourceScope) (apiclient.Target, error) {
	res, err := o.resolveResource(ctx, s.Resource, "list", "watch")
	if err != nil {
		return apiclient.Target{}, err
	}
	return o.targetOf(res, s.AllNamespaces)
}
