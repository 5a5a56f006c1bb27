package main

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// The one partial-failure rule: all answered nil, some failed 12, none
// answered the first failure's own code.
func TestPartialFailureRule(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no grants"))
	budget := apiclient.ErrBudgetExhausted
	cases := []struct {
		total  int
		failed []failedTarget
		code   int
		words  string
	}{
		{3, nil, ExitOK, ""},
		{3, []failedTarget{{"server b", forbidden}}, ExitPartial, "1 of 3 API servers failed (the first, server b: Forbidden"},
		{2, []failedTarget{{"server a", forbidden}, {"server b", forbidden}}, ExitForbidden, "forbidden: none of the 2 API servers could be measured"},
		{1, []failedTarget{{"server a", budget}}, ExitBudget, "none of the 1 API servers could be measured"},
	}
	for _, c := range cases {
		err := partialFailure("API servers", c.total, c.failed)
		code := ExitOK
		if err != nil {
			code = exitCode(err)
		}
		if code != c.code || (c.words != "" && !strings.Contains(err.Error(), c.words)) {
			t.Errorf("%d of %d failed: code %d, %v; want %d with %q", len(c.failed), c.total, code, err, c.code, c.words)
		}
	}
}
