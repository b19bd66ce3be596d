#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, open the console once under a
# virtual X server and save a screenshot (a smoke run of the real window on the embedded
# mock gateway), then run every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
bash scripts/install-deps.sh
t1=$(date +%s)
bash scripts/build.sh
t2=$(date +%s)
echo "test.sh: install $((t1 - t0)) s, build $((t2 - t1)) s"
if [ $# -eq 0 ]; then
  rm -f build/console-smoke.png
  timeout 120 xvfb-run -a -s "-screen 0 1600x1000x24" build/app/stormwatch \
    --settings build/console-smoke.ini --screenshot build/console-smoke.png \
    --screenshot-after-s 5 > build/console-smoke.log 2>&1
  test -s build/console-smoke.png
  echo "console smoke: the window opened on the embedded mock (build/console-smoke.png)"
fi
cd build
t3=$(date +%s)
status=0
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j2 "$@" || status=$?
echo "test.sh: suites $(($(date +%s) - t3)) s"
exit $status
