package diagnose

import "fmt"

// IsStatusObject reports whether a JSON object whose "kind" and "status"
// fields are kind and status is a Status (metav1.Status): one that says
// so, or one without a kind that carries a Status's own mark, a status of
// "Failure" or "Success". kube-apiserver writes its 504 of a request past
// its timeout so (apiserver/pkg/server/filters/timeout.go encodes the
// Status without its type: no kind, no apiVersion); read as no Status, its
// JSON was shown raw as the message, with "no answer" beside it (user try
// 22 #6). An object with "items" (hasItems) is a list, never a Status,
// whatever its status says: a kindless page with items and a status of
// "Failure" was read as "a Status without a code" (adversary try 24 F5);
// it is a list page without kind, a broken answer (BrokenListPage). The
// one test of a Status's type: the answer's rewrite (apiclient), a list
// page, a pasted text (FromText) all ask it.
func IsStatusObject(kind, status string, hasItems bool) bool {
	return kind == "Status" || kind == "" && !hasItems && (status == "Failure" || status == "Success")
}

// BrokenListPage is what a list page without kind that carries a
// Status's mark beside its items is ("" for any other): neither a list
// of its kind nor a Status, so no answer to read either way.
func BrokenListPage(kind, status string, hasItems bool) string {
	if kind != "" || !hasItems || status == "" {
		return ""
	}
	return fmt.Sprintf("a list page without kind, with a Status's \"status\": %q beside its items (neither a list nor a Status)", status)
}
