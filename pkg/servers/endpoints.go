// Package servers finds every API server behind the address a kubeconfig
// names (the `kubernetes` EndpointSlices, or endpoints given by hand), dials
// each one directly with the kubeconfig's credentials, proxy and TLS
// verification, and measures each one's RVs side by side: its current RV,
// what its watch cache has seen, its lag and its watch window. Each API
// server of an HA control plane has its own watch cache, so an RV that one
// serves can be too old (410) or too new (504) on another.
package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Where an endpoint came from.
const (
	FromEndpointSlice = "endpointslice"
	FromFlag          = "flag"
)

// ServiceLabel selects the EndpointSlices of Service default/kubernetes:
// every API server's lease reconciler keeps its own address there.
const ServiceLabel = "kubernetes.io/service-name=kubernetes"

// IdentityLabel selects the kube-system leases each kube-apiserver renews
// under its own identity (the APIServerIdentity feature).
const IdentityLabel = "apiserver.kubernetes.io/identity=kube-apiserver"

// ErrNoEndpoint: the endpoints given by hand hold no address.
var ErrNoEndpoint = errors.New("no endpoint given")

// ParseEndpoints parses endpoints given by hand: host:port each, an IPv6
// host in brackets, the host an IP address or a DNS name (a name given by
// hand is resolved: the user chose it). Duplicates are dropped; the order
// given is kept; at most MaxServers.
func ParseEndpoints(values []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		host, port, err := net.SplitHostPort(v)
		if err != nil || host == "" {
			return nil, fmt.Errorf("endpoint %q is not host:port (for example 10.0.0.1:6443, [fd00::1]:6443)", text.Echo(v))
		}
		if !hostOK(host) {
			return nil, fmt.Errorf("endpoint %q: %q is neither an IP address nor a DNS name", text.Echo(v), text.Echo(host))
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("endpoint %q: port %q is not a number from 1 to 65535", text.Echo(v), text.Echo(port))
		}
		addr := net.JoinHostPort(host, port)
		if !seen[addr] {
			seen[addr] = true
			out = append(out, addr)
		}
	}
	if len(out) == 0 {
		return nil, ErrNoEndpoint
	}
	if len(out) > MaxServers {
		return nil, fmt.Errorf("%s given, more than the %d API servers the plugin dials in one run (a control plane has 1 to 7): name fewer", text.Count(len(out), "endpoint"), MaxServers)
	}
	return out, nil
}

// hostOK: host is an IP address (with a zone: fe80::1%eth0) or a DNS name.
func hostOK(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return len(validation.IsDNS1123Subdomain(strings.ToLower(strings.TrimSuffix(host, ".")))) == 0
}

// Leases is what the identity leases tell, when they can be read.
type Leases struct {
	// Holders are the holder identities of the kube-apiserver identity
	// leases, sorted: one per API server that renewed its lease.
	Holders []string `json:"holders,omitempty"`
	Count   int      `json:"count"`
	// Error is why they could not be read (Forbidden is common: the view
	// does not depend on them).
	Error string `json:"error,omitempty"`
}

// ReadLeases lists the identity leases in kube-system (one request). It
// returns nil when the signal cut the read: a cut request is no answer,
// not even an error (bounds/TestACutRequestIsNoOutcome).
func ReadLeases(ctx context.Context, c *apiclient.Client, b *apiclient.Budget) *Leases {
	leases := readLeases(ctx, c, b)
	if apiclient.Cut(ctx) {
		return nil
	}
	return &leases
}

func readLeases(ctx context.Context, c *apiclient.Client, b *apiclient.Budget) Leases {
	if err := b.Take(ctx); err != nil {
		return Leases{Error: err.Error()}
	}
	q := url.Values{"labelSelector": {IdentityLabel}, "resourceVersion": {"0"}}
	body, err := c.Get(ctx, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", q, "application/json")
	if err != nil {
		// Said as the error line says an answer (fresh user try 27 F3).
		return Leases{Error: apiclient.FailureWords("list", "leases", err)}
	}
	defer body.Close()
	var l coordinationv1.LeaseList
	if err := json.NewDecoder(body).Decode(&l); err != nil {
		return Leases{Error: text.OneLine(apiclient.Undecodable("cannot decode the identity leases", err).Error())}
	}
	out := Leases{Count: len(l.Items)}
	for _, it := range l.Items {
		if it.Spec.HolderIdentity != nil {
			out.Holders = append(out.Holders, *it.Spec.HolderIdentity)
		}
	}
	sort.Strings(out.Holders)
	return out
}
