#!/usr/bin/env bash
# Sanitizer step of CI (.ci/run runs it after scripts/test.sh):
#   1. ASan + UBSan (preset "asan", build-asan/): the whole build, every CTest suite that
#      runs our code.
#   2. TSan (preset "tsan", build-tsan/): the threaded suites, built and run. Only their
#      executables (and the stormwatch and mxgw-mock binaries they start) are built: the
#      whole tree under TSan took 12 of CI's minutes for suites TSan never runs.
# Neither sanitizer build compiles tests/bench (STORMWATCH_BENCHMARKS=OFF in the presets):
# benchmarks print figures from the release build; no test runs them.
# Fails when a test fails or when any sanitizer report was written, including reports
# from the processes the tests start (mxgw-mock, stormwatch): every sanitizer writes to
# <build dir>/sanitizer-logs/ (log_path in CMakePresets.json), which this script empties
# first and prints at the end.
#
# Every configure and build runs under flock on the shared build lock (one build at a
# time on the 2-core machine); tests run on 127.0.0.1 with ephemeral ports.
#
#   scripts/check-sanitizers.sh            both
#   scripts/check-sanitizers.sh asan|tsan  one of them
#
# Suppressions: tests/sanitizers/tsan.supp (third-party frames only, each with its reason).
# TSan sees Qt's cross-thread hand-offs through tests/sanitizers/tsan_qt_bridge.cpp (linked
# into the TSan build's executables only; CTest sanitizers.tsan_qt_bridge checks it still
# reports a race across them). The ASan run needs no LeakSanitizer suppressions.
set -euo pipefail
cd "$(dirname "$0")/.."

LOCK=${SW_BUILD_LOCK:-/tmp/sw-build.lock}
JOBS=${SW_JOBS:-2}
WHICH=${1:-all}

# The suites with more than one thread of our own (run host worker, mock gateway thread,
# gRPC callbacks, playback/run worker, a recorder on the run host's thread, child
# processes). ui.scenario_playback is the
# run host's suite under its older name.
# sanitizers.tsan_qt_bridge checks that TSan still reports a race across the Qt bridge.
TSAN_SUITES='^(integration\..*|watch\..*|recording\..*|scenario\.live_runner|scenario\.gateway_access|gateway\.grpc_server|gateway\.mxgw_mock_process|client\.grpc_gateway_port|client\.thread_host|ui\.console_controller|ui\.scenario_playback|ui\.run_host|ui\.ab_view|ui\.compare_view|app\..*|sanitizers\..*)$'

# Run under both sanitizers (their reports count), but their pass/fail is not judged
# there: they compare a live run against a restarted mxgw-mock with the virtual one, and
# the live run's path depends on whether the restarted process listens before the
# client's first reconnect, 1 s after the kill. A sanitizer-built mxgw-mock needs ~0.3 s
# to start (18 ms in the normal build), and the comparison then fails (2 or 4 subscribe
# requests instead of 3). The silent-gateway suite compares when a keepalive gives up and a
# reconnect gets through, to half a second. The normal suite (scripts/test.sh) runs them
# pass/fail.
TIMING_ONLY='^(integration\.fault_matrix_live|integration\.silent_gateways_live)$'

# Suites that run no code of ours, only tools over the files (clang-format, the include check,
# promtool): a sanitizer build has nothing to add to them, and the main suite runs them. And
# the one that checks glibc's allocator set-up, which a sanitizer's allocator replaces.
UNINSTRUMENTED='^(format\..*|layering\..*|prometheus\.rules_.*|scenario\.process_memory)$'

status=0
declare -A seconds

