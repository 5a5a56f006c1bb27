package diagnose

import (
	"sync"
	"unsafe"
)

// The log prefilter: one Aho-Corasick pass over a line finds which anchors
// it holds, so that the 99% of lines that hold none cost one table lookup
// per byte and nothing else. The anchors are the very phrases the matchers
// look for (strong: a match is likely), plus the bits of text a status code
// or reason alone is read from (weak: confirmed with statusCodeIn/reasonIn
// before a line is classified). A line with no anchor cannot match any
// matcher; FuzzScanLogAgrees checks that ScanLog and FromText agree.

func strongAnchors() []string {
	a := []string{
		phraseTooOld, phraseTooLarge, phraseWatchTooOld, phraseListTooOld,
		phraseContinueTooOld, phraseFromTooOld, phraseCompacted, phraseFutureRev, phraseInternal, phraseServerErr,
		phraseV2Cleared, phraseConflict, phraseInitializing, phraseSetOnCreate, phraseMissingOnUpdate, phrasePrevKvNil,
		"ResourceVersionTooLarge", phraseWatchOf, phraseJavaExpired, phraseFabric8Gone, phraseJavaGone, phraseWatchListOff,
		phraseUnavailable,
	}
	for _, list := range [][]string{invalidRV, invalidContinue, connectionBroken, watchEnded, timeoutWords, throttleWords} {
		a = append(a, list...)
	}
	return a
}

// weakAnchors: status codes that classify by themselves (serverCodes, 410,
// 429, 504), the places a reason is read from, and .NET's rendering of a
// status code by name.
var weakAnchors = []string{"410", "429", "504", "500", "502", "503", "eason", "Error from server (", qualStatusName}

// acMachine is an Aho-Corasick automaton over byte classes: only bytes that
// occur in a pattern get a class of their own, which keeps the table small
// enough to stay in cache.
type acMachine struct {
	class    [256]uint8
	classes  int
	delta    []uint16 // state*classes + class -> next state*classes (premultiplied)
	outStart uint16   // states are numbered so that those where a pattern ends come last
	out      []uint64 // by state: bit i set when pattern i ends here (or in a suffix state)
}

func buildAC(patterns []string) *acMachine {
	if len(patterns) > 64 {
		panic("diagnose: more than 64 prefilter anchors")
	}
	// Letters are one class in either case: the anchors match whatever
	// the case of the line (a phrase reworded in capitals still reaches
	// the matchers, which read any case: phraseAt), so that ScanLog never
	// drops a line FromText classifies (adversary try 39 F10).
	m := &acMachine{classes: 1}
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			lo, up := foldCase(p[i])
			if m.class[lo] == 0 {
				m.class[lo] = uint8(m.classes)
				m.class[up] = m.class[lo]
				m.classes++
			}
		}
	}
	// The trie, with -1 for missing edges.
	goTo := [][]int{make([]int, m.classes)}
	for i := range goTo[0] {
		goTo[0][i] = -1
	}
	m.out = []uint64{0}
	for bit, p := range patterns {
		s := 0
		for i := 0; i < len(p); i++ {
			c := m.class[p[i]]
			if goTo[s][c] < 0 {
				row := make([]int, m.classes)
				for j := range row {
					row[j] = -1
				}
				goTo = append(goTo, row)
				m.out = append(m.out, 0)
				goTo[s][c] = len(goTo) - 1
			}
			s = goTo[s][c]
		}
		m.out[s] |= 1 << uint(bit)
	}
	// Breadth-first: failure links folded into a full transition table.
	delta := make([]int, len(goTo)*m.classes)
	fail := make([]int, len(goTo))
	queue := []int{}
	for c := 0; c < m.classes; c++ {
		if t := goTo[0][c]; t > 0 {
			delta[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] |= m.out[fail[s]]
		for c := 0; c < m.classes; c++ {
			if t := goTo[s][c]; t > 0 {
				fail[t] = delta[fail[s]*m.classes+c]
				delta[s*m.classes+c] = t
				queue = append(queue, t)
			} else {
				delta[s*m.classes+c] = delta[fail[s]*m.classes+c]
			}
		}
	}
	// Renumber: states without output first (the root stays 0), so that
	// "a pattern ends here" is one comparison in the scan loop.
	n := len(goTo)
	if n*m.classes > 1<<16 {
		panic("diagnose: prefilter automaton too large")
	}
	renum := make([]int, n)
	next := 0
	for pass := 0; pass < 2; pass++ {
		for st := 0; st < n; st++ {
			if (m.out[st] != 0) == (pass == 1) {
				renum[st] = next
				next++
			}
		}
	}
	out := make([]uint64, n)
	m.delta = make([]uint16, len(delta))
	for st := 0; st < n; st++ {
		out[renum[st]] = m.out[st]
		for c := 0; c < m.classes; c++ {
			m.delta[renum[st]*m.classes+c] = uint16(renum[delta[st*m.classes+c]] * m.classes)
		}
	}
	m.out = out
	first := n
	for st := n - 1; st >= 0 && out[st] != 0; st-- {
		first = st
	}
	m.outStart = uint16(min(first*m.classes, 1<<16-1))
	return m
}

// foldCase is b's lower and upper case (b twice when it is no ASCII
// letter).
func foldCase(b byte) (byte, byte) {
	switch {
	case b >= 'A' && b <= 'Z':
		return b + 'a' - 'A', b
	case b >= 'a' && b <= 'z':
		return b, b - 'a' + 'A'
	}
	return b, b
}

// scan returns the bits of the patterns found in b.
func (m *acMachine) scan(b []byte) uint64 {
	var mask uint64
	s := uint16(0)
	for _, c := range b {
		s = m.delta[int(s)+int(m.class[c])]
		if s >= m.outStart {
			mask |= m.out[int(s)/m.classes]
		}
	}
	return mask
}

// maxAnchorBytes: an anchor is the first bytes of its phrase, enough to be
// rare in ordinary lines; a phrase holds its anchor, so the line is still
// classified, and the automaton stays small enough for uint16 states.
const maxAnchorBytes = 24

func anchorsOf(phrases []string) []string {
	out := make([]string, len(phrases))
	for i, p := range phrases {
		out[i] = p[:min(len(p), maxAnchorBytes)]
	}
	return out
}

// prefilter is built on first use, not at start-up: about 1 MiB and a
// tenth of the plugin's start (issue 23: list costs what the list costs),
// which only a log scan needs.
var (
	prefilter  = sync.OnceValue(func() *acMachine { return buildAC(anchorsOf(append(strongAnchors(), weakAnchors...))) })
	strongBits = uint64(1)<<uint(len(strongAnchors())) - 1
)

// worthClassifying reports whether a log line may hold an error: a strong
// anchor, or a weak one that really is a status code or a reason.
func worthClassifying(line []byte) bool {
	mask := prefilter().scan(line)
	if mask == 0 {
		return false
	}
	if mask&strongBits != 0 {
		return true
	}
	// Read without copying: nothing read here outlives this call.
	t := unsafe.String(unsafe.SliceData(line), len(line))
	switch statusCodeIn(t) {
	case 410, 429, 504, 500, 502, 503:
		return true
	}
	switch reasonIn(t) {
	case "", "BadRequest", "Invalid", "Conflict":
		// Only a phrase (a strong anchor) makes these a finding.
		return false
	}
	return true
}
