package diagnose

// IsStatusObject reports whether a JSON object whose "kind" and "status"
// fields are kind and status is a Status (metav1.Status): one that says
// so, or one without a kind that carries a Status's own mark, a status of
// "Failure" or "Success". kube-apiserver writes its 504 of a request past
// its timeout so (apiserver/pkg/server/filters/timeout.go encodes the
// Status without its type: no kind, no apiVersion); read as no Status, its
// JSON was shown raw as the message, with "no answer" beside it (user try
// 22 #6). The one test of a Status's type: the answer's rewrite
// (apiclient), a list page, a pasted text (FromText) all ask it.
func IsStatusObject(kind, status string) bool {
	return kind == "Status" || kind == "" && (status == "Failure" || status == "Success")
}
