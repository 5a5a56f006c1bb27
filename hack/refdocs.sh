#!/usr/bin/env bash
# Generate (with -update) or check docs/reference/ from the Cobra command tree
# with github.com/spf13/cobra/doc.
#
#   hack/refdocs.sh           # check: fails when docs/reference/ is stale
#   hack/refdocs.sh -update   # regenerate (make docs-reference)
#
# The generator, hack/refdocs/generate_test.go, is compiled into package main
# of cmd/kubectl-watchrv with `go test -overlay` (it needs newRootCommand).
# cobra/doc imports go-md2man and blackfriday, which the plugin's go.mod does
# not list: they are added to a temporary copy of go.mod/go.sum passed with
# -modfile, so the real go.mod is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp go.mod "$tmp/refdocs.mod"
cp go.sum "$tmp/refdocs.sum"
cat >>"$tmp/refdocs.sum" <<'SUMS'
github.com/cpuguy83/go-md2man/v2 v2.0.6 h1:XJtiaUW6dEEqVuZiMTn1ldk455QWwEIsMIJlo5vtkx0=
github.com/russross/blackfriday/v2 v2.1.0 h1:JIOH55/0cWyOuilr9/qlrm0BSXldqnqwMsf35Ld67mk=
SUMS
if ! grep -q 'cpuguy83/go-md2man/v2 ' go.mod; then
	go mod edit -modfile="$tmp/refdocs.mod" \
		-require=github.com/cpuguy83/go-md2man/v2@v2.0.6 \
		-require=github.com/russross/blackfriday/v2@v2.1.0
fi
root=$(pwd)
printf '{"Replace":{"%s":"%s"}}' "$root/cmd/kubectl-watchrv/zz_refdocs_generate_test.go" \
	"$root/hack/refdocs/generate_test.go" >"$tmp/overlay.json"
update=()
tests='^TestReferenceDocs' # the byte-for-byte check and the cheap one
if [ "${1:-}" = -update ]; then
	update=(-update)
	tests='^TestReferenceDocsGenerated$'
fi
go test -modfile="$tmp/refdocs.mod" -overlay="$tmp/overlay.json" -tags refdocs -count=1 \
	-run "$tests" \
	./cmd/kubectl-watchrv "${update[@]}"
