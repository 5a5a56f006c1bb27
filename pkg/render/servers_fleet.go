package render

// How many servers a per-server report speaks of: the fleet (the title,
// the Interrupted line's M), and the servers its requests went to (the
// Requests line). They differ when the signal cut a server, or when an
// address was never dialled.

// asked is how many servers the requests of the Requests line went to:
// the rows that count one. Never the fleet: a server the signal cut is no
// row (its requests are said apart, Interruption.CutRequests), and one
// that was never dialled (no IP address) got none (user try 24 F3: "4 to
// 2 server(s)" when all 4 went to the one measured).
func (r ServersReport) asked() int {
	n := 0
	for _, s := range r.Servers {
		if s.Requests > 0 {
			n++
		}
	}
	return n
}

// fleet is how many servers the run had: the rows, and when the signal
// cut it, those it did not measure too.
func (r ServersReport) fleet() int {
	if r.Interrupted != nil {
		return r.Interrupted.Of
	}
	return len(r.Servers)
}
