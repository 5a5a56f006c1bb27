package listing

import "fmt"

// ReadSemantics says which List semantics the request asked for, in words.
type ReadSemantics struct {
	Mode        string `json:"mode"`
	Description string `json:"description"`
	// Source is who serves it on this server (the watch cache or storage),
	// as far as the plugin knows (serverinfo); also in Description.
	Source string `json:"source,omitempty"`
	// Asks is what the request asks for, in words true of any server;
	// OwnRule what the kube-apiserver's storage or watch cache does with
	// it ("" when nothing is said): a quorum read, a 410 once compacted,
	// a 504 TooLarge. Description is Asks then OwnRule until the caller
	// knows who serves the resource: serverinfo.Info.ReadText says
	// OwnRule only of a resource the API server is known to serve itself
	// (adversary try 22: "fails with 410 Expired once 50 is compacted",
	// etcd's words, of an aggregated API's resource).
	Asks    string `json:"-"`
	OwnRule string `json:"-"`
}

// AnyRule is what an rv=0 list gets where a watch cache may answer it;
// without one, storage answers with the newest state
// (serverinfo.Info.ReadRule).
const AnyRule = ", possibly stale"

// SemanticsOf explains a List request's resourceVersion parameters, following
// the API server's rules (apiserver storage/cacher/delegator): with a limit
// and no match, a resourceVersion other than "0" means Exact (legacy rule).
// Who serves it (the watch cache or storage) depends on the server and is
// added by serverinfo.Info.ListSource.
func SemanticsOf(rv, match string, limit int64) ReadSemantics {
	var s ReadSemantics
	switch {
	case rv == "":
		s = ReadSemantics{Mode: "Consistent", Asks: "consistent read (resourceVersion unset): the newest state", OwnRule: ", as of a quorum read from storage"}
	case rv == "0" && match != "Exact":
		s = ReadSemantics{Mode: "Any", Asks: "any (resourceVersion=0): any state the server has", OwnRule: AnyRule}
	case match == "NotOlderThan":
		s = ReadSemantics{Mode: "NotOlderThan", Asks: fmt.Sprintf("not older than %s: the state at RV %s or newer", rv, rv), OwnRule: fmt.Sprintf("; fails with 504 TooLarge if the server has not reached %s", rv)}
	case match == "Exact":
		s = ReadSemantics{Mode: "Exact", Asks: fmt.Sprintf("exact: the collection as it was at RV %s", rv), OwnRule: fmt.Sprintf("; fails with 410 Expired once %s is compacted", rv)}
	case limit > 0:
		s = ReadSemantics{Mode: "Exact", Asks: fmt.Sprintf("exact (legacy rule: resourceVersion=%s with a limit and no resourceVersionMatch): the collection as it was at RV %s", rv, rv), OwnRule: fmt.Sprintf("; fails with 410 Expired once %s is compacted", rv)}
	default:
		s = ReadSemantics{Mode: "NotOlderThan", Asks: fmt.Sprintf("not older than %s (legacy rule: resourceVersion without a limit or a match)", rv)}
	}
	s.Description = s.Asks + s.OwnRule
	return s
}