# What each failed test of the last ctest run in $1 asserted, kept for the end of the output
# (CI shows its beginning and its end; a failure in the middle of a long log is cut).
summaries=""
# A failed test with no failed assertion (one that exited non-zero after passing, as a test
# process does when LeakSanitizer finds a leak at its exit, or one that aborted) is shown by
# the last lines of its output.
summarize_failures() { # build dir label
  local log="$1/Testing/Temporary/LastTest.log" lines
  [ -s "$log" ] || return 0
  lines=$(grep -A1 -E "^FAIL!|^   Loc:|Assertion|runtime error:" "$log" | grep -v '^--$' | cut -c1-400 | head -40 || true)
  [ -n "$lines" ] && summaries+="check-sanitizers: $2: what failed:"$'\n'"$lines"$'\n'
  lines=$(awk '
    / Test: / { name = $NF; n = 0; failed = 0; out = 0; next }
    /^FAIL!/ { failed = 1 }
    /^<end of output>/ { out = 1; next }
    out && /^Test Failed/ && !failed {
      print "  " name " failed with no failed assertion; its output ended with:"
      for (i = (n > 8 ? n - 8 : 0); i < n; i++) print "    " tail[i % 8]
    }
    !out { tail[n % 8] = substr($0, 1, 300); n++ }
  ' "$log" | head -60 || true)
  [ -n "$lines" ] && summaries+="check-sanitizers: $2: failed without an assertion:"$'\n'"$lines"$'\n'
  return 0
}

# After a failed ctest run in $1: 0 when every failed test is a TIMING_ONLY one, or passes
# when run once more. Under a sanitizer every process runs several times slower, so a live
# run's wall-clock bounds can fail where the normal suite (which judges them) passes; the
# second run tells that from a failure that stays. Its sanitizer reports are judged either way.
only_timing_failed() { # build dir label preset
  local failed judged list="$1/Testing/Temporary/LastTestsFailed.log"
  [ -s "$list" ] || return 1
  summarize_failures "$1" "$2"
  failed=$(sed 's/^[0-9]*://' "$list")
  judged=$(echo "$failed" | grep -Ev "$TIMING_ONLY" || true)
  if [ -n "$judged" ]; then
    local again
    again="^($(echo "$judged" | sed 's/\./\\./g' | paste -sd'|'))\$"
    echo "check-sanitizers: $2: $(echo "$judged" | tr '\n' ' ')failed; running them once more"
    ctest --preset "$3" -R "$again" --output-on-failure || { summarize_failures "$1" "$2 (run again)"; return 1; }
    summaries+="check-sanitizers: $2: $(echo "$judged" | tr '\n' ' ')failed once and passed when run again (timing under the sanitizer)"$'\n'
  fi
  local timing
  timing=$(echo "$failed" | grep -E "$TIMING_ONLY" | tr '\n' ' ' || true)
  [ -z "$timing" ] || echo "check-sanitizers: $2: ${timing}failed only its timing assertions (not judged here; its sanitizer reports are)"
}

configure() { # preset (re-applied every time: a changed preset reaches an old build dir)
  flock "$LOCK" cmake --preset "$1" > /dev/null
}

# Reports written by any process of the run; prints them and returns 1 when there are any.
reports() { # dir label
  local dir=$1 label=$2 n empty
  # A log file with nothing in it holds no report: a sanitizer opens its file only to write,
  # and a process that ended right then left it empty. Named, not counted.
  empty=$(find "$dir" -type f -empty 2>/dev/null | tr '\n' ' ')
  if [ -n "$empty" ]; then
    echo "check-sanitizers: $label: empty log file(s), no report in them: $empty"
    find "$dir" -type f -empty -delete
  fi
  n=$(find "$dir" -type f 2>/dev/null | wc -l)
  if [ "$n" -eq 0 ]; then
    echo "check-sanitizers: $label: 0 reports"
    return 0
  fi
  echo "check-sanitizers: $label: $n report file(s) in $dir:"
  for f in "$dir"/*; do
    echo "---- $f"
    cat "$f"
  done
  # Their beginnings again at the end of the output, which CI shows even when it cuts the middle.
  summaries+="check-sanitizers: $label: $n report file(s); the first lines of each:"$'\n'
  for f in $(find "$dir" -type f | sort | head -4); do
    summaries+="---- $f"$'\n'"$(grep -v '^ *$' "$f" | head -24 | cut -c1-300)"$'\n'
  done
  return 1
}

run_asan() {
  local t0 t1 logs=build-asan/sanitizer-logs
  t0=$(date +%s)
  configure asan
  flock "$LOCK" cmake --build build-asan -j"$JOBS"
  t1=$(date +%s)
  seconds[asan-build]=$((t1 - t0))
  rm -rf "$logs" && mkdir -p "$logs"
  local ok=0
  ctest --preset asan -j"$JOBS" -E "$UNINSTRUMENTED" || only_timing_failed build-asan "ASan+UBSan" asan || ok=1
  # UBSan runs as its own runtime beside ASan and ignores log_path: its reports go to the
  # test's output. A test process that hits one aborts (-fno-sanitize-recover=all) and
  # fails; this also catches any that a test printed from a child process.
  if grep -n "runtime error:" build-asan/Testing/Temporary/LastTest.log > "$logs/ubsan-in-test-output.txt"; then
    echo "check-sanitizers: UBSan reports in the test output (build-asan/Testing/Temporary/LastTest.log)"
  else
    rm -f "$logs/ubsan-in-test-output.txt"
  fi
  reports "$logs" "ASan+UBSan (whole suite)" || ok=1
  seconds[asan-tests]=$(($(date +%s) - t1))
  [ $ok -eq 0 ] || status=1
}

# The targets the TSan suites need: each suite's executable (test_<folder>_<name>, the
# convention of tests/CMakeLists.txt; ctest cannot name a test's executable before it is
# built), a -DCHECK=... program a cmake -P test runs, and the binaries suites start.
tsan_targets() {
  # Ninja's target list of a fresh build tree is larger than one environment variable may
  # be (execve's E2BIG), so it goes through a file.
  local known
  known=$(mktemp)
  ninja -C build-tsan -t targets all | sed -n 's/: .*//p' > "$known"
  ctest --test-dir build-tsan -N --show-only=json-v1 -R "$TSAN_SUITES" | KNOWN_FILE="$known" python3 -c '
import json, os, sys
with open(os.environ["KNOWN_FILE"]) as f:
    known = set(f.read().split())
names = {"stormwatch", "mxgw-mock"}
for test in json.load(sys.stdin)["tests"]:
    candidates = ["test_" + test["name"].replace(".", "_")]
    for word in test.get("command") or []:
        candidates.append(os.path.basename(word.split("=", 1)[-1]))
    found = [c for c in candidates if c in known]
    if not found:
        sys.exit("check-sanitizers: no target builds the TSan suite " + test["name"])
    names.update(found)
print(" ".join(sorted(names)))'
  local found=$?
  rm -f "$known"
  return $found
}

run_tsan() {
  local t0 t1 logs=build-tsan/sanitizer-logs
  t0=$(date +%s)
  configure tsan
  echo "check-sanitizers: TSan suites:" \
    $(ctest --test-dir build-tsan -N -R "$TSAN_SUITES" | sed -n 's/^ *Test *#[0-9]*: //p')
  local targets
  targets=$(tsan_targets)
  [ -n "$targets" ] || { echo "check-sanitizers: no TSan suite matched $TSAN_SUITES" >&2; status=1; return; }
  # shellcheck disable=SC2086 # one word per target
  flock "$LOCK" cmake --build build-tsan -j"$JOBS" --target $targets
  t1=$(date +%s)
  seconds[tsan-build]=$((t1 - t0))
  rm -rf "$logs" && mkdir -p "$logs"
  local ok=0
  ctest --preset tsan -j"$JOBS" -R "$TSAN_SUITES" || only_timing_failed build-tsan TSan tsan || ok=1
  reports "$logs" "TSan (threaded suites)" || ok=1
  seconds[tsan-tests]=$(($(date +%s) - t1))
  [ $ok -eq 0 ] || status=1
}

case "$WHICH" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan; run_tsan ;;
  *) echo "usage: $0 [asan|tsan]" >&2; exit 2 ;;
esac

for k in asan-build asan-tests tsan-build tsan-tests; do
  [ -n "${seconds[$k]:-}" ] && echo "check-sanitizers: $k ${seconds[$k]} s"
done
[ -n "$summaries" ] && printf '%s' "$summaries"
if [ $status -ne 0 ]; then
  echo "check-sanitizers: FAILED"
fi
exit $status
