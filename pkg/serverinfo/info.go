// Package serverinfo knows what the plugin talks to: the API server's
// version (/version), the feature gates its texts depend on (the
// kubernetes_feature_enabled gauge on /metrics, or the version's defaults
// where /metrics is forbidden), whether the resource has a watch cache, and
// the storage under it (never told apart from the client side: "unknown").
// Every text whose truth depends on these is chosen in texts.go, and the
// Info itself goes into -o json as the "server" object: what was known and
// what was assumed.
package serverinfo

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Tri is a fact known true, known false, or not known.
type Tri string

const (
	Yes     Tri = "yes"
	No      Tri = "no"
	Unknown Tri = "unknown"
)

// Info is what the plugin knows of one API server, and how it knows it.
type Info struct {
	// Version is /version's gitVersion ("" when it could not be read).
	Version string `json:"version"`
	Minor   int    `json:"-"`
	// GatesSeen are the gates read from kubernetes_feature_enabled, as
	// they were seen (a gate absent from /metrics is not here).
	GatesSeen map[string]bool `json:"gatesSeen,omitempty"`
	// Gates is every gate the texts use: seen, or the version's default.
	Gates map[string]bool `json:"gates"`
	// WatchCache is whether the resource has a watch cache on this server
	// (watch_cache_capacity for it on /metrics): "yes", "no" or "unknown".
	WatchCache Tri    `json:"watchCache"`
	Resource   string `json:"resource,omitempty"`
	// Serves is whether this API server serves Resource itself ("yes"),
	// or that is not known ("unknown": its group is not built in, and
	// /metrics showed no watch cache nor stored objects of it: another
	// server may serve it, an aggregated API), and ServesWhy why. No
	// text names the watch cache or the storage of a resource it is
	// not known to serve (serves.go).
	Serves    Tri    `json:"servesResource,omitempty"`
	ServesWhy string `json:"servesWhy,omitempty"`
	// Storage is "unknown": etcd and a shim such as kine answer alike.
	Storage string `json:"storage"`
	// Assumed lists, one line each, what was taken without being seen.
	Assumed []string `json:"assumed,omitempty"`
	// GatesReadAt is when the gates were read from /metrics, and
	// WatchCacheReadAt when the resource's watch cache (and whether the
	// server stores it) was, where an earlier run read them (the facts
	// cache, CacheTTL): each fact keeps its own time; nil when this run
	// read them.
	GatesReadAt      *time.Time `json:"gatesReadAt,omitempty"`
	WatchCacheReadAt *time.Time `json:"watchCacheReadAt,omitempty"`

	// cert is the SHA-256 of the serving certificate of the server the
	// facts are of ("" over plain HTTP, or when /version was not read):
	// with Version, what tells it from another server at its address.
	cert string
}

// id is the server the facts are of.
func (in *Info) id() instance { return instance{Cert: in.cert, GitVersion: in.Version} }

// versionUnknown is the assumption of an Info whose /version was not
// read; versionUnread says why, where a request was sent.
const versionUnknown = "server version unknown (/version not read)"

// versionUnread puts why /version could not be read (err; nil: it was)
// into in's assumption of an unknown version: a /version that came and
// cannot be read (no gitVersion, not JSON) is told in the words every
// answer no API server sends is told in (adversary try 19 #13).
func (in *Info) versionUnread(err error) {
	if err == nil {
		return
	}
	for i, a := range in.Assumed {
		if a == versionUnknown {
			in.Assumed[i] = "server version unknown (" + versionFailure(err) + ")"
		}
	}
}

// versionFailure is why /version was not read: an answer as the error
// line says one (apiclient.FailureWords, fresh user try 27 F3: its body
// alone read as the reason), any other failure with its request named.
func versionFailure(err error) string {
	if diagnose.IsAnswer(err) {
		return apiclient.FailureWords("get", "/version", err)
	}
	return "GET /version: " + text.Shorten(text.OneLine(err.Error()), 512) // Info.Note does not cut
}

var minorRE = regexp.MustCompile(`^v?1\.(\d+)`)

