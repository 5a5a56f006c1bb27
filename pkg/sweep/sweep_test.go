package sweep

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
)

type recorder struct{ lines, done int }

func (r *recorder) Progress(string, ...any) { r.lines++ }
func (r *recorder) ProgressDone()           { r.done++ }

func resources(names ...string) []apiclient.Resource {
	var out []apiclient.Resource
	for _, n := range names {
		out = append(out, apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: n}})
	}
	return out
}

// A check cut by the end of the context is not a row, its requests are
// counted apart (Cut, not in Requests, the rows'), and the progress line
// is ended.
func TestEachInterruptedCheckIsNotARow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &recorder{}
	run := Each(ctx, resources("a", "b", "c"), Options{Verb: "checking", Progress: p, What: "resource"},
		func(_ context.Context, res apiclient.Resource) Step[string] {
			if res.GVR.Resource == "b" {
				cancel()
			}
			return Step[string]{Row: res.GVR.Resource, Requests: 3}
		})
	if len(run.Rows) != 1 || run.Requests != 3 || run.Cut != 3 || !run.Interrupted || run.Of != 3 {
		t.Fatalf("got rows %v requests %d cut %d interrupted %v of %d", run.Rows, run.Requests, run.Cut, run.Interrupted, run.Of)
	}
	if p.lines != 2 || p.done != 1 {
		t.Fatalf("progress: %d lines, %d ends; want 2 and 1", p.lines, p.done)
	}
	if !errors.Is(run.Err(ctx), context.Canceled) {
		t.Fatalf("an interrupted run gives the context's error, got %v", run.Err(ctx))
	}
}

// Some failed: a *PartialError; all failed: a *NoneError unwrapping to the
// first failure; targets per step count (one per server).
func TestEachPartialFailureRule(t *testing.T) {
	ctx := context.Background()
	check := func(failing string) func(context.Context, apiclient.Resource) Step[string] {
		return func(_ context.Context, res apiclient.Resource) Step[string] {
			s := Step[string]{Row: res.GVR.Resource, Targets: 2}
			if failing == "" || res.GVR.Resource == failing {
				s.Failures = []Failure{{Name: res.GVR.Resource, Err: apiclient.ErrBudgetExhausted}, {Name: res.GVR.Resource, Err: apiclient.ErrBudgetExhausted}}
			}
			return s
		}
	}
	var partial *PartialError
	if run := Each(ctx, resources("a", "b"), Options{What: "probe"}, check("b")); !errors.As(run.Err(ctx), &partial) || partial.Total != 4 || len(partial.Failed) != 2 {
		t.Fatalf("2 of 4 failed: want a PartialError over 4, got %v", run.Err(ctx))
	}
	var none *NoneError
	err := Each(ctx, resources("a", "b"), Options{What: "probe"}, check("")).Err(ctx)
	if !errors.As(err, &none) || !errors.Is(err, apiclient.ErrBudgetExhausted) || none.AllForbidden() {
		t.Fatalf("all failed: want a NoneError unwrapping to the budget, got %v", err)
	}
	if err := Each(ctx, resources("a"), Options{}, check("x")).Err(ctx); err != nil {
		t.Fatalf("none failed: want nil, got %v", err)
	}
}

// The error line's "the first" is the first failed row of the command's
// table, not the first checked (fresh user try 33 F3), and a failure by
// its answer is counted apart from what could not be measured.
func TestPartialErrorNamesTheFirstRowAndCountsAnswersApart(t *testing.T) {
	failed := []Failure{
		{Name: "endpoints", Err: errors.New("endpoints refused"), Answered: true},
		{Name: "secrets", Err: errors.New("secrets refused"), Answered: true},
		{Name: "services", Err: apiclient.ErrBudgetExhausted},
	}
	err := InTableOrder(Partial("resource", 4, failed), []string{"secrets", "services", "endpoints", "configmaps"})
	want := "1 of 4 resources could not be measured (services: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), ", and 2 more failed the check by their answer") {
		t.Fatalf("got %v, want it to start %q and count the 2 answers apart", err, want)
	}
	all := InTableOrder(Partial("resource", 4, failed[:2]), []string{"secrets", "services", "endpoints", "configmaps"})
	if all == nil || !strings.HasPrefix(all.Error(), "2 of 4 resources failed the check by their answer (the first, secrets refused)") {
		t.Fatalf("got %v, want the answers alone, the first row's first", all)
	}
	var partial *PartialError
	if err := Partial("resource", 3, failed); !errors.As(err, &partial) {
		t.Fatalf("every target failed, some by their answer: %v, want a partial failure (the answers were measured)", err)
	}
	if err := Partial("resource", 2, failed[:2]); !errors.As(err, &partial) || !strings.HasPrefix(err.Error(), "2 of 2 resources failed the check by their answer") {
		t.Fatalf("every target failed by its answer: %v, want a partial failure of answers (never \"none could be measured\")", err)
	}
	var none *NoneError
	if err := Partial("resource", 1, failed[2:]); !errors.As(err, &none) {
		t.Fatalf("no target answered: %v, want a NoneError", err)
	}
}

