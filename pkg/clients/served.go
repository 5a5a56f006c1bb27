package clients

// reachedRead is the one rule of whether a list or a watch answered with
// code reached the read of storage or of the watch cache: every count of
// where lists and watches were served goes through it (storage lists and
// the ones not known, the relists and the herds they make, the consistent
// reads, the in-stream 410s of the timeline; polling counts every list:
// the client polled, whatever the answer). Code 0 is a
// request still open at the log's end, or one whose answer the log does
// not record: counted as the lists it asked for, as before.
//
// The API server answers a read with a 4xx other than 410 before it reads
// anything (fresh user try 23 F2: two lists refused by RBAC were "STORAGE
// LISTS 2"): 401 from authentication, 403 from authorization, 429 from
// API Priority and Fairness (or a watch cache not yet ready, which then
// serves nothing), 404 and 405 from routing (an unknown resource, a verb
// it has not), 406 from content negotiation, 400 and 422 from the checks
// of the list options (ListResource and the watch handler validate them
// first). A 410 is the answer of the storage or the cache that looked at
// the RV; a 5xx comes from the handler or the storage while the read ran
// (a 504 list may have read etcd up to its timeout): both reached it.
//
// A watch reads (and sends the state of a streaming or legacy watch)
// inside its stream, after its 200: one answered with any error code
// started no stream and read nothing.
func reachedRead(verb string, code int) bool {
	if code >= 400 && code < 500 && code != 410 {
		return false
	}
	if verb == "watch" && code >= 400 {
		return false
	}
	return true
}
