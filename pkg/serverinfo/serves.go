package serverinfo

import (
	"strings"

	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Who serves a resource behind the API server's address is the one
// decision every sentence that names a watch cache, storage (etcd or
// kine), a feature gate of the server or its counters rests on (list's
// "Served by" and caveat, the storage requests it counts, explain-error
// --check, the streaming hint, probe's "Answered by", --servers' cache
// column): those are the kube-apiserver's, and true only of the
// resources it serves itself. An aggregated API's resources pass through
// it to another server (the kube-aggregator proxies them), whose cache,
// storage and gates the plugin cannot see (adversary try 20 #6: list of
// an aggregated resource said storage served it and gave kine's PrevKv
// caveat).
//
// It needs no right beyond what the command already uses: the built-in
// groups are known, and the kube-apiserver's /metrics (read already for
// the watch cache and the gates) counts the objects it stores for each
// resource it serves (apiserver_resource_objects, apiserver_storage_objects
// before v1.35), a custom resource's included, from the first request to
// it. A resource of another group with neither a watch cache nor a
// stored-object count there, or one whose /metrics was not read, is not
// known to be the kube-apiserver's: no sentence then names its cache or
// storage. Never "no": a custom resource nobody has asked for since the
// server started shows no series yet either.

// ownGroups are served by the kube-apiserver process itself beside the
// built-in ones of client-go's scheme, their objects stored with the
// others: the kube-aggregator's own group (it has no APIService) and the
// apiextensions-apiserver's (the CRDs themselves).
var ownGroups = []string{"apiregistration.k8s.io", "apiextensions.k8s.io"}

var builtinGroups = func() map[string]bool {
	m := map[string]bool{}
	for _, gv := range scheme.Scheme.PrioritizedVersionsAllGroups() {
		m[gv.Group] = true
	}
	for _, g := range ownGroups {
		m[g] = true
	}
	return m
}()

// BuiltInGroup: the kube-apiserver serves group itself, from its one
// storage (the core group is "").
func BuiltInGroup(group string) bool { return builtinGroups[group] }

// Serves is whether the API server behind the address serves the resource
// name of group itself (Yes), or that is not known (Unknown, and why, a
// clause without parentheses for "... is not known: WHY"): cache and stored
// are what its /metrics showed of the resource (a watch cache, a
// stored-object count; Unknown when not read).
func Serves(name, group string, cache, stored Tri) (Tri, string) {
	switch {
	case BuiltInGroup(group), cache == Yes, stored == Yes:
		return Yes, ""
	case cache == Unknown && stored == Unknown:
		return Unknown, "its group is not built in, and no /metrics read showed a watch cache or stored objects of it"
	}
	return Unknown, "its /metrics shows no watch cache and no stored objects of it, as for an aggregated API's resource, which another server serves, or a custom resource not yet asked for"
}

// SplitName is the group and resource of a "resource.group" name (Name's
// inverse).
func SplitName(name string) (group, resource string) { return splitName(name) }

// splitName is the group and resource of a "resource.group" name.
func splitName(name string) (group, resource string) {
	resource, group, _ = strings.Cut(name, ".")
	return group, resource
}

// notOwn: the Info is of a resource this API server is not known to
// serve itself; its cache and storage are then never named.
func (in *Info) notOwn() bool { return in != nil && in.Resource != "" && in.Serves != Yes }

// notOwnServed is who serves a list of a resource not known to be the
// API server's own: not known, and why.
func (in *Info) notOwnServed() Served {
	why := "this API server if " + text.Echo(in.Resource) + " is its own, else another server behind it; which one is not known: " + in.ServesWhy
	return Served{First: why, FirstFrom: ByEither, Continue: why, ContinueFrom: ByEither}
}

// ServesSeen is Serves of the resource name by every read that tells: the
// facts (Read's Info of it, which list and watch name the server by; nil
// when none were read) and a watch cache another read of the server's
// /metrics saw (probe --metrics, a server's under --servers). The commands
// that name who serves decide by it, so that none says "not known" of a
// resource whose facts another one read (fresh user try 22 #9: probe of a
// CRD said its cache was not known to be this API server's, while list had
// read its watch cache seconds before).
func ServesSeen(name string, facts *Info, cacheSeen bool) (Tri, string) {
	of := facts != nil && facts.Resource == name
	if of && facts.Serves == Yes {
		return Yes, ""
	}
	cache := Unknown
	if cacheSeen {
		cache = Yes
	}
	group, _ := splitName(name)
	serves, why := Serves(name, group, cache, Unknown)
	if serves != Yes && of && facts.ServesWhy != "" {
		// What the facts read showed: more than that nothing was read.
		why = facts.ServesWhy
	}
	return serves, why
}
