package diagnose

import "strings"

// advice is the fixed text of one kind. Numbers are added by classify.go in
// the summary, never here, so that these texts stay true for every instance.
type advice struct {
	class                    Class
	what, why, clientGo, fix string
}

// What client-go does on its own, shared by several kinds (client-go v0.37
// tools/cache/reflector.go and tools/pager/pager.go). {servedBy} and
// {consistentBy} name who serves the Reflector's reads, chosen by
// fillTexts from the one fact the kind gives about the watch cache.
const (
	reflectorRelists = "The Reflector (informers) handles it by itself: the watch ends, and it reads the state again from the last RV it saw (client-go 1.35 and later with a streaming list, a watch with sendInitialEvents=true, where the server supports it; else with a list), {servedBy}; if that read fails with Expired or TooLarge it reads again with resourceVersion=\"\" (a consistent read{consistentBy}). Objects deleted in between reach handlers as DeletedFinalStateUnknown; the intermediate events are lost, only their net effect survives."
	pagerFallsBack   = "tools/pager (used by the Reflector's list) falls back to one full list without limit at the original resourceVersion when page 2 or later expires (FullListIfExpired); if that fails too, the Reflector lists again with resourceVersion=\"\"."
	// exactListFails: tools/pager's fallback (FullListIfExpired) applies
	// only to a continue page (options.Continue set); an exact list that
	// fails on its first page returns the error as it is.
	exactListFails = "No pager fallback applies: tools/pager falls back to a full list only when a continue page (page 2 or later) expires, and an exact list that fails on its first page returns the error as it is. The Reflector then lists again with resourceVersion=\"\" (a consistent read), which recovers; a plain client must do the same itself."
	plainRetry     = "client-go does not relist for this: the Reflector backs off and retries the same request (watches resume from the last RV they saw)."
)

