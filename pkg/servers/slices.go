package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"sort"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// MaxServers bounds the API servers one run dials, found in the
// EndpointSlices or given with --endpoints. A control plane has 1 to 7 API
// servers (3 or 5 in HA), and each one dialled is a client, a transport,
// its connections and its requests: 64 is far above any real control
// plane, and keeps a run's memory, connections and requests small whatever
// the EndpointSlices list (adversary try 19: 120,000 addresses, a 2 MB
// answer, took 1.7 GB and crashed).
const MaxServers = 64

// TooManyServersError: the EndpointSlices list more API servers than
// MaxServers. Nothing was dialled. It is the class of an answer that broke
// one of the plugin's bounds (diagnose.FailureUnbounded, exit code 13).
type TooManyServersError struct {
	// Listed is how many addresses the slices list (ready ones, with a
	// port of the API: every address and port past the bound is counted,
	// without telling duplicates apart).
	Listed int
}

func (e *TooManyServersError) Error() string {
	return fmt.Sprintf("the EndpointSlices of Service default/kubernetes list %s, more than the %d API servers the plugin dials in one run (a control plane has 1 to 7): nothing was dialled", text.Count(e.Listed, "address"), MaxServers)
}

// Unbounded marks the error as an answer that broke one of the plugin's
// bounds (diagnose.FailureUnbounded).
func (e *TooManyServersError) Unbounded() bool { return true }

// NotIPAddress is an address an IPv4 or IPv6 EndpointSlice lists that is
// no IP address of that family: a name (999.1.1.1 is one to a resolver),
// an address with a port or a zone, text with control characters. It is
// never resolved (the query could leave the machine) nor dialled: its row
// fails with NotIPError, and the other servers are measured.
type NotIPAddress struct {
	// Address is as listed, bounded (text.Echo); the printer defangs it.
	Address     string `json:"address"`
	AddressType string `json:"addressType"`
}

// NotIPError is the failure of a NotIPAddress's row.
type NotIPError struct{ NotIPAddress }

func (e *NotIPError) Error() string {
	return fmt.Sprintf("not an %s address (an %s EndpointSlice of Service default/kubernetes lists it): neither resolved nor dialled", e.family(), e.family())
}

// IsNotIP reports a NotIPError in err's chain.
func IsNotIP(err error) bool {
	var n *NotIPError
	return errors.As(err, &n)
}

func (e *NotIPError) family() string {
	if e.AddressType == "IPv4" || e.AddressType == "IPv6" {
		return e.AddressType
	}
	return "IP"
}

// Listed is what the EndpointSlices of Service default/kubernetes list.
type Listed struct {
	// Endpoints are the ready servers, host:port of an IP address, sorted.
	Endpoints []string
	// NotIP are the ready addresses that are no IP address, as listed.
	NotIP []NotIPAddress
	// Slices is how many EndpointSlices there are.
	Slices int
}

// Discover reads the EndpointSlices of Service default/kubernetes (one
// list request, through the kubeconfig's address): every ready address of
// an IPv4 or IPv6 slice with the port of the API. The list is read as it
// streams, keeping at most MaxServers+1 addresses: past MaxServers the
// answer is a *TooManyServersError, whatever size it has within its cap.
func Discover(ctx context.Context, c *apiclient.Client, b *apiclient.Budget) (Listed, error) {
	if err := b.Take(ctx); err != nil {
		return Listed{}, err
	}
	// resourceVersion=0: answered from the watch cache of whichever server
	// the balancer picks, even one cut off from etcd (a consistent list
	// would wait for etcd there); the slices change rarely.
	q := url.Values{"labelSelector": {ServiceLabel}, "resourceVersion": {"0"}}
	body, err := c.Get(ctx, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", q, "application/json")
	if err != nil {
		return Listed{}, err
	}
	defer body.Close()
	var all serverSet
	r := &readFailure{r: body}
	slices, err := readSlices(r, &all)
	switch {
	case r.err != nil:
		// The body, not its JSON: past its cap, or the connection
		// lost. Its own class says so.
		return Listed{}, r.err
	case err != nil:
		return Listed{}, &apiclient.UnreadableAnswerError{What: "the EndpointSlices of Service default/kubernetes do not decode", Err: err}
	}
	if all.listed() > MaxServers {
		return Listed{}, &TooManyServersError{Listed: all.listed()}
	}
	l := Listed{Slices: slices}
	for _, s := range all.kept {
		if s.notIP != nil {
			l.NotIP = append(l.NotIP, *s.notIP)
		} else {
			l.Endpoints = append(l.Endpoints, s.endpoint)
		}
	}
	sort.Strings(l.Endpoints)
	return l, nil
}

// readFailure is a body that keeps the error its read ended with (not
// its end).
type readFailure struct {
	r   io.Reader
	err error
}

func (f *readFailure) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF {
		f.err = err
	}
	return n, err
}

