//go:build e2e

// Package faults proves that the plugin answers clearly, with a distinct
// exit code, when the network or the control plane misbehaves.
package faults

import (
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

var shared *framework.Cluster

func TestMain(m *testing.M) { framework.Main(m, &shared) }
