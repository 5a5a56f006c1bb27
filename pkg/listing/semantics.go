package listing

import "fmt"

// ReadSemantics says which List semantics the request asked for, in words.
type ReadSemantics struct {
	Mode        string `json:"mode"`
	Description string `json:"description"`
}

// SemanticsOf explains a List request's resourceVersion parameters, following
// the API server's rules (apiserver storage/cacher/delegator): with a limit
// and no match, a resourceVersion other than "0" means Exact (legacy rule).
func SemanticsOf(rv, match string, limit int64) ReadSemantics {
	switch {
	case rv == "":
		return ReadSemantics{"Consistent", "consistent read (resourceVersion unset): the newest state, as of a quorum read from etcd; served from the watch cache only once it has caught up with etcd"}
	case rv == "0" && match != "Exact":
		return ReadSemantics{"Any", "any (resourceVersion=0): whatever this API server's watch cache holds, possibly stale; no etcd round trip"}
	case match == "NotOlderThan":
		return ReadSemantics{"NotOlderThan", fmt.Sprintf("not older than %s: the state at RV %s or newer; fails with 504 TooLarge if the server has not reached %s", rv, rv, rv)}
	case match == "Exact":
		return ReadSemantics{"Exact", fmt.Sprintf("exact: the collection as it was at RV %s, from etcd history or the watch cache; fails with 410 Expired once %s is compacted", rv, rv)}
	case limit > 0:
		return ReadSemantics{"Exact", fmt.Sprintf("exact (legacy rule: resourceVersion=%s with a limit and no resourceVersionMatch): the collection as it was at RV %s; fails with 410 Expired once %s is compacted", rv, rv, rv)}
	default:
		return ReadSemantics{"NotOlderThan", fmt.Sprintf("not older than %s (legacy rule: resourceVersion without a limit or a match)", rv)}
	}
}
