package top

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxMeant is the largest value a sample can mean: a float64 holds every
// integer up to 2^53 exactly; a count beyond it (no server counts that
// far) is a broken or hostile exposition, and its differences are noise.
const maxMeant = 1 << 53

// Unmeasured is one sample top did not take: a value no server can mean
// (NaN, ±Inf, a counter below zero, beyond 2^53); or a whole family,
// declared with a TYPE no kube-apiserver gives it (Why). Its cells say
// "?", its bounds are not checked.
type Unmeasured struct {
	Family string `json:"family"`
	// Resource the series is of ("" none: a series of the server).
	Resource string `json:"resource,omitempty"`
	// Value is the sample's value ("NaN", "+Inf", "1e+308", "-100").
	Value string `json:"value,omitempty"`
	// Why, for a family not read at all, says why (its TYPE).
	Why string `json:"why,omitempty"`
}

// String is the sample and why it is not measured, for a note.
func (u Unmeasured) String() string {
	if u.Why != "" {
		return u.Why + ": not measured"
	}
	series := u.Family
	if u.Resource != "" {
		series += fmt.Sprintf("{resource=%q}", u.Resource)
	}
	return fmt.Sprintf("%s is %s, not a number the server can mean: not measured", series, u.Value)
}

// admit is the one place where a sample's value enters top (Extract calls
// it for every value it takes): x, or why not (the sample is recorded as
// unmeasured) when it is NaN, ±Inf, beyond 2^53, or below zero for a
// counter (counter: what top reads counts up, whatever the exposition's
// TYPE says). gr names the resource (nil: a series of the server).
func (v *Values) admit(family string, gr *schema.GroupResource, x float64, counter bool) (float64, string) {
	if meant(x, counter) {
		return x, ""
	}
	u := Unmeasured{Family: family, Value: strconv.FormatFloat(x, 'g', -1, 64)}
	if gr != nil {
		u.Resource = nameOf(*gr)
	}
	for _, seen := range v.Unmeasured {
		if seen == u {
			return 0, u.String()
		}
	}
	v.Unmeasured = append(v.Unmeasured, u)
	return 0, u.String()
}

// meant: x is a number a server can mean (finite, within 2^53, not
// negative for a counter).
func meant(x float64, counter bool) bool {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > maxMeant:
		return false
	case counter && x < 0:
		return false
	}
	return true
}

// unmeasured is why field f of gr is not measured in this sample ("" it
// is): its sample was no number the server can mean, or its family was
// declared with a TYPE no kube-apiserver gives it.
func (v *Values) unmeasured(gr schema.GroupResource, f Field) string {
	if why := v.mistyped[v.family(f)]; why != "" {
		return Unmeasured{Family: v.family(f), Why: why}.String()
	}
	return v.bad[gr][f]
}

func (v *Values) markBad(gr schema.GroupResource, f Field, why string) {
	if v.bad == nil {
		v.bad = map[schema.GroupResource]map[Field]string{}
	}
	if v.bad[gr] == nil {
		v.bad[gr] = map[Field]string{}
	}
	if v.bad[gr][f] == "" {
		v.bad[gr][f] = why
	}
}

// unmeasuredOf is every sample of a and b that was not taken, once each.
func unmeasuredOf(a, b *Values) []Unmeasured {
	out := []Unmeasured{}
	seen := map[Unmeasured]bool{}
	for _, v := range []*Values{a, b} {
		for _, u := range v.Unmeasured {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
