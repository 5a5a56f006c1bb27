package main

import "github.com/watchrv/kubectl-watchrv/pkg/diagnose"

// sentOp is the operation the classifier is told: the request the open (or
// last) stream was, a streaming list or a watch (fresh user try 26 F1: a
// streaming list's own 504 TooLarge was said to be pieced together, as a
// watch's would be).
func (r *watchRun) sentOp() string {
	if r.session.StreamingList() {
		return diagnose.OpStreamingList
	}
	return diagnose.OpWatch
}

// sentContext is what the watch request last sent, for the diagnosis of
// its answer (a 410 or 504 to it, an ERROR event in its stream): its
// resourceVersion, or none, never the highest RV seen since (adversary
// try 28 F5), and that the answer is live, the server's own.
func (r *watchRun) sentContext() diagnose.Context {
	v, sent := r.session.SentResourceVersion()
	return diagnose.Context{Operation: r.sentOp(), RequestedResourceVersion: v, NoResourceVersionSent: !sent, Live: true}
}
