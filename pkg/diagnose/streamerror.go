package diagnose

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrorEndsStream reports whether the server closes a watch stream after
// this ERROR event. It does after every ERROR but one: seen on v1.37.2 with
// the watch cache off, a watch from R-1 after etcd was compacted at R gets
// "500 InternalError: etcd event received with PrevKv=nil (..., modRevision=R,
// ...)" and then the stream goes on with the changes after R: the change at
// R is lost, the watch is not over.
func ErrorEndsStream(st metav1.Status) bool {
	return !(st.Code == 500 && strings.Contains(st.Message, phrasePrevKvNil))
}
