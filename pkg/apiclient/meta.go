package apiclient

import "github.com/watchrv/kubectl-watchrv/internal/rv"

// ItemMeta is the part of an object's metadata this plugin reads.
type ItemMeta struct {
	Namespace       string            `json:"namespace,omitempty"`
	Name            string            `json:"name"`
	UID             string            `json:"uid,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
	Annotations     map[string]string `json:"annotations,omitempty"`
	// CreationTimestamp is RFC 3339 as the server sent it.
	CreationTimestamp string `json:"creationTimestamp,omitempty"`
}

// ParseRV is rv.Parse, kept for the callers in pkg/listing and
// pkg/probe (current.go, try.go, dated.go) and pkg/follow/session.go, which
// another change rewrites; new code calls rv.Parse.
func ParseRV(s string) (uint64, bool) { return rv.Parse(s) }

// RVAfter is rv.After, kept for the same callers as ParseRV.
func RVAfter(a, b string) bool { return rv.After(a, b) }
