package sweep

// The error lines of the partial-failure rule: some targets failed
// (PartialError), or none could be measured (NoneError), each count said
// as many as it is.

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

// Targets is what both errors of the rule hold: the targets' noun, how
// many there were, those that failed, and how the line says them.
type Targets struct {
	What   string
	Total  int
	Failed []Failure
	// See is where the output names each failure ("" the NOTE column).
	See string
	// PerTarget: each target's row says its own retries (WithRetriesPerTarget).
	PerTarget bool
	// Read is what each target's request was (ReadAs).
	Read Read
	// Fix is the fix of a failure by its class ("" none: FixBy): the
	// none-measured line names it when every failure has the same.
	Fix func(error) string
}

// targetsOf is err's Targets when err is a *PartialError or a *NoneError
// (nil otherwise): the one place the setters below reach them.
func targetsOf(err error) *Targets {
	switch e := err.(type) {
	case *PartialError:
		return &e.Targets
	case *NoneError:
		return &e.Targets
	}
	return nil
}

// PartialError: some targets answered, some failed (exit 12).
type PartialError struct{ Targets }

func (e *PartialError) Error() string {
	var broken, unmeasured, refusals []Failure
	for _, f := range e.Failed {
		switch {
		case f.breach():
			broken = append(broken, f)
		case !f.answered():
			unmeasured = append(unmeasured, f)
		default:
			refusals = append(refusals, f)
		}
	}
	// Each kind counted apart, in one order: a contract break (it gives
	// the run its code, 1) leads, then what could not be measured, then
	// what failed the check by its answer (fresh user try 33 F3,
	// adversary try 35 F3: "and 2 more failed" of a reset and a refusal).
	kinds := []struct {
		failed []Failure
		words  func(n int) string
	}{
		{broken, func(int) string { return "answered in breach of the List or Watch contract" }},
		{unmeasured, func(int) string { return "could not be measured" }},
		{refusals, func(n int) string {
			return "failed the check by " + map[bool]string{true: "its", false: "their"}[n == 1] + " answer"
		}},
	}
	if len(broken) == 0 && len(refusals) == 0 {
		kinds[1].words = func(int) string { return "failed" }
	}
	var lead string
	var more []string
	for _, k := range kinds {
		switch n := len(k.failed); {
		case n == 0:
		case lead == "":
			lead = fmt.Sprintf("%s %s (%s)", partOf(n, e.Total, e.What), k.words(n), firstOf(n, e.said(k.failed[0])))
		default:
			more = append(more, fmt.Sprintf("%d more %s", n, k.words(n)))
		}
	}
	if len(more) > 0 {
		lead += ", and " + strings.Join(more, ", and ")
	}
	if len(unmeasured) == 0 {
		// Every failure is an answer: the verdict covers them all.
		return fmt.Sprintf("%s: see %s for each one's answer and what it means", lead, seeOr(e.See))
	}
	return fmt.Sprintf("%s: the verdict covers only what was answered: see %s for each one's reason and its fix", lead, seeOr(e.See))
}

// said is one failure as the line names it. An answer is said with its
// status and request, as the none-measured line says it (fresh user try
// 29 F5: "Throttled: upstream busy"); no answer, by its reason class and
// its own words.
func (e *PartialError) said(f Failure) string {
	if _, answered := diagnose.StatusOf(f.Err); answered || f.answered() {
		return e.Read.words(f)
	}
	reason := f.Reason
	if reason == "" {
		reason = Reason(f.Err)
	}
	if reason == string(diagnose.FailureOther) {
		// "Other" is a class, not a reason: the failure's words say it
		// (adversary try 34 F3: "namespaces: Other: this API server
		// broke the Watch contract").
		reason = ""
	}
	return f.Name + ": " + diagnose.Prefixed(reason, text.OneLine(f.Err.Error()))
}

// NoneError: no target could be measured. It unwraps to the first
// failure, whose exit code it has.
type NoneError struct{ Targets }

func (e *NoneError) Error() string {
	prefix, hint := "", ": see "+seeOr(e.See)
	first := e.Read.words(e.Failed[0])
	// The connection's fix, as a one-server line says it (adversary try
	// 44 F4: "see the NOTE column" beside Go's words alone): the run's
	// when every server has it, else the first's.
	if fix := e.sharedFix(); fix != "" {
		hint = ": " + fix + "; see " + seeOr(e.See)
	} else if e.Fix != nil {
		if fix := e.Fix(e.Failed[0].Err); fix != "" {
			first += ": " + fix
		}
	}
	if e.AllForbidden() {
		prefix, hint = "forbidden: ", ": it needs "+e.Read.needs()
	}
	return fmt.Sprintf("%s%s (%s)%s",
		prefix, NoneOf(e.Total, e.What, "could be measured", "could not be measured"), firstOf(e.Total, first), hint)
}

// NoneOf says that none of total targets does what does says ("none of
// the 3 API servers could be measured"), or, of one, that it does not
// ("the only API server could not be measured"): never "none of the 1 API
// servers" (fresh user try 35 F6). noun is singular.
func NoneOf(total int, noun, does, doesNot string) string {
	if total == 1 {
		return "the only " + noun + " " + doesNot
	}
	return "none of the " + text.Count(total, noun) + " " + does
}

// partOf is n of total targets ("2 of 4 resources"), or the one alone
// ("the only resource").
func partOf(n, total int, noun string) string {
	if n == 1 && total == 1 {
		return "the only " + noun
	}
	return fmt.Sprintf("%d of %s", n, text.Count(total, noun))
}

// firstOf introduces the first of n failures' words: "the first" only
// when there are more.
func firstOf(n int, words string) string {
	if n == 1 {
		return words
	}
	return "the first, " + words
}

func (e *NoneError) Unwrap() error { return e.Failed[0].Err }

// sharedFix is the fix (Fix) every failure has, "" when they differ or
// have none.
func (e *NoneError) sharedFix() string {
	if e.Fix == nil {
		return ""
	}
	fix := e.Fix(e.Failed[0].Err)
	for _, f := range e.Failed[1:] {
		if e.Fix(f.Err) != fix {
			return ""
		}
	}
	return fix
}

// AllForbidden: every target failed with 403 (the one test of "every
// resource forbidden").
func (e *NoneError) AllForbidden() bool {
	for _, t := range e.Failed {
		if diagnose.ClassifyFailure(t.Err) != diagnose.FailureForbidden {
			return false
		}
	}
	return true
}