var advices = map[string]advice{
	KindWatchCacheWindow: {ClassExpired,
		"A watch asked for the events after {req}, but this API server's watch cache only holds the events after {oldest}: the events in between are no longer in memory.",
		"The watch cache keeps a window of recent events per resource type (100 events, growing while they are younger than ~75 s, up to 102,400). The requested resourceVersion fell out of it: the client reconnected with an RV saved long ago, the resource changes quickly, or the API server restarted (after a restart the window starts at the cache's initial list). Compacting etcd does not cause this form.",
		reflectorRelists,
		"Relist and watch from the new list's resourceVersion; ask for bookmarks (allowWatchBookmarks=true) so the last RV advances while nothing changes, and never restart a watch from an RV saved for minutes.",
	},
	KindWatchCacheSnapshot: {ClassExpired,
		"A list at an exact resourceVersion was served from the watch cache's snapshots, and none is old enough for {req}.",
		"The watch cache keeps list snapshots only for its recent window (feature ListFromCacheSnapshot). On v1.37 the API server normally retries such a list against etcd, so seeing this message means the fallback failed too, or an older or modified server answered.",
		exactListFails,
		"List with resourceVersion unset (consistent) or \"0\" instead of an exact RV, then watch from that list's resourceVersion.",
	},
	KindEtcdCompactedWatch: {ClassExpired,
		"A watch reached storage (etcd, or a shim such as kine) for a revision it has already compacted away.",
		"This form comes from storage (etcd, or a shim such as kine: their 410s read alike), not from the watch cache: the watch cache is off for this resource (--watch-cache=false or --watch-cache-sizes=RESOURCE#0) or the request bypassed it. The API server asks storage to compact every --etcd-compaction-interval (5 minutes by default): etcd then drops the history before that point, but kine (k3s's storage) never compacts closer than --compact-min-retain revisions (1,000 by default) to the current one, whoever asks. How old a start RV may be depends on the storage and on how fast the cluster writes: kubectl watchrv probe measures it.",
		reflectorRelists,
		"Relist and watch from the list's resourceVersion. Bookmarks cannot keep the last RV recent here: storage sends a watch no periodic bookmarks (only the watch cache does), so a quiet watch keeps the RV of its last change. Turn the watch cache on for this resource; if it is off on purpose, expect this after every quiet period longer than the compaction interval.",
	},
	KindEtcdCompactedExactList: {ClassExpired,
		"A list at an exact resourceVersion asked storage (etcd, or a shim such as kine) for a revision it has compacted away.",
		"Exact reads are served from storage's history (or, where ListFromCacheSnapshot is on, v1.34 and later, from the watch cache's snapshots first). The API server asks storage to compact every --etcd-compaction-interval (5 minutes by default): etcd then drops the history before that point, but kine (k3s's storage) never compacts closer than --compact-min-retain revisions (1,000 by default) to the current one, whoever asks. How old a start RV may be depends on the storage and on how fast the cluster writes: kubectl watchrv probe measures it. A list is Exact when it sets resourceVersionMatch=Exact, or (legacy rule) when it sets a resourceVersion other than 0 together with a limit.",
		exactListFails,
		"Do not list at an old exact RV: list with resourceVersion unset (consistent) or \"0\" (any), or use resourceVersionMatch=NotOlderThan, then watch from that list's resourceVersion.",
	},
	KindContinueExpired: {ClassExpired,
		"A paged list sent a continue token whose snapshot etcd has compacted away: the pages can no longer form one consistent list.",
		"Every page of a paged list is read at the first page's revision; when more than the compaction interval (5 minutes by default) passes between the first page and this one, that revision is gone. Slow consumers, tiny pages on a huge collection, or a pause between pages cause it.",
		pagerFallsBack,
		"Restart the list from page 1 without the continue token; read pages without pausing, or use a larger limit.",
	},
	KindContinueExpiredInconsistent: {ClassExpired,
		"A paged list sent a continue token whose snapshot etcd has compacted away. The server also returned a fresh continue token (metadata.continue) that would finish the list at the newest revision.",
		"Every page of a paged list is read at the first page's revision; when more than the compaction interval (5 minutes by default) passes between pages, that revision is gone. The fresh token reads the rest at a newer revision: objects created, changed or deleted since page 1 may show up, so the result is not one consistent list.",
		pagerFallsBack,
		"Restart the list from page 1 for a consistent list; use the fresh continue token only when an inconsistent list is acceptable.",
	},
	KindEtcdCompacted: {ClassExpired,
		"etcd refused a read or watch at a revision it has compacted away.",
		"This is etcd's own wording, as seen in API server logs (\"watch chan error\") or etcdctl. In an API server log it is usually the watch cache's own watch on etcd, which recovers by relisting; clients only see it as 410 Expired when their watch went to etcd (watch cache off).",
		"Nothing to do for client-go clients: what reaches them is a 410 Expired, handled by a relist.",
		"If it shows up with client-side 410 errors, see EtcdCompactedWatch; on its own in an API server log it is a warning, not an outage.",
	},
	KindEtcdV2IndexCleared: {ClassExpired,
		"A watch asked etcd v2 for the events after index {req}, but etcd v2's event history only reaches back to index {oldest}: the events in between are gone.",
		"etcd v2 keeps only its last 1,000 events for watches. This wording comes from Kubernetes 1.12 or older on etcd2 storage (removed in 1.13), or from a tool that watches etcd v2 directly; a v1.37 API server never sends it.",
		reflectorRelists,
		"Relist and watch from the new list's resourceVersion; a cluster that still runs on etcd2 storage needs an upgrade.",
	},
	KindTooOldResourceVersion: {ClassExpired,
		"The text says \"too old resource version\" without the numbers the API server always prints with it: an expiry, but of which RV and in which window is not known.",
		"The API server writes \"too old resource version: X (Y)\" (the watch cache window) or \"too old resource version: X\" (a watch cache snapshot). Without the numbers the line was cut, reworded by a client or a log pipeline, or written by a proxy or a test fake: the confidence is low.",
		reflectorRelists,
		"Relist and watch from the new list's resourceVersion; " + findFull,
	},
	KindGone: {ClassExpired,
		"The server answered 410 Gone: the resourceVersion (or continue token) of the request is older than what the server still keeps.",
		"Without the server's message it is not known which window dropped it: the watch cache's (watches), or etcd's compaction (watch cache off, exact lists, continue tokens). Servers before 1.18 used reason Gone; since then the reason is Expired.",
		reflectorRelists,
		"Relist without a resourceVersion (or from page 1) and watch from the new list's resourceVersion; " + toKnowWindow,
	},
	KindResourceVersionTooLarge: {ClassTooLarge,
		"A request asked for data at least as new as {req}, but this API server has only reached {cur} and did not catch up (an API server answers that with 504, reason Timeout, cause ResourceVersionTooLarge). A list the watch cache serves waits up to ~3 s for it first; one storage serves is answered at once (v1.30 and older serve lists with a limit from storage, and so does a server without a watch cache for the resource).",
		"The RV comes from somewhere this server has not seen yet: another API server whose cache is ahead (HA control planes), another cluster, a time before an etcd restore (RVs went back), or " + ownCacheCatchingUp + ". A plain watch from such an RV does not get this error (a streaming list, sendInitialEvents=true, does, as a list): the server holds it silently until it catches up where the watch cache serves it, or etcd without one (seen on v1.30 to v1.37); kine without a watch cache ends it at once with an empty answer.",
		"The Reflector treats TooLarge like Expired: it reads the state again from its last RV, then with resourceVersion=\"\" (a consistent read), which does not depend on the too-new RV; it does not retry that RV forever.",
		"List with resourceVersion unset (a consistent read) and watch from that list's resourceVersion; never carry RVs across clusters, API server sets or etcd restores.",
	},
	KindConsistentReadCacheLagging: {ClassTooLarge,
		"A consistent read (resourceVersion unset) could not be served from the watch cache: storage is at {req} but the cache has only reached {cur}, and it did not catch up in time, so the server answered 429 Too Many Requests.",
		"The client's RV is not the problem: the API server's own watch cache lags etcd (a restart, heavy load, or a slow etcd). With ConsistentListFromCacheSkipTimeoutFallback the server does not fall back to etcd and asks the client to retry instead.",
		"client-go retries 429 responses after their Retry-After by itself; the Reflector backs off and relists.",
		"Retry after the Retry-After delay; if it persists, check the API server's watch cache and etcd latency (apiserver_watch_cache_* and etcd_request_duration_seconds metrics).", // consistentReadFix's words
	},
	KindEtcdFutureRevision: {ClassTooLarge,
		"etcd refused a read at a revision it has not reached yet.",
		"This is etcd's own wording (seen in API server logs or etcdctl). The revision comes from another etcd cluster, from before a restore, or from an etcd member that is behind. The API server turns it into a 504 Too large resource version.",
		"Clients see it as a TooLarge error: the Reflector relists from its last RV, then with resourceVersion=\"\".",
		"Read without a revision (a consistent read) and start again from the revision that read returns; after an etcd restore, restart the API servers and clients so no one keeps RVs from before.",
	},
	KindRequestTimeout: {ClassOther,
		"A request timed out. It is not a resourceVersion error: no Too large resource version message or ResourceVersionTooLarge cause came with it.",
		"The server (or a proxy in between) did not answer in time: a slow or overloaded API server or etcd, a large list, an admission webhook, or a client-side timeout.",
		plainRetry,
		"Retry; for large collections list in pages (limit) or from the watch cache (resourceVersion=0); look at API server latency if it repeats.",
	},
	KindTooManyRequests: {ClassOther,
		"The API server rejected the request with 429 Too Many Requests (API Priority and Fairness or max-in-flight limits). It is not a resourceVersion error.",
		"The request's priority level has no free seats: too many concurrent requests from this client or others at the same level. Frequent relists (lists are expensive) are a common cause.",
		"client-go retries 429s after Retry-After; the Reflector logs \"Watch returned 429 - backing off\" and retries.",
		"Slow down: share informers instead of listing, page large lists, and check the FlowSchema and PriorityLevelConfiguration that classify this client (kubectl get flowschemas).",
	},
	KindInternalErrorAtCompaction: {ClassOther,
		"The server answered {code} with etcd's compaction message inside: a compacted revision reached the client as a server error instead of a 410.",
		"When an etcd compaction error is not translated into a 410 Expired on its way out (a wrapped error, an aggregated API server, a storage layer other than the built-in one, or a proxy in between), it is reported as a server error: the API server's generic error path answers 500. The cause is the same as a 410: the requested revision is older than etcd's compaction.",
		"client-go does not treat a {codeNumber} as Expired: the Reflector retries the watch after a server error, then lists again, which recovers.",
		"Treat it like an Expired error: relist and watch from the new list's resourceVersion; report the {codeNumber} to whoever runs that API server.",
	},
	KindServerError: {ClassOther,
		"The server answered with a 5xx error. It is not a resourceVersion error.",
		"A failure on the server side or on the way: the API server, an aggregated API server, a proxy or a load balancer.",
		"client-go retries some 5xx errors; the Reflector retries the watch after an internal error, then relists.",
		"Retry; if it repeats, look at the API server logs around that time.",
	},
	KindWatchEnded: {ClassOther,
		"A watch ended or broke without a resourceVersion error: the stream closed, or the client could not decode an event from it.",
		"Watches end on purpose: client-go asks for timeoutSeconds between 5 and 10 minutes, and the server ends any watch after --min-request-timeout (30 to 60 minutes). Otherwise a proxy, a load balancer or the network cut the stream.",
		"The Reflector restarts the watch from the last RV it saw, without a relist; only if that RV is too old by then does a 410 Expired follow.",
		"Nothing, if it happens every few minutes; if watches end within seconds, look at proxies and load balancers between the client and the API server (idle timeouts, HTTP/2 limits).",
	},
	KindInvalidResourceVersion: {ClassOther,
		"The server rejected the request's resourceVersion parameters as invalid: not a number, or a combination the API does not allow.",
		"resourceVersion is opaque, but etcd-backed servers only accept decimal numbers; resourceVersionMatch needs a resourceVersion, cannot go with a continue token, and Exact is refused for resourceVersion=0.",
		"client-go never builds such a request by itself; it comes from code that sets ListOptions by hand.",
		"Send an RV exactly as the server returned it (metadata.resourceVersion of a list or object), and check the resourceVersion, resourceVersionMatch and continue combination.",
	},
	KindInvalidContinue: {ClassOther,
		"The server rejected a continue token as malformed (not expired).",
		"Continue tokens are opaque: one that was edited, truncated, sent to another resource, or combined with a resourceVersion is refused with 400.",
		"tools/pager always sends the token of the previous page unchanged.",
		"Send the continue token of the previous page exactly as received, with the same selectors and without resourceVersion.",
	},
	KindConnectionReset: {ClassOther,
		"The connection to the API server broke (reset, lost HTTP/2 connection, unexpected EOF). It is not a resourceVersion error.",
		"A network, proxy or load balancer problem, or an API server that restarted or shut the connection down.",
		"The Reflector restarts the watch from the last RV it saw; if the break lasted long enough for that RV to expire, a 410 Expired and a relist follow.",
		"Nothing, if rare; if frequent, look at the network path and the API server's restarts.",
	},
	KindConflict: {ClassOther,
		"A write was refused with 409 Conflict: the metadata.resourceVersion the update carried is not the object's current one. It is not a List/Watch resourceVersion error.",
		"Optimistic concurrency: every write of an object changes its resourceVersion, and an update that carries an older one is refused so that it cannot overwrite a change it has not seen. Another writer (a controller, kubectl, a webhook, a status update) changed the object after this client read it, often because the client read it from an informer cache that lags.",
		"client-go does not retry writes by itself: retry.RetryOnConflict (k8s.io/client-go/util/retry) re-runs a read-modify-write; controller-runtime requeues the reconcile on the returned error.",
		"Re-read the object and apply the change again (client-go retry.RetryOnConflict), or use server-side apply or a patch without a resourceVersion, which no concurrent write can make stale.",
	},
	KindWatchCacheInitializing: {ClassOther,
		"The API server answered 429 Too Many Requests \"storage is (re)initializing\": its watch cache for this resource is being built, so it refused the list or watch for now. It is not a resourceVersion error: any RV gets the same answer until the cache is ready.",
		"Lists and watches served from the watch cache need the cache's initial list from etcd; while it is pending (after the API server starts, after a CRD is created or changed, or after the cache's own watch on etcd broke and it re-initializes) the server answers 429 with a Retry-After instead of holding the request (KEP-4568).",
		"client-go's REST client waits for the Retry-After and retries a 429 by itself (up to 10 times); the Reflector backs off and retries the list or watch.",
		"Back off and retry after the Retry-After delay; if it lasts more than a minute, look at the API server's watch cache (apiserver_watch_cache_initializations_total) and at etcd's health.",
	},
	KindResourceVersionSetOnCreate: {ClassOther,
		"A create was refused because the object sent already carried a metadata.resourceVersion: an object to be created must have none. It is not a List/Watch error.",
		"The server assigns the resourceVersion on create. Objects reused after a create or a get, or manifests exported with kubectl get -o yaml, still carry one. The API server passes this storage error on as a 500 without a reason.",
		"client-go sends the object as given and does not retry; controller-runtime's client.Create writes the server's answer back into the object, so creating the same object value twice fails this way.",
		"Clear metadata.resourceVersion (with uid and creationTimestamp) before a create, or build a fresh object; to create or update in one call, use server-side apply.",
	},
	KindResourceVersionMissingOnUpdate: {ClassOther,
		"An update was refused with 422 Invalid: this resource requires metadata.resourceVersion on an update, and the request carried none. It is not a List/Watch error.",
		"Resources whose update strategy does not allow unconditional updates (custom resources among them) refuse an update without a resourceVersion. The object was built from scratch or had its RV cleared instead of being read from the server: kubectl replace of a manifest, and controllers that build the desired object and Update it, hit this.",
		"client-go sends the object as given; it never fills in the resourceVersion.",
		"Read the current object and copy its metadata.resourceVersion into the update (inside retry.RetryOnConflict), or use server-side apply or a patch, which need no resourceVersion.",
	},
	KindWatchEventLostAtCompaction: {ClassOther,
		"A watch got an ERROR event, 500 InternalError \"etcd event received with PrevKv=nil\": the event at {oldest} could not be built, and the server ended the stream right after it (etcd3/watcher.go sendError). The event at {oldest} is lost.",
		"The watch went to storage (the watch cache is off for this resource) and reached a change whose object's previous value is compacted, so the API server cannot build the event. On etcd only the change at the compaction revision itself is lost this way (to a watch from just below the compaction point); kine (k3s's storage) drops the previous value of every object last changed below its compaction point, so a watch that started far above that point meets this too, at any later change of such an object. It is an expiry in disguise, reported as 500 instead of 410.",
		"client-go's Reflector ends the watch on any ERROR event: for a 500 it logs \"Warning: watch ended with error\" (or retries for MaxInternalErrorRetryDuration when set) and relists, which recovers. A rewatch from the same RV meets the same lost change.",
		"Relist, or watch again from {oldest} or later (on kine a later change of another old object can end that watch too: a relist is the sure way), and treat the object's state as unknown until then. Bookmarks cannot keep the last RV away from the compaction point: storage sends a watch no periodic bookmarks (only the watch cache does); a relist can, and so does turning the watch cache on for this resource.",
	},
	KindNetworkError: {ClassOther,
		"The client could not talk to the API server (connection refused, name resolution, TLS). It is not a resourceVersion error.",
		"The API server is down or unreachable from here, or the kubeconfig points at the wrong address.",
		"The Reflector keeps retrying with backoff; a watch resumes from its last RV once the server is back.",
		"Check the server address, the network path and the API server's health.",
	},
}

