#!/usr/bin/env bash
# Configures and builds stormwatch in ./build (Ninja, RelWithDebInfo, 2 jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/CMakeCache.txt ]; then
  cmake --preset default
fi
cmake --build build -j2
