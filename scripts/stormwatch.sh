#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, start the console on the
# embedded mock gateway. Extra arguments go to stormwatch (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
if [ -x build/app/stormwatch ]; then
  exec build/app/stormwatch "$@"
fi
echo "stormwatch: the console is not built yet; it would start on an embedded mock gateway" \
     "(127.0.0.1, a free port) with the demo scenario loaded."
