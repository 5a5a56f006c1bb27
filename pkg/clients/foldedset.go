package clients

import "hash/maphash"

// maxFoldedCounted bounds the clients folded that are told apart (a var:
// a test lowers it): 8-byte hashes, about 16 to 24 MiB at most, while
// each client kept apart holds far more. Past it, a client folded for the
// first time is not told from one folded before, and the count is a
// floor.
var maxFoldedCounted = 1 << 20

// foldedClients is the set of the clients folded, each told apart by a
// 64-bit hash of its key (a seed of the run's: a log cannot choose
// collisions): a client folded, seen again and folded again is one
// client, not two (user try 22 #5: "376 clients folded" of a log of 9,
// with --max-clients 2; the report counted folds).
type foldedClients struct {
	seed maphash.Seed
	set  map[uint64]struct{}
	// over: a client past maxFoldedCounted was not counted.
	over bool
}

// add counts k's client as folded.
func (f *foldedClients) add(k clientKey) {
	if f.set == nil {
		f.seed, f.set = maphash.MakeSeed(), map[uint64]struct{}{}
	}
	h := maphash.Comparable(f.seed, k)
	if _, ok := f.set[h]; ok {
		return
	}
	if len(f.set) >= maxFoldedCounted {
		f.over = true
		return
	}
	f.set[h] = struct{}{}
}

// has: k's client was folded (and counted).
func (f *foldedClients) has(k clientKey) bool {
	if f.set == nil {
		return false
	}
	_, ok := f.set[maphash.Comparable(f.seed, k)]
	return ok
}

// count is how many clients were folded, and whether that is a floor.
func (f *foldedClients) count() (n int64, atLeast bool) {
	return int64(len(f.set)), f.over
}