// withAdvice fills the texts of d's kind (and its class when unset), with
// its numbers in place of {req}, {oldest} and {cur}, and who serves what
// in place of {servedBy} and {consistentBy}. A text whose numbers
// contradict each other gets the texts told as what it claims.
func withAdvice(d Diagnosis) Diagnosis {
	a, ok := advices[d.Kind]
	if !ok {
		return d
	}
	if d.Class == "" {
		d.Class = a.class
	}
	if d.Inconsistent != "" {
		return liveFix(inconsistentAdvice(d, a))
	}
	d.What, d.Why, d.ClientGo, d.Fix = fillTexts(d, a.what), fillTexts(d, a.why), fillTexts(d, a.clientGo), fillTexts(d, a.fix)
	if d.Kind == KindTooOldResourceVersion && len(d.malformed) > 0 {
		// The numbers are there, not RVs: never "without the numbers"
		// (adversary F6).
		d.What = "The text says \"too old resource version\" with " + malformedWords(d.malformed) + " in a form the API server never prints (see the note): an expiry, but of which RV and in which window is not known."
		if d.OldestResourceVersion != "" {
			d.What += " The oldest servable RV it names, " + d.OldestResourceVersion + ", is one the server prints."
		}
		d.Why = "The API server writes \"too old resource version: X (Y)\" (the watch cache window) or \"too old resource version: X\" (a watch cache snapshot), each number decimal digits alone. A number in another form was reworded by a client or a log pipeline, or written by a proxy or a test fake: the confidence is low."
	} else if d.Kind == KindTooOldResourceVersion && d.RequestedResourceVersion != "" {
		// The numbers are known; which request and window are not
		// (checkOperation): say only that.
		d.What = fillTexts(d, said(d, "{req} was too old for the server (410 Expired); the text names one request and the server's wording belongs to the other, so which request expired, and in which window, is not known.",
			"{req} was too old for the server (410 Expired); the request was one, and the server's wording belongs to the other, so which window expired is not known."))
		d.Why = "The watch cache answers a watch from before its window with \"too old resource version: X (Y)\" and an exact list older than its snapshots with \"too old resource version: X\". " +
			said(d, "A text that names the other request was pieced together, cut, or reworded: the confidence is low.", "An answer in the other request's wording did not come from the watch cache as it is: the confidence is low.")
	}
	return liveFix(d)
}

