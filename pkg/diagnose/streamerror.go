package diagnose

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrorEndsStream reports whether the server closes a watch stream after
// this ERROR event: it always does. Even the 500 "etcd event received with
// PrevKv=nil (..., modRevision=R, ...)" (a watch served by storage that
// reached a change whose previous value is compacted) is followed by the
// stream's end within milliseconds: apiserver etcd3/watcher.go sendError
// cancels the watch (seen on etcd and on kine; an earlier version of this
// function, and of the reference page, said the stream goes on).
func ErrorEndsStream(metav1.Status) bool { return true }

// IsPrevKvNil reports whether st is the 500 "etcd event received with
// PrevKv=nil": the change it names is lost to the watch, which the server
// then ends (an expiry in disguise: a relist recovers).
func IsPrevKvNil(st metav1.Status) bool {
	return st.Code == 500 && strings.Contains(st.Message, phrasePrevKvNil)
}
