package top

// History keeps, per server and resource, the sort column's value of the
// last intervals, for the sparkline of a refreshing view.
type History struct {
	max    int
	series map[historyKey][]float64
	shown  int
}

type historyKey struct {
	server   int
	resource string
}

// NewHistory keeps the last max intervals.
func NewHistory(max int) *History {
	return &History{max: max, series: map[historyKey][]float64{}}
}

// Add records r's rows under its sort key; a resource without a row in
// an interval (no load) counts 0 there.
func (h *History) Add(r *Report) {
	h.shown++
	seen := map[historyKey]bool{}
	for _, row := range r.Rows {
		k := historyKey{row.Server, row.Name()}
		seen[k] = true
		s := h.series[k]
		// A row new in this interval was idle before.
		for len(s) < min(h.shown-1, h.max-1) {
			s = append(s, 0)
		}
		h.series[k] = h.trim(append(s, SortValue(row, r.Sort)))
	}
	for k, s := range h.series {
		if !seen[k] {
			h.series[k] = h.trim(append(s, 0))
		}
	}
}

func (h *History) trim(s []float64) []float64 {
	if len(s) > h.max {
		return s[len(s)-h.max:]
	}
	return s
}

// Of is the row's history, oldest first.
func (h *History) Of(row *Row) []float64 {
	if h == nil {
		return nil
	}
	return h.series[historyKey{row.Server, row.Name()}]
}
