package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// resolveResource resolves RESOURCE through cli-runtime's cached discovery
// and checks that it supports the verbs the command needs.
func (o *RootOptions) resolveResource(arg string, verbs ...string) (probe.Resource, error) {
	disco, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return probe.Resource{}, kubeconfigError(err)
	}
	mapper, err := o.ConfigFlags.ToRESTMapper()
	if err != nil {
		return probe.Resource{}, kubeconfigError(err)
	}
	r, err := probe.ResolveResource(disco, mapper, arg)
	if err != nil {
		var unknown *probe.UnknownResourceError
		if errors.As(err, &unknown) {
			// Cached discovery hides its own failures (no server, bad
			// credentials, throttling) behind "no such resource": ask the
			// server directly before saying the name is unknown.
			if serr := o.checkDiscovery(); serr != nil {
				return probe.Resource{}, serr
			}
			return probe.Resource{}, withCode(ExitNotFound, err)
		}
		return probe.Resource{}, o.requestError(err, "get", "discovery")
	}
	for _, v := range verbs {
		if !r.Supports(v) {
			return probe.Resource{}, withCode(ExitUsage, fmt.Errorf("resource %q does not support %s (its verbs: %v): choose a resource that supports %s", r.Name(), v, r.Verbs, v))
		}
	}
	return r, nil
}

// checkDiscovery makes one uncached discovery request and returns its error
// in the plugin's words, or nil when discovery works.
func (o *RootOptions) checkDiscovery() error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := client.CheckDiscovery(ctx); err != nil {
		return o.requestError(err, "get", "the discovery endpoints /api and /apis")
	}
	return nil
}

// requestError turns a failed request into one actionable line, keeping the
// error chain so that the exit code can be derived from it.
func (o *RootOptions) requestError(err error, verb, what string) error {
	server := "the API server"
	if cfg, cerr := o.ConfigFlags.ToRESTConfig(); cerr == nil {
		server = "the API server at " + cfg.Host
	}
	switch probe.ClassifyFailure(err) {
	case probe.FailureUnreachable:
		return fmt.Errorf("cannot reach %s: %w: check --server, --context or --kubeconfig, and that the cluster is up", server, err)
	case probe.FailureTLS:
		return fmt.Errorf("TLS handshake with %s failed: %w: check the certificate-authority of the kubeconfig (or --certificate-authority)", server, err)
	case probe.FailureUnauthorized:
		return fmt.Errorf("%s rejected the credentials (401 Unauthorized): %w: refresh the token or choose another --user/--context", server, err)
	case probe.FailureForbidden:
		return fmt.Errorf("forbidden: %w: this command needs RBAC permission to %s %s", err, verb, what)
	case probe.FailureThrottled:
		return fmt.Errorf("%s is throttling requests (429 Too Many Requests, API Priority and Fairness): %w: retry later", server, err)
	}
	return err
}

// exactArgs requires n positional arguments and names them in the error.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf(cmd, "expected %s, got %d argument(s)", names, len(args))
		}
		return nil
	}
}

// validateRV checks a --rv value: an RV is opaque in general, but every
// etcd-backed API server uses a decimal unsigned integer.
func validateRV(cmd *cobra.Command, flag, rv string) error {
	if _, ok := probe.ParseRV(rv); !ok {
		return usageErrorf(cmd, "--%s %q is not a resourceVersion: etcd-backed API servers use decimal numbers such as 12345 (0 means any; omit --%s for a consistent read)", flag, rv, flag)
	}
	return nil
}
