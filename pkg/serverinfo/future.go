package serverinfo

// FutureWatch says what this server does with a watch from RV rv, ahead of
// its current RV, for the request's mode: a streaming list (streaming) or
// an exact watch. It claims only what the Info supports: where the watch
// is served (the watch cache, or storage when the resource has none) and,
// since etcd and kine cannot be told apart from the client side, what each
// storage does when storage serves it. "" when nothing can be said (a
// server that refuses streaming lists refuses this one too; a resource
// the server is not known to serve itself, whose server's cache and
// storage are not its own: serves.go).
//
// Checked on the matrix: the watch cache holds an exact watch from the
// future silently (a cacheWatcher sends nothing, not even a bookmark, with
// an RV not above its own), and answers a streaming list 504 TooLarge after
// waiting up to ~3 s for its RV; storage answers a streaming list 504
// TooLarge at once (etcd3 watcher: the start is ahead of the current
// revision), and an exact watch is held silently by etcd but ended at once
// with an empty 200 by kine ("future revision").
func (in *Info) FutureWatch(streaming bool, rv string) string {
	if in.notOwn() {
		return ""
	}
	if streaming {
		if in.versionKnown() && !in.Gate(GateWatchList) {
			return ""
		}
		switch {
		case in.cacheOff():
			return "a streaming list from it is answered 504 TooLarge at once (this resource has no watch cache here: " + in.StorageName() + " answers it)"
		case in != nil && in.WatchCache == Yes:
			return "a streaming list from it is answered 504 TooLarge after the watch cache waited up to ~3 s for that RV"
		}
		return "a streaming list from it is answered 504 TooLarge: after the watch cache waited up to ~3 s for that RV, or at once where storage serves it (whether this resource has a watch cache is not known here)"
	}
	held := "holds this watch silently (no event, no error, no bookmark) until the cluster's RV reaches " + rv
	storage := "etcd " + held + ", kine ends it at once with an empty stream (the plugin cannot tell which storage this is)"
	switch {
	case in.cacheOff():
		return "this resource has no watch cache here, so storage serves the watch: " + storage
	case in != nil && in.WatchCache == Yes:
		return "the watch cache " + held
	}
	return "where the watch cache serves it, it " + held + "; where storage serves it (no watch cache: not known here), " + storage
}
