#!/bin/sh
# dmlref: builds an autotools package at meson setup time (run_command in meson.build):
# configure in BUILDDIR, make, make install into PREFIX. Runs once: a later setup (a
# reconfiguration) finds PREFIX/.dmlref-built and does nothing. The whole log is
# BUILDDIR/build.log; its end is printed when a step fails.
# Usage: meson-build.sh SRCDIR BUILDDIR PREFIX [configure options...]
set -eu
srcdir=$1 builddir=$2 prefix=$3
shift 3
stamp=$prefix/.dmlref-built
if [ -f "$stamp" ]; then exit 0; fi
mkdir -p "$builddir"
cd "$builddir"
log=$builddir/build.log
: >"$log"
# An empty CFLAGS or CXXFLAGS (as meson passes none) would replace the package's own choice of
# optimisation flags.
if [ -z "${CFLAGS-}" ]; then unset CFLAGS; fi
if [ -z "${CXXFLAGS-}" ]; then unset CXXFLAGS; fi
jobs=$(nproc 2>/dev/null || echo 1)
run() {
  echo "+ $*" >>"$log"
  if ! "$@" >>"$log" 2>&1; then
    echo "$(basename "$srcdir"): '$*' failed; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}
run "$srcdir/configure" --prefix="$prefix" "$@"
run make -j"$jobs"
run make install
touch "$stamp"
