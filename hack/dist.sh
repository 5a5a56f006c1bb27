#!/usr/bin/env bash
# make dist: cross-compile reproducible binaries, pack them with LICENSE and
# README.md into kubectl-watchrv_<version>_<os>_<arch>.tar.gz (.zip for
# windows), write dist/checksums.txt and dist/plugin.yaml (the krew manifest
# with the sha256 of these archives).
#
# Reproducible: -trimpath, no VCS stamp, CGO off, the version through
# ldflags, and archive mtimes fixed to the commit time (SOURCE_DATE_EPOCH
# overrides it). A second run on the same commit gives the same bytes.
#
#   hack/dist.sh                 # into dist/
#   DIST_DIR=/tmp/d hack/dist.sh  # elsewhere (the e2e tests do this)
#   DIST_PLATFORMS=host hack/dist.sh  # this machine's platform only
#
# DIST_PLATFORMS is "all" (the default: every platform of plugin.yaml), "host"
# (go env GOOS/GOARCH), or a list such as "linux/amd64 darwin/arm64". Anything
# but all gives a partial release: its plugin.yaml lists the platforms built
# only. make test builds the host's archive (twice, to compare the bytes);
# make release-check builds all of them.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=$(cat VERSION)
DIST_DIR=${DIST_DIR:-dist}
ALL_PLATFORMS="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
PARTIAL=
case ${DIST_PLATFORMS:-all} in
all) PLATFORMS=$ALL_PLATFORMS ;;
host) PLATFORMS="$(go env GOOS)/$(go env GOARCH)" PARTIAL=-partial ;;
*) PLATFORMS=$DIST_PLATFORMS PARTIAL=-partial ;;
esac
MTIME=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

rm -rf "$DIST_DIR"
mkdir -p "$DIST_DIR/build"
for p in $PLATFORMS; do
	os=${p%/*} arch=${p#*/}
	exe=kubectl-watchrv
	[ "$os" = windows ] && exe=kubectl-watchrv.exe
	echo "building $os/$arch"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch GOFLAGS=-buildvcs=false \
		go build -trimpath -ldflags "-s -w -buildid= -X main.version=$VERSION" \
		-o "$DIST_DIR/build/${os}_${arch}/$exe" ./cmd/kubectl-watchrv
done

go run ./hack/release -version "$VERSION" -build "$DIST_DIR/build" -out "$DIST_DIR" \
	-mtime "$MTIME" -manifest plugin.yaml $PARTIAL LICENSE README.md
rm -rf "$DIST_DIR/build"
echo "wrote $(cd "$DIST_DIR" && ls | tr '\n' ' ')in $DIST_DIR/"
