package main

import (
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/top"
)

// A crossed bound decides top --check's code (14), and a bound that could
// not be checked in the same interval is still said on the one error line
// (a fresh user, cache off: --max-terminated was dropped from it).
func TestTopExitNamesTheUncheckedBesideTheCrossed(t *testing.T) {
	three := 3.0
	r := &top.Report{Checks: []top.Check{
		{Flag: "--max-watchers configmaps=2", Max: 2, Value: &three, Crossed: true, Where: "configmaps: 3 watchers"},
		{Flag: "--max-terminated 0", Note: "the watch cache is off on this server"},
	}}
	err := (&TopOptions{}).topExit(r, nil)
	if exitCode(err) != ExitCheck {
		t.Fatalf("exit %d, want %d: %v", exitCode(err), ExitCheck, err)
	}
	for _, want := range []string{"1 bound crossed: --max-watchers configmaps=2: configmaps: 3 watchers", "1 bound not checked: --max-terminated 0 (the watch cache is off on this server)"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the error line lacks %q: %v", want, err)
		}
	}
}