// fillTexts puts d's numbers and the serving facts of its kind into text.
func fillTexts(d Diagnosis, text string) string {
	return fillServed(d, text, watchCacheOf(d.Kind))
}

// fillServed is fillTexts with the resource's watch cache as cache says
// ("on", "off", or "" for not known: servingWords).
func fillServed(d Diagnosis, text, cache string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	served, consistent := servingWords(cache)
	return strings.NewReplacer(
		"{req}", rvOr(d.RequestedResourceVersion, "its resourceVersion"),
		"{oldest}", rvOr(d.OldestResourceVersion, "a newer RV"),
		"{cur}", rvOr(d.CurrentResourceVersion, "an older RV"),
		"{servedBy}", served,
		"{consistentBy}", consistent,
		"{codeNumber}", codeNumber(int(d.Code)),
		"{code}", codeWords(int(d.Code)),
	).Replace(text)
}

// watchCacheOf is the one fact a kind gives about the watch cache of the
// resource: the watch cache's own wordings say it has one ("on"),
// storage's answer to a watch says it has none ("off"); "" when the kind
// does not say (then the texts say "where it has one"). Advice about
// bookmarks follows it too: storage sends a watch no periodic bookmark, so an "off"
// kind never recommends them (TestBookmarkAdviceOnlyWhereTheAnsweringSideSendsThem).
func watchCacheOf(kind string) string {
	switch kind {
	case KindWatchCacheWindow, KindWatchCacheSnapshot, KindConsistentReadCacheLagging, KindWatchCacheInitializing:
		return "on"
	case KindEtcdCompactedWatch, KindWatchEventLostAtCompaction:
		// A watch reaches storage only when the resource has no watch
		// cache: v1.37's cacher serves every watch of a resource that has
		// one (storage/cacher/cacher.go Watch), or answers 429 until ready.
		return "off"
	}
	return ""
}

// servingWords says who serves the Reflector's reads: the read from its
// last RV, and the consistent read (resourceVersion="").
func servingWords(cache string) (servedBy, consistentBy string) {
	const st = "storage (etcd, or a shim such as kine)"
	switch cache {
	case "on":
		return "served from the watch cache (a list with a limit goes to " + st + " on v1.30 and older)",
			", from the watch cache once it has caught up with " + st + " where ConsistentListFromCache is on (v1.31 and later), else from storage"
	case "off":
		return "served by " + st + ", as this resource has no watch cache",
			", from " + st + " too"
	}
	return "served from the watch cache where the resource has one, else by " + st,
		", from the watch cache once it has caught up with " + st + " where the resource has one and ConsistentListFromCache is on (v1.31 and later), else from storage"
}

func rvOr(v, unknown string) string {
	if v == "" {
		return unknown
	}
	return "RV " + v
}