// A contract break leads the line, and the others are counted by kind
// (adversary try 35 F3: "and 2 more failed" of a reset and a refusal).
func TestAContractBreakLeadsAndTheOthersAreCountedByKind(t *testing.T) {
	failed := []Failure{
		{Name: "deployments", Err: apiclient.ErrBudgetExhausted},
		{Name: "configmaps", Err: errors.New("configmaps refused"), Answered: true},
		{Name: "namespaces", Err: &diagnose.ContractError{Contract: "Watch", Breach: "outside the request"}},
	}
	err := Partial("resource", 4, failed)
	want := "1 of 4 resources answered in breach of the List or Watch contract (namespaces: this API server broke the Watch contract: outside the request), and 1 more could not be measured, and 1 more failed the check by its answer: the verdict covers only what was answered"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v\nwant it to start %q", err, want)
	}
}

// A count agrees with its number on every line of the rule: one target
// is "the only resource", one failure is named without "the first", and
// one answer is "its" (fresh user try 35 F6: "none of the 1 resources").
func TestTheLinesAgreeWithTheirCounts(t *testing.T) {
	answer := Failure{Name: "secrets", Err: errors.New("secrets refused"), Answered: true}
	lost := Failure{Name: "services", Err: apiclient.ErrBudgetExhausted}
	for _, c := range []struct {
		total  int
		failed []Failure
		want   string
	}{
		{1, []Failure{lost}, "the only resource could not be measured (services: "},
		{1, []Failure{answer}, "the only resource failed the check by its answer (secrets refused)"},
		{2, []Failure{lost, {Name: "pods", Err: apiclient.ErrBudgetExhausted}}, "none of the 2 resources could be measured (the first, services: "},
		{3, []Failure{answer}, "1 of 3 resources failed the check by its answer (secrets refused)"},
	} {
		err := Partial("resource", c.total, c.failed)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%d of %d: %v, want it to start %q", len(c.failed), c.total, err, c.want)
		}
		for _, wrong := range []string{"1 resources", "(the first, " + c.failed[0].Name} {
			if len(c.failed) == 1 && err != nil && strings.Contains(err.Error(), wrong) {
				t.Errorf("%d of %d: %v says %q", len(c.failed), c.total, err, wrong)
			}
		}
	}
}

// A run where no server could be measured says the fix of its failures
// (FixBy) as a one-server line does: after the line when every failure
// has the same, beside the first when they differ (adversary try 44 F4:
// "see the NOTE column" beside Go's words alone).
func TestTheNoneMeasuredLineSaysTheConnectionsFix(t *testing.T) {
	fix := func(err error) string {
		if strings.Contains(err.Error(), "certificate") {
			return "check the CA"
		}
		return ""
	}
	tls := Failure{Name: "server 1", Err: errors.New("certificate of an unknown authority")}
	other := Failure{Name: "server 2", Err: errors.New("nothing listens")}
	for _, c := range []struct {
		failed []Failure
		want   string
	}{
		{[]Failure{tls}, "(server 1: certificate of an unknown authority): check the CA; see the NOTE column"},
		{[]Failure{tls, {Name: "server 2", Err: tls.Err}}, "(the first, server 1: certificate of an unknown authority): check the CA; see the NOTE column"},
		{[]Failure{tls, other}, "(the first, server 1: certificate of an unknown authority: check the CA): see the NOTE column"},
		{[]Failure{other, tls}, "(the first, server 2: nothing listens): see the NOTE column"},
	} {
		err := FixBy(Partial("API server", len(c.failed), c.failed), fix)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: want %q", err, c.want)
		}
	}
}
