#!/usr/bin/env bash
# Generate (with -update) or check docs/reference/ from the Cobra command tree
# with github.com/spf13/cobra/doc (cmd/kubectl-watchrv/reference_gen_test.go).
#
#   hack/refdocs.sh           # check: fails when docs/reference/ is stale
#   hack/refdocs.sh -update   # regenerate (make docs-reference)
set -euo pipefail
cd "$(dirname "$0")/.."
update=()
[ "${1:-}" = -update ] && update=(-update)
go test -count=1 -run '^TestReferenceDocs' ./cmd/kubectl-watchrv "${update[@]}"
