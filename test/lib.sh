# Shared prelude of the shell tests, sourced first: . "$(dirname "$0")/lib.sh"
# Gives $tmp, a scratch folder removed on exit, and two ways to report a check:
# - fail MESSAGE: stop the test here (exit 1);
# - ok NAME / bad NAME [DETAIL]: report a check and go on; `finish` at the end exits 1 when any
#   bad was reported. exited WANT GOT NAME checks an exit code. expect NAME RC PATTERN -- COMMAND... runs a command and checks its exit
#   code and, if PATTERN is not empty, that its stderr (and its stdout where expect_stdout=1)
#   matches it; it leaves the command's output in out.txt and err.txt of the current folder.

tmp=$(mktemp -d)
# A test may leave unreadable folders behind (robustness.sh's permission checks).
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

failures=0
expect_stdout=0

fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1${2:+: $2}"; failures=$((failures + 1)); }

expect() {
  local name=$1 want=$2 pattern=$3 rc
  shift 4
  "$@" >out.txt 2>err.txt
  rc=$?
  local seen="stderr: $(head -c 400 err.txt)"
  local files=(err.txt)
  if [ "$expect_stdout" = 1 ]; then seen="$seen; stdout: $(head -c 400 out.txt)"; files+=(out.txt); fi
  if [ "$rc" -ne "$want" ]; then bad "$name" "exit $rc, wanted $want; $seen"; return; fi
  if [ -n "$pattern" ] && ! grep -q -- "$pattern" "${files[@]}"; then bad "$name" "no '$pattern' in $seen"; return; fi
  ok "$name"
}

# exited WANT GOT NAME: a command's exit code GOT (taken from $? by the caller) is WANT.
exited() { [ "$2" -eq "$1" ] || bad "$3" "exit $2, want $1"; }

# finish [SUMMARY]: the test's last line: exit 1 when a check failed, else print SUMMARY, exit 0.
finish() {
  if [ "$failures" -ne 0 ]; then echo "$failures failed"; exit 1; fi
  [ -z "${1:-}" ] || echo "$1"
  exit 0
}

# stopped PID: waits until PID has stopped itself (0) or ended without stopping (1): the kill -9
# checks stop dmlref at a known point of a write with DMLREF_TEST_STOP_WRITE
# (include/dmlref/atomic_file.hpp).
stopped() {
  local s
  while s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); do
    case $s in T|t) return 0 ;; Z|X) return 1 ;; esac
    sleep 0.02
  done
  return 1
}
