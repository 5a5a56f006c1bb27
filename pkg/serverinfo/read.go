package serverinfo

import (
	"context"
	"fmt"
	"github.com/watchrv/kubectl-watchrv/internal/text"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// MetricsCap bounds the /metrics read. The families asked for are about
// 24 KB on v1.37.2 with 60 resources (kubernetes_feature_enabled 19 KB,
// watch_cache_capacity 80 bytes a resource), and for a resource of a group
// that is not built in apiserver_resource_objects too (about 75 bytes a
// resource, 29 KB in all), which comes first: 256 KiB reads the gates past
// the counts of 3,000 resources. The read stops earlier as soon as the
// facts are complete, and an answer cut at the cap keeps what it had read
// (the rest is assumed, and said).
const MetricsCap = 256 << 10

// filterMinor is the first release whose /metrics honours name[] query
// parameters: kube-apiserver v1.37 is built with prometheus client_golang
// v1.24.0, whose promhttp handler sends only the families named; v1.30 to
// v1.36 (client_golang 1.16 to 1.23) ignore them and send everything (1.3
// MB on a quiet v1.30.14, 3.4-3.8 MB on v1.37.2 with 60 resources, 11.9 MB
// with 200 CRDs, tens of MB in production). Such a server is not asked:
// its facts are its version's defaults, and Info says so.
const filterMinor = 37

// Read asks the server what it is, for the resource group/resource (""
// for none): GET /version, then, where the server filters /metrics by
// name (v1.37 and later, or a version not known), the facts cache holds
// for it (cache may be nil: none), else GET
// /metrics?name[]=kubernetes_feature_enabled&name[]=watch_cache_capacity
// (and name[]=apiserver_resource_objects for a group that is not built
// in: serves.go) read line by line through MetricsCap, stopping as soon as the gates and
// the resource's series are seen (and kept in the cache). A server that
// sends a family not asked for ignored the filter: the read stops there.
// Nothing failing fails the run: what could not be read is assumed, and
// Info says so.
//
// The facts cache holds the facts of the server /version's connection
// reached (its serving certificate, apiclient.ServingCert, and its
// gitVersion): another server at the same address is read anew.
func Read(ctx context.Context, c *apiclient.Client, group, resource string, cache *Cache) *Info {
	vctx, cert := apiclient.ServingCert(ctx)
	git, minor, verr := readVersion(vctx, c)
	in := readFacts(ctx, c, instance{Cert: cert(), GitVersion: git}, minor, group, resource, cache)
	in.versionUnread(verr)
	return in
}

// readFacts is Read past /version: what the version says, the facts cache
// or /metrics, of the server id.
func readFacts(ctx context.Context, c *apiclient.Client, id instance, minor int, group, resource string, cache *Cache) *Info {
	name, git := Name(group, resource), id.GitVersion
	if minor > 0 && minor < filterMinor {
		return Build(git, minor, nil, fmt.Sprintf("/metrics not read: %s sends all of it (megabytes) whatever is asked; feature gates taken as the version's defaults, the watch cache as unknown", git), name).of(id)
	}
	if s := cache.load(id); s != nil {
		if m, resourceAt, ok := cache.facts(s, name); ok {
			in := Build(git, minor, m, "", name).of(id)
			gatesAt := s.GatesReadAt
			in.GatesReadAt = &gatesAt
			if name != "" {
				in.WatchCacheReadAt = &resourceAt
			}
			return in
		}
	}
	facts, note := readMetrics(ctx, c, group, resource)
	if note == "" {
		cache.store(id, name, facts)
	}
	return Build(git, minor, facts, note, name).of(id)
}

// of is in, of the server id.
func (in *Info) of(id instance) *Info {
	in.cert = id.Cert
	return in
}

// Name is the name of group/resource as the Info keeps it: "configmaps",
// "widgets.example.com" ("" for none).
func Name(group, resource string) string {
	if group != "" && resource != "" {
		return resource + "." + group
	}
	return resource
}

// readVersion reads /version through the one reader of it
// (apiclient.ServerVersion): its gitVersion and minor release, or why it
// could not be read.
func readVersion(ctx context.Context, c *apiclient.Client) (string, int, error) {
	v, err := c.ServerVersion(ctx)
	if err != nil {
		return "", 0, err
	}
	return v.GitVersion, minorOf(v), nil
}

// ReadWhole is Read for a verdict checked against the server
// (explain-error --check): on a server that ignores name[] (before v1.37)
// it reads the whole /metrics anyway, line by line, keeping only the gates
// and the resource's watch-cache series (megabytes on the wire, once, and
// no more memory than Read), so that whether the resource has a watch
// cache is read, not assumed. The facts cache is not used.
func ReadWhole(ctx context.Context, c *apiclient.Client, group, resource string) *Info {
	git, minor, verr := readVersion(ctx, c)
	name := Name(group, resource)
	facts, note := readMetricsOf(ctx, c, group, resource, minor > 0 && minor < filterMinor)
	in := Build(git, minor, facts, note, name)
	in.versionUnread(verr)
	return in
}

func readMetrics(ctx context.Context, c *apiclient.Client, group, resource string) (*MetricsFacts, string) {
	return readMetricsOf(ctx, c, group, resource, false)
}

// wholeMetricsCap bounds a whole /metrics read: the transport's own cap
// of a /metrics answer (apiclient), which it meets first.
const wholeMetricsCap = 64 << 20

func readMetricsOf(ctx context.Context, c *apiclient.Client, group, resource string, whole bool) (*MetricsFacts, string) {
	const assumed = ": feature gates taken as the version's defaults, the watch cache as unknown"
	if ctx.Err() != nil {
		// The time ran out before /metrics was asked (a /version that
		// hung took it): no request was sent, and none failed
		// (adversary try 17: "(context deadline exceeded)").
		return nil, "/metrics not asked: the time for reading the server had run out before it could be sent" + assumed
	}
	families := []string{familyFeatureEnabled, familyCacheCapacity}
	if resource != "" && !BuiltInGroup(group) {
		// Whether the server serves it itself (serves.go): asked only
		// where the group does not tell, since the family, first in the
		// server's order, takes about 75 bytes a resource before the gates.
		families = append([]string{familyObjects}, families...)
	}
	body, err := c.GetMetrics(ctx, families...)
	if err != nil {
		if apierrors.IsForbidden(err) {
			return nil, ForbiddenNote
		}
		return nil, "/metrics not read (" + metrics.FailureWords(err) + ")" + assumed
	}
	// Closing early resets the stream: the server stops sending.
	defer body.Close()
	limit := int64(MetricsCap)
	if whole {
		limit = wholeMetricsCap
	}
	s := scanMetricsOf(body, limit, group, resource, whole)
	switch {
	case s.err != nil:
		// Bounded here: Info.Note shows it whole.
		return nil, text.Shorten(oneLine(s.err.Error()), 512) + ": feature gates taken as the version's defaults, the watch cache as unknown"
	case s.unfiltered:
		// What was seen: a family not asked for. That the rest is
		// megabytes is not known (adversary try 14: a 300-byte answer).
		return nil, "/metrics read no further: this server ignores name[] (it sent a family not asked for), so its whole /metrics would be read for three families; feature gates taken as the version's defaults, the watch cache as unknown"
	case s.cut:
		return s.facts(), fmt.Sprintf("/metrics cut at %d KiB before every fact was read", limit>>10)
	}
	return s.facts(), ""
}
