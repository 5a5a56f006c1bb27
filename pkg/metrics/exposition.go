package metrics

import (
	"fmt"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The form of a kube-apiserver's /metrics, which ParseSelected holds every
// answer to: client_golang's registry gathers each family once, its one
// "# TYPE" line before its samples, and each series (a name and its
// labels) once; it refuses to gather anything else. The Prometheus text
// parser does not check it (expfmt.TextParser: "checks for duplicates have
// to be performed separately"), and the batches ParseSelected parses
// would hide it anyway. An answer out of that form is no API server's:
// read as one, a family declared twice or a series repeated is summed
// (adversary try 19: 720 watchers where the server said 360, and a --check
// CROSSED that was not), so it cannot be read, in the one wording of an
// unreadable answer (exit 1).

func declaredTwice(family string) error {
	return notTheForm(fmt.Sprintf("it declares the family %s twice (two \"# TYPE\" lines)", text.Echo(family)), "its series would be counted twice")
}

func typeAfterSamples(family string) error {
	return notTheForm(fmt.Sprintf("it declares the family %s (its \"# TYPE\" line) after samples of it", family), "which TYPE its samples have is not known")
}

func seriesTwice(family string) error {
	return notTheForm(fmt.Sprintf("a series of %s comes twice (the same name and labels)", family), "its value would be counted twice")
}

func histogramWithoutPart(family string) error {
	return notTheForm(fmt.Sprintf("the histogram %s has a sample that is none of its parts (_bucket, _sum, _count)", family), "its value would be lost, read as 0")
}

// notTheForm: the answer is not in a kube-apiserver's form (what), and
// what reading it anyway would do (read).
func notTheForm(what, read string) error {
	return &apiclient.UnreadableAnswerError{What: what + ", which no kube-apiserver writes (read as it is, " + read + ")"}
}

// Form holds one /metrics text, as it streams, to a kube-apiserver's
// form: ParseSelected holds every text it parses to it, and so does a
// reader that scans its own lines (serverinfo's scan of three families,
// which ends early). The families a reader reads are also held to the
// TYPE a kube-apiserver gives them (familyTypes): one declared another
// way, or not at all (untyped), is not measured (Mistyped), never read.
type Form struct {
	// Mistyped: a family read that was declared with a TYPE other than a
	// kube-apiserver's, or with none, and why.
	Mistyped map[string]string
	declared map[string]bool // every family with a "# TYPE" line
	typed    map[string]bool // a family read, with its right TYPE
	sampled  map[string]bool // the families read a sample of came
	series   map[string]map[uint64]struct{}
}

// NewForm starts the form of one text.
func NewForm() *Form {
	return &Form{Mistyped: map[string]string{}, declared: map[string]bool{}, typed: map[string]bool{}, sampled: map[string]bool{}, series: map[string]map[uint64]struct{}{}}
}

// Declare takes the "# TYPE" line of family, which declares it typ ("":
// the line has no type); read: the reader reads the family, whose TYPE is
// checked. A family declared twice, or after samples of it, is an error.
func (f *Form) Declare(family, typ string, read bool) error {
	if f.declared[family] {
		return declaredTwice(family)
	}
	f.declared[family] = true
	if !read {
		return nil
	}
	if f.sampled[family] {
		return typeAfterSamples(family)
	}
	if why := wrongType(family, typ); why != "" {
		f.Mistyped[family] = why
		return nil
	}
	f.typed[family] = true
	return nil
}

// Sample takes a sample line of family, a family read: false when its
// samples are not to be read (Mistyped; a family of familyTypes without a
// "# TYPE" line before it is untyped, and joins Mistyped here).
func (f *Form) Sample(family string) bool {
	f.sampled[family] = true
	if !f.typed[family] && f.Mistyped[family] == "" {
		if why := wrongType(family, ""); why != "" {
			f.Mistyped[family] = why
		}
	}
	return f.Mistyped[family] == ""
}

// Series takes one series of family, by its labels: an error when a
// series of the same labels came before.
func (f *Form) Series(family string, labels map[string]string) error {
	seen := f.series[family]
	if seen == nil {
		seen = map[uint64]struct{}{}
		f.series[family] = seen
	}
	sig := model.LabelsToSignature(labels)
	if _, twice := seen[sig]; twice {
		return seriesTwice(family)
	}
	seen[sig] = struct{}{}
	return nil
}

// seriesOnce checks that the series of family mf, parsed from one batch,
// came once each (Form.Series): none of them was kept from an earlier
// batch, and no two of them have the same labels. The parser itself
// merges the lines of one histogram or summary series by their labels (a
// repeated _sum overwrites the first), so for those the batch's _sum and
// _count lines are counted (selector.parts): more of either than series
// is a series repeated.
func (s *selector) seriesOnce(family string, mf *dto.MetricFamily) error {
	for _, m := range mf.GetMetric() {
		labels := make(map[string]string, len(m.GetLabel()))
		for _, lp := range m.GetLabel() {
			labels[lp.GetName()] = lp.GetValue()
		}
		if err := s.form.Series(family, labels); err != nil {
			return err
		}
	}
	if p := s.parts[family]; p != nil && (p[0] > len(mf.GetMetric()) || p[1] > len(mf.GetMetric())) {
		return seriesTwice(family)
	}
	return nil
}
