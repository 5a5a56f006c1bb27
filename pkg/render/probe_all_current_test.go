package render

import (
	"strings"
	"testing"

	"github.com/watchrv/kubectl-watchrv/pkg/probe"
)

// TestRunCurrentTextClaimsOnlyTheRowsThatShared: the run's current RV is
// said shared by as many rows as used it (their currentFrom), never by
// "the resources" when every row read its own (a cluster without a watch
// cache: every row is searched in full).
func TestRunCurrentTextClaimsOnlyTheRowsThatShared(t *testing.T) {
	c := probe.RunWide{Current: 564, From: "validatingadmissionpolicies.admissionregistration.k8s.io", Reads: 1}
	own := []ProbeReport{{CurrentFrom: probe.CurrentOwn, CurrentResourceVersion: "560"}, {CurrentFrom: probe.CurrentOwn, CurrentResourceVersion: "561"}, {CurrentFrom: probe.CurrentOwn, CurrentResourceVersion: "562"}}
	if got := runCurrentText(c, own); !strings.Contains(got, "no row shared") || strings.Contains(got, "564") {
		t.Errorf("every row its own: %q", got)
	}
	mixed := []ProbeReport{{CurrentFrom: probe.CurrentOwn, CurrentResourceVersion: "563"}, {CurrentFrom: probe.CurrentRun}, {CurrentFrom: probe.CurrentRun}}
	if got := runCurrentText(c, mixed); !strings.Contains(got, "shared by 2 of the 3 rows") || !strings.Contains(got, "1 read their own") {
		t.Errorf("two of three shared: %q", got)
	}
}

// A row whose own read failed read no current RV: it is not counted among
// those that read their own (fresh user try 31 F6).
func TestRunCurrentTextCountsOnlyTheReadsThatAnswered(t *testing.T) {
	c := probe.RunWide{Current: 564, From: "secrets", Reads: 1}
	rows := []ProbeReport{{CurrentFrom: probe.CurrentOwn, Error: "forbidden"}, {CurrentFrom: probe.CurrentRun}}
	if got := runCurrentText(c, rows); strings.Contains(got, "read their own") || !strings.Contains(got, "shared by 1 of the 2 rows; 1 failed row gives none") {
		t.Errorf("a failed own read: %q", got)
	}
	// fresh user try 35 F4: a row whose watch was refused measured
	// nothing: not among those that shared the run's RV.
	rows = []ProbeReport{{CurrentFrom: probe.CurrentRun, Error: "forbidden"}, {CurrentFrom: probe.CurrentRun, Error: "forbidden"}, {CurrentFrom: probe.CurrentRun}}
	if got := runCurrentText(c, rows); !strings.Contains(got, "shared by 1 of the 3 rows; 2 failed rows give none") {
		t.Errorf("failed rows that used the run's RV: %q", got)
	}
}

// The row whose list read the run's RV measured it, though its watch
// failed (adversary try 36 F1).
func TestTheRowThatReadTheRunsRVKeepsIt(t *testing.T) {
	c := probe.RunWide{Current: 400, From: "configmaps", Reads: 1}
	rows := []ProbeReport{{Resource: "configmaps", CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "400", Error: "forbidden"}, {Resource: "secrets", CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "400", Error: "forbidden"}}
	if got := runCurrentText(c, rows); !strings.Contains(got, "shared by 1 of the 2 rows; 1 failed row gives none (and 1 that failed after its list read the run's RV shows it)") {
		t.Errorf("the reading row failed its watch: %q", got)
	}
}

// A row whose answers broke the contract gives no current RV, not even
// the run's its list read (adversary try 38 F2: "100" in every row under
// "no row read a current RV").
func TestABreachingRowGivesNoCurrentRV(t *testing.T) {
	c := probe.RunWide{Current: 100, From: "configmaps", Reads: 1}
	rows := []ProbeReport{{Resource: "configmaps", CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "100", Error: "broke", outOfOrder: true}}
	if got := runCurrentText(c, rows); !strings.Contains(got, "the run's current RV 100 (a consistent list of configmaps) is given for no row; 1 failed row gives none") {
		t.Errorf("a breaching row: %q", got)
	}
}

// Fresh user try 46 F2: the cluster wrote during the run, and the run's
// RV moved (666, then 668 read by events' own list): "current RV 668
// shared by 61 rows" was said of 19 rows that had 666. Each value is said
// with the rows that have it.
func TestRunCurrentTextSaysEachValueTheRowsShared(t *testing.T) {
	c := probe.RunWide{Current: 668, From: "events.events.k8s.io", Reads: 2, History: []probe.RunRead{{Current: 666, From: "bindings"}, {Current: 668, From: "events.events.k8s.io"}}}
	rows := []ProbeReport{{Resource: "bindings", CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "666"}, {CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "666"},
		{Resource: "events.events.k8s.io", CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "668"}, {CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "668"}, {CurrentFrom: probe.CurrentRun, CurrentResourceVersion: "668"}}
	got := runCurrentText(c, rows)
	if !strings.Contains(got, "666 (a consistent list of bindings) shared by 2 rows, 668 (a consistent list of events.events.k8s.io) shared by 3 rows, of the 5 rows") || strings.Contains(got, "shared by 5") {
		t.Errorf("two values: %q", got)
	}
}
