package listing

import (
	"fmt"
	"hash/maphash"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// One namespace/name holds one object, and one UID names one object: a
// list that answers the same object twice (on one page or across pages)
// broke the List contract, as one with items the request excluded did
// (adversary try 20 #7: [a, a, a] was counted 3 times, printed 3 times
// by -o name, and a watch was suggested from it).
//
// The check keeps a 64-bit hash of each kept item's namespace/name and
// of its UID, never the strings, and at most MaxDuplicateHashes of them
// (about 40 MiB at the most: a Go map of 2^20 uint64 keys measured 36 MiB
// on Go 1.26): the names and UIDs of the first 524,288 items. Past that bound
// the items are not checked, and the walk says how many were not
// (Attempt.NamesUnchecked), so no output claims what was not checked.
// The hashes are seeded at random for each check: two different names
// collide with a chance of about 1 in 2^64 per pair (3 in 10^8 at the
// bound), so a breach named here is the answer's, whatever its names.

// MaxDuplicateHashes bounds the hashes one duplicate check keeps: two
// per item (its namespace/name and its UID).
const MaxDuplicateHashes = 1 << 20

type dupCheck struct {
	seed      maphash.Seed
	seen      map[uint64]struct{}
	first     string // how the first repeat repeats ("" none)
	repeats   int64
	unchecked int64
}

func newDupCheck() *dupCheck {
	return &dupCheck{seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// add checks one item the request kept against those before it.
func (d *dupCheck) add(it ItemMeta) {
	if len(d.seen)+2 > MaxDuplicateHashes {
		d.unchecked++
		return
	}
	// The two keys cannot meet: a name key holds a "/" and a 0 byte, a
	// UID key starts with a 1 byte.
	name := d.hash("\x00" + it.Namespace + "/" + it.Name)
	_, twice := d.seen[name]
	d.seen[name] = struct{}{}
	uidTwice := false
	if it.UID != "" {
		uid := d.hash("\x01" + it.UID)
		_, uidTwice = d.seen[uid]
		d.seen[uid] = struct{}{}
	}
	if !twice && !uidTwice {
		return
	}
	d.repeats++
	if d.first != "" {
		return
	}
	if twice {
		d.first = fmt.Sprintf("%s more than once", objectOf(it))
	} else {
		d.first = fmt.Sprintf("UID %q for more than one object (the second: %s)", text.Echo(it.UID), objectOf(it))
	}
}

func (d *dupCheck) hash(s string) uint64 { return maphash.String(d.seed, s) }

// breach is how the items repeated ("" when none did).
func (d *dupCheck) breach() string {
	if d.first == "" {
		return ""
	}
	more := ""
	if d.repeats > 1 {
		more = fmt.Sprintf(" (%s repeat an earlier one)", text.Count(int(d.repeats), "item"))
	}
	return fmt.Sprintf("it answered %s%s, where in one list a namespace/name, and a UID, names one object", d.first, more)
}

// objectOf is "object "namespace/name"", or the name of a cluster-scoped
// object, bounded for a line (as apiclient names an excluded one).
func objectOf(it ItemMeta) string {
	if it.Namespace == "" {
		return fmt.Sprintf("object %q", text.Echo(it.Name))
	}
	return fmt.Sprintf("object %q", text.Echo(it.Namespace+"/"+it.Name))
}
