package top

// Quiet is what "nothing stands out" may claim of an interval: each claim
// ("no watcher closed as too slow", ...) only where every row (and, for
// APF, every server) measured it as zero. A counter that went down, a
// restart, a family not exposed or a value no server can mean is not
// measured, and is named in Unmeasured instead of claimed quiet.
type Quiet struct {
	Held       []string
	Unmeasured []string
}

// quietClaims are the claims in the order they are said, each with what
// it rests on: whether it was measured, and whether it was zero.
var quietClaims = []struct {
	claim, subject string
	of             func(*Report) (measured, zero bool)
}{
	{"no watcher closed as too slow", "closed watchers", rowsQuiet(func(r *Row) []Rate { return []Rate{r.Terminated} })},
	{"no 410, 429 or 5xx answer", "410/429/5xx answers", rowsQuiet(func(r *Row) []Rate { return []Rate{r.Code410, r.Code429, r.Code5xx} })},
	{"no APF rejection", "APF rejections", apfQuiet},
	{"no list served by storage", "lists served by storage", rowsQuiet(func(r *Row) []Rate { return []Rate{r.ListsStorage} })},
	{"no event sent to the watchers", "events sent", rowsQuiet(func(r *Row) []Rate { return []Rate{r.Events} })},
}

// QuietOf sorts the claims of a report into those its measurements hold
// and those they cannot (a claim measured and not zero is neither: a
// callout says it).
func QuietOf(r *Report) Quiet {
	var q Quiet
	for _, c := range quietClaims {
		switch measured, zero := c.of(r); {
		case !measured && c.subject == "APF rejections" && len(apfUnmeasuredOn(r)) < len(r.Servers):
			// Measured on some servers (their notes say so): not
			// measured is said of the others only (fresh user try 15).
			q.Unmeasured = append(q.Unmeasured, c.subject+" on server "+joinInts(apfUnmeasuredOn(r)))
		case !measured:
			q.Unmeasured = append(q.Unmeasured, c.subject)
		case zero:
			q.Held = append(q.Held, c.claim)
		}
	}
	return q
}

// rowsQuiet: every row's rates measured, and all zero.
func rowsQuiet(rates func(*Row) []Rate) func(*Report) (bool, bool) {
	return func(r *Report) (measured, zero bool) {
		measured, zero = true, true
		for _, row := range r.Rows {
			for _, rate := range rates(row) {
				measured = measured && rate.Known()
				zero = zero && rate.D() == 0
			}
		}
		return measured, zero
	}
}

// apfQuiet: every server measured APF's rejections, and all were zero.
func apfQuiet(r *Report) (measured, zero bool) {
	measured, zero = len(r.Servers) > 0, true
	for _, s := range r.Servers {
		if !s.Answered() || s.Restarted || s.APF == nil {
			measured = false
			continue
		}
		for _, a := range s.APF {
			measured = measured && a.Rejected.Known()
			zero = zero && a.Rejected.D() == 0
		}
	}
	return measured, zero
}

// apfUnmeasuredOn are the indexes of the servers whose APF rejections
// were not measured.
func apfUnmeasuredOn(r *Report) []int {
	var out []int
	for i, s := range r.Servers {
		one := &Report{Servers: []*Server{s}}
		if measured, _ := apfQuiet(one); !measured {
			idx := s.Index
			if idx == 0 {
				idx = i + 1
			}
			out = append(out, idx)
		}
	}
	return out
}
