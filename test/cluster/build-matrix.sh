#!/usr/bin/env bash
# Builds the server matrix of the e2e tests (issue 18): kube-apiserver at the
# newest patch of each minor in k8s/v1.*/ (a module per version, written by
# gen-version-module.sh), and kine (kine/, SQLite with cgo), beside the
# v1.37.2 kube-apiserver and etcd that build.sh builds (its directory and
# cache key are left exactly as they are). Each binary goes into the same
# cache as build.sh's, in a directory keyed by version and by the hash of its
# module's go.mod and go.sum and the recipe below; a cell already built is
# not rebuilt. Prints one NAME=DIR line per binary directory:
#   etcd=DIR v1.37=DIR v1.30=DIR v1.33=DIR v1.35=DIR v1.36=DIR kine=DIR
# With names as arguments (e.g. `build-matrix.sh v1.30 kine`) it builds and
# prints only those (etcd and v1.37 are build.sh's directory: build.sh runs
# only when no names are given or one of them is etcd or v1.37).
# Builds run one at a time (a lock per directory, so that two runs at once do
# not build the same binary twice). Measured first builds, on 2 cores shared
# with five other builds and test runs (load 13 to 19): kube-apiserver v1.30.14
# 1329 s, kine 1027 s (most of it cgo compiling SQLite); on an idle machine the
# reference page saw 2 to 7 minutes per kube-apiserver.
set -euo pipefail
cd "$(dirname "$0")"

cache_root=${WATCHRV_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-watchrv/cluster}
# The recipe is part of each key: change it and every matrix binary rebuilds.
apiserver_recipe='CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X $pkg.gitVersion=$full -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z" k8s.io/kubernetes/cmd/kube-apiserver'
kine_recipe='CGO_ENABLED=1 go build -trimpath -ldflags "-s -w" github.com/k3s-io/kine'

wanted() { [[ $# -eq 0 ]] || [[ " $* " == *" ${name:-} "* ]]; }

# build_into OUT BINARY CMD...: runs CMD (which writes OUT.tmp/BINARY) unless
# OUT/BINARY exists, holding OUT.lock meanwhile.
build_into() {
  local out=$1 bin=$2
  shift 2
  [[ -x $out/$bin ]] && return 0
  mkdir -p "$cache_root"
  exec 9>"$out.lock"
  flock 9
  if [[ ! -x $out/$bin ]]; then
    local start=$SECONDS
    rm -rf "$out.tmp" && mkdir -p "$out.tmp"
    "$@"
    rm -rf "$out" && mv "$out.tmp" "$out"
    echo "built $out/$bin in $((SECONDS - start)) s" >&2
  fi
  exec 9>&-
}

if wanted "$@" || [[ " $* " == *" etcd "* || " $* " == *" v1.37 "* ]]; then
  base=$(bash build.sh)
  echo "etcd=$base"
  echo "v1.37=$base"
fi

pkg=k8s.io/component-base/version
for dir in k8s/v1.*/; do
  dir=${dir%/}
  name=${dir#k8s/}
  wanted "$@" || continue
  full=$(sed -n 's|^[[:space:]]*k8s.io/kubernetes \(v[0-9.]*\)\( // indirect\)\{0,1\}$|\1|p' "$dir/go.mod" | head -1)
  [[ -n $full ]] || { echo "$dir/go.mod requires no k8s.io/kubernetes version" >&2; exit 1; }
  minor=${name#v1.}
  key=$( (cat "$dir/go.mod" "$dir/go.sum"; echo "$apiserver_recipe") | sha256sum | cut -c1-12)
  out="$cache_root/$full-$key"
  ldflags="-s -w -X $pkg.gitVersion=$full -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor \
    -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  if [[ ! -x $out/kube-apiserver ]]; then
    echo "building kube-apiserver $full into $out (2 to 8 minutes on 2 cores)" >&2
  fi
  build_into "$out" kube-apiserver bash -c 'cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags "$2" -o "$3" k8s.io/kubernetes/cmd/kube-apiserver' \
    _ "$dir" "$ldflags" "$out.tmp/kube-apiserver"
  echo "$name=$out"
done

name=kine
if wanted "$@"; then
  v=$(sed -n 's|^[[:space:]]*github.com/k3s-io/kine \(v[0-9.]*\)\( // indirect\)\{0,1\}$|\1|p' kine/go.mod | head -1)
  key=$( (cat kine/go.mod kine/go.sum; echo "$kine_recipe") | sha256sum | cut -c1-12)
  out="$cache_root/kine-$v-$key"
  if [[ ! -x $out/kine ]]; then
    echo "building kine $v (SQLite, cgo) into $out" >&2
  fi
  build_into "$out" kine bash -c 'cd kine && CGO_ENABLED=1 go build -trimpath -ldflags "-s -w" -o "$1" github.com/k3s-io/kine' _ "$out.tmp/kine"
  echo "kine=$out"
fi
