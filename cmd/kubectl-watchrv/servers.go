package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// serversFlags ask for the per-server view: every API server behind the
// kubeconfig's address, dialled directly, side by side.
type serversFlags struct {
	Servers   bool
	Endpoints []string
	FromRV    string

	// Derived by completeServers, checked by validateServers.
	endpoints    []string // parsed --endpoints
	endpointsErr error    // why --endpoints does not parse
	fromRV       uint64
}

// addServersFlags registers --servers and --endpoints (and --from-rv where
// a reconnect verdict is printed).
func (s *serversFlags) addServersFlags(f *pflag.FlagSet, withFromRV bool) {
	f.BoolVar(&s.Servers, "servers", false, "Every API server behind the address, one row each (found in the kubernetes EndpointSlices; dialled directly with the kubeconfig's credentials, proxy-url and TLS name)")
	f.StringSliceVar(&s.Endpoints, "endpoints", nil, "The API servers by hand, host:port each (e.g. 10.0.0.1:6443,10.0.0.2:6443); implies --servers")
	if withFromRV {
		f.StringVar(&s.FromRV, "from-rv", "", "With --servers: say what each server does with an informer's reconnect from this RV, a decimal RV above 0 (default: the newest current RV)")
	}
}

// serversOn reports whether the per-server view was asked for.
func (s *serversFlags) serversOn() bool { return s.Servers || len(s.Endpoints) > 0 }

// completeServers parses --endpoints and --from-rv (Complete); a value
// that does not parse is kept for validateServers to refuse, in its turn.
func (s *serversFlags) completeServers(cmd *cobra.Command) {
	if s.FromRV != "" {
		s.fromRV, _ = rv.Parse(s.FromRV)
	}
	if cmd.Flags().Changed("endpoints") {
		s.endpoints, s.endpointsErr = servers.ParseEndpoints(s.Endpoints)
	}
}

// validateServers checks --endpoints and --from-rv (parsed by
// completeServers); conflict names flags that cannot go with --servers (""
// when none). It changes nothing.
func (s *serversFlags) validateServers(cmd *cobra.Command, conflict string) error {
	if s.FromRV != "" {
		if !s.serversOn() {
			return usageErrorf(cmd, "--from-rv asks what each server does with a reconnect: add --servers")
		}
		if err := validateRV(cmd, "from-rv", s.FromRV); err != nil {
			return err
		}
		if n, _ := rv.Parse(s.FromRV); n == 0 {
			// RV 0 is "any": a watch from it is never refused, so it
			// asks nothing of the servers (it was replaced by the
			// newest current RV without a word: fresh user try 19 #12).
			return usageErrorf(cmd, "--from-rv %s is no reconnect point: a watch from RV 0 starts from any state and no server refuses it (no 410, no 504); give the RV the informer holds (a decimal RV above 0), or omit --from-rv to judge a reconnect from the newest current RV", text.Echo(s.FromRV))
		}
	}
	if errors.Is(s.endpointsErr, servers.ErrNoEndpoint) {
		// --endpoints '' (or ',') names no server: refused, not read as
		// no --endpoints at all (fresh user try 11: a plain probe ran).
		return usageErrorf(cmd, "--endpoints: %v: list host:port addresses, for example --endpoints 10.0.0.1:6443,10.0.0.2:6443", s.endpointsErr)
	}
	if !s.serversOn() {
		return nil
	}
	if conflict != "" {
		return usageErrorf(cmd, "%s cannot be combined with --servers or --endpoints (the per-server view neither measures nor shows what it asks for): drop one of them", conflict)
	}
	if s.endpointsErr != nil {
		return usageErrorf(cmd, "--endpoints: %v", s.endpointsErr)
	}
	return nil
}

// findServers finds the servers (EndpointSlices or --endpoints) and builds
// the fleet: one client per server.
func (o *RootOptions) findServers(ctx context.Context, s *serversFlags, b *apiclient.Budget) (*servers.Fleet, error) {
	cfg, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	client, err := o.Client()
	if err != nil {
		return nil, err
	}
	found, err := servers.Find(ctx, client, s.endpoints, b)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		if errors.Is(err, servers.ErrNoReadyAddress) || errors.Is(err, servers.ErrNoEndpointSlice) {
			return nil, fmt.Errorf("%w: give the servers with --endpoints HOST:PORT[,HOST:PORT]", err)
		}
		var many *servers.TooManyServersError
		if errors.As(err, &many) { // exit 13: an answer past a bound
			return nil, fmt.Errorf("%s answered: %w: give the API servers to read with --endpoints HOST:PORT[,HOST:PORT]", o.serverName(), err)
		}
		err = o.requestError(err, "list", "endpointslices in namespace default")
		return nil, fmt.Errorf("cannot find the API servers in the EndpointSlices of Service default/kubernetes: %w (or give them with --endpoints HOST:PORT,...)", err)
	}
	var unverified *servers.UnverifiedError
	if err := servers.CheckDialable(cfg, found); errors.As(err, &unverified) {
		// The one line says why nothing was dialled, and what to type.
		return nil, withCode(ExitUsage, fmt.Errorf("--servers sends your credentials to every API server it finds, and %w: nothing was sent to them; check that they are your API servers, then name the ones you trust with --endpoints %s", err, strings.Join(found.Endpoints, ",")))
	}
	return servers.NewFleet(cfg, found), nil
}

// noteMixedServers says, once, that an ordinary run's answers likely came
// from different API servers, with the signs seen, and the command that
// shows each server's RVs (see: built by pkg/suggest; "" names the flag).
func noteMixedServers(p *render.Printer, signs []string, see string) {
	if len(signs) == 0 {
		return
	}
	if see == "" {
		see = "--servers"
	}
	p.Warnf("likely answered by different API servers (%s); see each server's RVs with %s", strings.Join(signs, "; "), see)
}

// withOwnerFacts is r with the facts of res where its verdict needs them
// (render.ServersReport.NeedsServer): read at the kubeconfig's address, as
// list's (ownerFacts); the API servers of one cluster serve the same
// resources.
func (o *RootOptions) withOwnerFacts(ctx context.Context, p *render.Printer, r render.ServersReport, res apiclient.Resource) render.ServersReport {
	if !r.NeedsServer() {
		return r
	}
	client, err := o.Client()
	if err != nil {
		return r
	}
	r.Server = o.ownerFacts(ctx, p, client, res, "")
	return r
}