// ParseVersion reads a /version body (apiclient.ParseVersion, the one
// reader of /version): its gitVersion and minor release.
func ParseVersion(body []byte) (gitVersion string, minor int, err error) {
	v, err := apiclient.ParseVersion(body)
	if err != nil {
		return "", 0, err
	}
	return v.GitVersion, minorOf(v), nil
}

// minorOf is the minor release of v: from its gitVersion, else from its
// minor ("37+" on some distributions); 0 when neither says.
func minorOf(v apiclient.Version) int {
	if m := minorRE.FindStringSubmatch(v.GitVersion); m != nil {
		minor, _ := strconv.Atoi(m[1])
		return minor
	}
	if n, err := strconv.Atoi(regexp.MustCompile(`\d+`).FindString(v.Minor)); err == nil {
		return n
	}
	return 0
}

// Build fills an Info from what was read: the version (gitVersion, minor;
// minor 0 when unknown), the gates and watch cache seen on /metrics (nil
// when /metrics was not read), and why /metrics was not read, or not
// whole, in metricsNote ("" when it was).
func Build(gitVersion string, minor int, m *MetricsFacts, metricsNote, resource string) *Info {
	in := &Info{Version: gitVersion, Minor: minor, Gates: map[string]bool{}, WatchCache: Unknown, Resource: resource, Storage: "unknown"}
	if gitVersion == "" {
		in.Assumed = append(in.Assumed, versionUnknown)
	} else if minor > 0 && !measuredMinors[minor] {
		in.Assumed = append(in.Assumed, fmt.Sprintf("%s is not one of the releases this plugin was checked on (v1.30, v1.33, v1.35, v1.37): its texts follow that release's gate defaults", gitVersion))
	}
	if m != nil {
		in.GatesSeen = m.Gates
		if resource != "" {
			in.WatchCache = m.WatchCache
		}
	}
	if resource != "" {
		group, _ := splitName(resource)
		stored := Unknown
		if m != nil {
			stored = m.Stored
		}
		in.Serves, in.ServesWhy = Serves(resource, group, in.WatchCache, stored)
		if in.Serves != Yes {
			// No series is no watch cache only of a resource it serves.
			in.WatchCache = Unknown
		}
	}
	if metricsNote != "" {
		// First: it is why the rest is assumed (Note shows it).
		in.Assumed = append([]string{metricsNote}, in.Assumed...)
	}
	for _, g := range Gates {
		if v, ok := in.GatesSeen[g]; ok {
			in.Gates[g] = v
			continue
		}
		on, stage := DefaultOf(g, minor)
		in.Gates[g] = on
		switch {
		case minor == 0:
			in.Assumed = append(in.Assumed, fmt.Sprintf("%s: not known (version unknown), taken as off", g))
		case m != nil && (stage == "GA" || stage == "absent"):
			// Not on /metrics because it graduated (its default holds) or
			// because the release predates it (the feature is not there).
		case m != nil:
			in.Assumed = append(in.Assumed, fmt.Sprintf("%s: not on /metrics, taken as this version's default (%s)", g, onOff(on)))
		default:
			in.Assumed = append(in.Assumed, fmt.Sprintf("%s: taken as v1.%d's default (%s)", g, minor, onOff(on)))
		}
	}
	switch {
	case in.notOwn():
		in.Assumed = append(in.Assumed, "whether this API server serves "+resource+" itself is not known: "+in.ServesWhy+"; nothing is said of its cache or storage")
	case resource != "" && in.WatchCache == Unknown:
		in.Assumed = append(in.Assumed, "watch cache of "+resource+" not known: taken as on (the default for every resource but events)")
	}
	return in
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Gate is the gate's value the texts use (seen, or the default).
func (in *Info) Gate(name string) bool {
	if in == nil {
		return false
	}
	return in.Gates[name]
}

// cacheOff: the resource is known to have no watch cache here.
func (in *Info) cacheOff() bool { return in != nil && in.WatchCache == No }

// versionKnown: the server's minor release is known.
func (in *Info) versionKnown() bool { return in != nil && in.Minor > 0 }
