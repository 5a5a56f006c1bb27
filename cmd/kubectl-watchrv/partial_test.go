package main

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/sweep"
)

// The one partial-failure rule: all answered nil, some failed 12, none
// answered the first failure's own code.
func TestPartialFailureRule(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no grants"))
	budget := apiclient.ErrBudgetExhausted
	cases := []struct {
		total  int
		failed []sweep.Failure
		code   int
		words  string
	}{
		{3, nil, ExitOK, ""},
		{3, []sweep.Failure{{Name: "server b", Err: forbidden}}, ExitPartial, "1 of 3 API servers failed (server b: 403 Forbidden"},
		{2, []sweep.Failure{{Name: "server a", Err: forbidden}, {Name: "server b", Err: forbidden}}, ExitForbidden, "forbidden: none of the 2 API servers could be measured"},
		{1, []sweep.Failure{{Name: "server a", Err: budget}}, ExitBudget, "the only API server could not be measured (server a: "},
	}
	for _, c := range cases {
		err := sweep.Partial("API server", c.total, c.failed)
		code := ExitOK
		if err != nil {
			code = exitCode(err)
		}
		if code != c.code || (c.words != "" && !strings.Contains(err.Error(), c.words)) {
			t.Errorf("%d of %d failed: code %d, %v; want %d with %q", len(c.failed), c.total, code, err, c.code, c.words)
		}
	}
}
