package servers

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
)

// The cache RV read: a list with resourceVersion=0, answered from the
// server's watch cache as it stands, without asking etcd; its RV is what
// the cache has seen. The watch cache ignores the limit of an rv=0 list,
// so the list of the collection (`?limit=1&resourceVersion=0`, until v0.1)
// came back whole, per server and per resource (fresh user try 22 F5: 124
// KiB for 305 configmaps, about 100 MB per server for 100,000 pods).
//
// It is narrowed to one name that no object has (NoObjectName), with the
// field selector metadata.name=NAME, in one namespace. The API server's
// generic store (k8s.io/apiserver registry Store.ListPredicate, v1.30 to
// v1.37) reads such a list as the one key of that name: its watch cache
// answers it from its map with its own RV (watchCache.WaitUntilFreshAndGet
// returns the same resourceVersion as a list of the whole), and storage
// with a get of one key at its current revision (the header revision of
// etcd and of kine, as for the list). Measured on every cell of the matrix
// (v1.30 to v1.37, etcd and kine, cache on and off; test/e2e/matrix
// checkCacheRVRead): the same RV as the list of the collection, in under a
// hundred bytes, and no object read from storage.
//
// What it takes for the store to read one key, and why:
//   - a namespace, for a namespaced resource: with none (-A) the store
//     cannot make the key and lists the collection, which storage reads
//     whole to find the name (measured: 301 objects from etcd for a
//     server without a watch cache). The cache RV is the resource's (one
//     watch cache per resource, one revision for all of etcd), so the
//     read of -A goes to CacheRVNamespace; a right to list every
//     namespace is a right to list one.
//   - no other selector: the user's label and field selectors are not
//     sent (the RV is the resource's, not the selection's).
//
// Where the narrowed list is not answered as the generic store answers it,
// the list of the collection is sent as before, and what it returned is
// what it returns (cacheRVFallsBack).
const (
	// NoObjectName is a valid path segment (the store's key needs one)
	// that no object of a name-validated resource has: capitals are no
	// DNS-1123 name. An object of that name (an RBAC role may have one)
	// makes the answer one object: still one key.
	NoObjectName = "watchrv.cache-rv.NO-SUCH-OBJECT"
	// CacheRVNamespace is the namespace the cache RV of a namespaced
	// resource is read in when the view is of every namespace.
	CacheRVNamespace = "default"
)

// CacheRVTarget is the target of the narrowed cache RV read of t.
func CacheRVTarget(t apiclient.Target) apiclient.Target {
	n := apiclient.Target{Resource: t.Resource, Namespace: t.Namespace, FieldSelector: fields.OneTermEqualSelector("metadata.name", NoObjectName).String()}
	if n.Resource.Namespaced && n.Namespace == "" {
		n.Namespace = CacheRVNamespace
	}
	return n
}

// listCacheRV sends the cache RV read of t (one request; two when the
// narrowed one falls back) and returns its page.
func listCacheRV(ctx context.Context, c *apiclient.Client, t apiclient.Target, b *apiclient.Budget) (*listing.Page, error) {
	page, err := listing.List(ctx, c, CacheRVTarget(t), listing.PageOptions{Limit: 1, ResourceVersion: "0", Budget: b})
	if err == nil || !cacheRVFallsBack(err) {
		return page, err
	}
	return listing.List(ctx, c, apiclient.Target{Resource: t.Resource, Namespace: t.Namespace}, listing.PageOptions{Limit: 1, ResourceVersion: "0", Budget: b})
}

// cacheRVFallsBack: the narrowed read's failure is one the list of the
// collection does not have:
//   - 429 "storage is (re)initializing": a watch cache not yet ready
//     (v1.31 and later, ResilientWatchCacheInitialization) sends a list
//     with a limit and no selector to storage, and refuses one with a
//     selector;
//   - 400: a server that takes no metadata.name field selector (an
//     aggregated API's own);
//   - an answer that broke the List contract: a server that ignored the
//     selector (objects of other names), whose RV the plugin does not
//     read from such an answer.
func cacheRVFallsBack(err error) bool {
	var contract *diagnose.ContractError
	switch {
	case errors.As(err, &contract):
		return true
	case diagnose.ClassifyFailure(err) == diagnose.FailureBadRequest:
		return true
	}
	return diagnose.FromError(err, diagnose.Context{Live: true}).Kind == diagnose.KindWatchCacheInitializing
}
