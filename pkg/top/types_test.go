package top

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
)

// Every family top reads has the TYPE a kube-apiserver declares it known
// (metrics.KnowsType): one of another TYPE is then not measured, never 0.
func TestTopFamiliesHaveTheirType(t *testing.T) {
	for _, name := range Families {
		if !metrics.KnowsType(name) {
			t.Errorf("%s has no TYPE known", name)
		}
	}
}
