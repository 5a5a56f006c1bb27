package listing

import "fmt"

// ReadSemantics says which List semantics the request asked for, in words.
type ReadSemantics struct {
	Mode        string `json:"mode"`
	Description string `json:"description"`
	// Source is who serves it on this server (the watch cache or storage),
	// as far as the plugin knows (serverinfo); also in Description.
	Source string `json:"source,omitempty"`
}

// SemanticsOf explains a List request's resourceVersion parameters, following
// the API server's rules (apiserver storage/cacher/delegator): with a limit
// and no match, a resourceVersion other than "0" means Exact (legacy rule).
// Who serves it (the watch cache or storage) depends on the server and is
// added by serverinfo.Info.ListSource.
func SemanticsOf(rv, match string, limit int64) ReadSemantics {
	switch {
	case rv == "":
		return ReadSemantics{Mode: "Consistent", Description: "consistent read (resourceVersion unset): the newest state, as of a quorum read from storage"}
	case rv == "0" && match != "Exact":
		return ReadSemantics{Mode: "Any", Description: "any (resourceVersion=0): any state the server has, possibly stale"}
	case match == "NotOlderThan":
		return ReadSemantics{Mode: "NotOlderThan", Description: fmt.Sprintf("not older than %s: the state at RV %s or newer; fails with 504 TooLarge if the server has not reached %s", rv, rv, rv)}
	case match == "Exact":
		return ReadSemantics{Mode: "Exact", Description: fmt.Sprintf("exact: the collection as it was at RV %s; fails with 410 Expired once %s is compacted", rv, rv)}
	case limit > 0:
		return ReadSemantics{Mode: "Exact", Description: fmt.Sprintf("exact (legacy rule: resourceVersion=%s with a limit and no resourceVersionMatch): the collection as it was at RV %s; fails with 410 Expired once %s is compacted", rv, rv, rv)}
	default:
		return ReadSemantics{Mode: "NotOlderThan", Description: fmt.Sprintf("not older than %s (legacy rule: resourceVersion without a limit or a match)", rv)}
	}
}
