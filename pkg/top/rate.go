package top

// Rate is one counter over one interval: both raw samples, their
// difference, the interval and the rate. A counter with no series yet in
// a sample counts 0 there (a counter vector has no series before its first
// increment, on a server whose version registers it). Missing says why
// there is no value (the family and the reason); WentDown: the counter is
// lower in the second sample (the server restarted, or the series was
// recreated), and no rate is given, never a negative one; nor when
// Restarted (the server's process started anew between the samples).
type Rate struct {
	First     *float64 `json:"first,omitempty"`
	Second    *float64 `json:"second,omitempty"`
	Delta     *float64 `json:"delta,omitempty"`
	PerSecond *float64 `json:"perSecond,omitempty"`
	Seconds   float64  `json:"seconds"`
	WentDown  bool     `json:"wentDown,omitempty"`
	Restarted bool     `json:"restarted,omitempty"`
	Missing   string   `json:"missing,omitempty"`
	// Unmeasured: a sample of the counter was not a number the server
	// can mean (NaN, ±Inf, below zero, beyond 2^53): no value, and why.
	Unmeasured string `json:"unmeasured,omitempty"`
}

// Why is why the rate has no value ("" it has one).
func (r Rate) Why() string {
	switch {
	case r.Unmeasured != "":
		return r.Unmeasured
	case r.Missing != "":
		return r.Missing
	case r.Restarted:
		return "the server restarted between the two samples"
	case r.WentDown:
		return "the counter went down between the two samples (the server restarted, or the series was recreated)"
	}
	return ""
}

// Known reports whether the rate has a value.
func (r Rate) Known() bool { return r.Delta != nil }

// D is the difference (0 when not known).
func (r Rate) D() float64 {
	if r.Delta == nil {
		return 0
	}
	return *r.Delta
}

// PS is the rate per second (0 when not known).
func (r Rate) PS() float64 {
	if r.PerSecond == nil {
		return 0
	}
	return *r.PerSecond
}

// Gauge is one gauge in the second sample, or why there is none.
type Gauge struct {
	Value      *float64 `json:"value,omitempty"`
	Missing    string   `json:"missing,omitempty"`
	Unmeasured string   `json:"unmeasured,omitempty"`
}

// Why is why the gauge has no value ("" it has one).
func (g Gauge) Why() string {
	if g.Unmeasured != "" {
		return g.Unmeasured
	}
	return g.Missing
}

// V is the value (0 when not known).
func (g Gauge) V() float64 {
	if g.Value == nil {
		return 0
	}
	return *g.Value
}

// Known reports whether the gauge has a value.
func (g Gauge) Known() bool { return g.Value != nil }

func ptr(f float64) *float64 { return &f }

// newRate builds the rate of first and second over seconds; restarted:
// the server's process started anew between them, so no difference is
// taken even where the counter grew.
func newRate(first, second, seconds float64, restarted bool) Rate {
	r := Rate{First: ptr(first), Second: ptr(second), Seconds: seconds}
	if restarted || second < first {
		r.WentDown, r.Restarted = second < first, restarted
		return r
	}
	d := second - first
	r.Delta = &d
	if seconds > 0 {
		r.PerSecond = ptr(d / seconds)
	}
	return r
}