// bounded is a set that keeps its first MaxServers+1 distinct members
// (one past the bound tells that it was crossed) and only counts the
// later ones, without telling them apart: its memory is that of
// MaxServers+1 members whatever is added.
type bounded[T any] struct {
	kept []T
	seen map[string]bool
	more int
}

func (b *bounded[T]) add(key string, v T) {
	switch {
	case b.seen[key]:
	case len(b.kept) > MaxServers:
		b.more++
	default:
		if b.seen == nil {
			b.seen = map[string]bool{}
		}
		b.seen[key] = true
		b.kept = append(b.kept, v)
	}
}

// listed is how many were added: exact up to the bound, at least that
// past it.
func (b *bounded[T]) listed() int { return len(b.kept) + b.more }

// words is a bounded set of strings.
type words struct{ bounded[string] }

func (w *words) addWord(s string) { w.add(s, s) }

func (w *words) addAll(o *words) {
	for _, s := range o.kept {
		w.addWord(s)
	}
	w.more = saturatingAdd(w.more, o.more)
}

// serverSet is the servers the slices list: an endpoint, or an address
// that is no IP address.
type serverSet struct{ bounded[server] }

type server struct {
	endpoint string
	notIP    *NotIPAddress
}

func (s *serverSet) addServer(v server) {
	key := v.endpoint
	if v.notIP != nil {
		key = "\x00" + v.notIP.Address // never an endpoint's host:port
	}
	s.add(key, v)
}

// addSlice adds the servers of one slice: each of its ready addresses at
// each of its ports; an address that is no IP address of the slice's
// family once, without a port. An FQDN slice lists no API server.
func (s *serverSet) addSlice(sl *slice) {
	if sl.addressType == "FQDN" || len(sl.ports.kept) == 0 {
		return
	}
	for _, a := range sl.ready.kept {
		ip, ok := ipOf(a, sl.addressType)
		if !ok {
			s.addServer(server{notIP: &NotIPAddress{Address: text.Echo(a), AddressType: sl.addressType}})
			continue
		}
		for _, p := range sl.ports.kept {
			s.addServer(server{endpoint: net.JoinHostPort(ip.String(), p)})
		}
	}
	// What was only counted in the slice: each is at least one server
	// past the bound, since a kept set is full before it counts.
	s.more = saturatingAdd(s.more, sl.ready.more*max(1, sl.ports.listed()), sl.ports.more*len(sl.ready.kept))
}

// ipOf is an IP address of the slice's family, written as an IP address
// and nothing else (no zone, no port, no name): only such an address is
// dialled, so that no name from the cluster goes to a resolver.
func ipOf(a, addressType string) (netip.Addr, bool) {
	ip, err := netip.ParseAddr(a)
	if err != nil || ip.Zone() != "" {
		return netip.Addr{}, false
	}
	switch addressType {
	case "IPv4":
		return ip, ip.Is4()
	case "IPv6":
		// An IPv4 address written as IPv6 (::ffff:10.0.0.1) is no IPv6
		// address to the API's validation either.
		return ip, ip.Is6() && !ip.Is4In6()
	}
	return ip, ip.Is4() || (ip.Is6() && !ip.Is4In6())
}

func saturatingAdd(ns ...int) int {
	const most = int(^uint(0) >> 2)
	sum := 0
	for _, n := range ns {
		sum += min(n, most)
		sum = min(sum, most)
	}
	return sum
}

// slice is what one EndpointSlice says of the API servers.
type slice struct {
	addressType string
	ports       words // the ports of the API (named https, or unnamed), as text
	ready       words // the addresses of the ready endpoints
}
