#!/usr/bin/env bash
# make krew-check: validate krew manifests with krew's own validation
# (sigs.k8s.io/krew v0.4.3, cmd/validate-krew-manifest; its validation
# package is internal to krew, so it is used through this CLI). Checks the
# checked-in template plugin.yaml, and dist/plugin.yaml when make dist made one.
#
#   hack/krew-check.sh [MANIFEST...]
set -euo pipefail
cd "$(dirname "$0")/.."

KREW_VERSION=v0.4.3
TOOLS=${WATCHRV_TOOLS:-$HOME/.cache/kubectl-watchrv/tools/krew-$KREW_VERSION}
VALIDATE=$TOOLS/validate-krew-manifest
if [ ! -x "$VALIDATE" ]; then
	echo "installing validate-krew-manifest $KREW_VERSION into $TOOLS"
	GOBIN=$TOOLS GOFLAGS= go install "sigs.k8s.io/krew/cmd/validate-krew-manifest@$KREW_VERSION"
fi

manifests=("$@")
if [ ${#manifests[@]} -eq 0 ]; then
	manifests=(plugin.yaml)
	[ -f dist/plugin.yaml ] && manifests+=(dist/plugin.yaml)
fi

version=$(cat VERSION)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in "${manifests[@]}"; do
	# krew infers the plugin name from the file name: it must be watchrv.yaml.
	cp "$m" "$tmp/watchrv.yaml"
	if ! out=$("$VALIDATE" -manifest "$tmp/watchrv.yaml" -skip-install 2>&1); then
		echo "krew-check: $m is not a valid krew manifest:" >&2
		# klog.Fatalf adds a goroutine dump: keep the message line only.
		reason=$(grep -m1 '^F' <<<"$out" | sed 's/^[^]]*] //') || reason=$out
		echo "  $reason" >&2
		exit 1
	fi
	if ! grep -q "^  version: $version\$" "$m"; then
		echo "krew-check: $m does not have spec.version $version (the VERSION file): update it" >&2
		exit 1
	fi
	echo "krew-check: $m is valid (krew $KREW_VERSION validation, version $version)"
done
