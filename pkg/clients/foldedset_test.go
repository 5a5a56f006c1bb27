package clients

import "testing"

// Past the most clients told apart, the count is a floor and says so;
// below it, a client folded twice is one.
func TestFoldedClientsPastTheBoundIsAFloor(t *testing.T) {
	defer func(m int) { maxFoldedCounted = m }(maxFoldedCounted)
	maxFoldedCounted = 3
	var f foldedClients
	for range 2 {
		for _, a := range []string{"a", "b", "c", "d", "e"} {
			f.add(clientKey{user: "u", agent: a})
		}
	}
	if n, atLeast := f.count(); n != 3 || !atLeast {
		t.Errorf("%d clients, at least %v: want at least 3", n, atLeast)
	}
	var g foldedClients
	g.add(clientKey{user: "u", agent: "a"})
	g.add(clientKey{user: "u", agent: "a"})
	g.add(clientKey{user: "u", agent: "a", byIP: true})
	if n, atLeast := g.count(); n != 2 || atLeast || !g.has(clientKey{user: "u", agent: "a"}) {
		t.Errorf("%d clients, at least %v: want 2 exactly", n, atLeast)
	}
}
