#!/usr/bin/env bash
# Installs exactly the Debian 12 packages stormwatch needs to build, test and package.
# Idempotent: when everything is present it installs nothing and touches no list.
set -euo pipefail

# build-essential also brings the sanitizer runtimes of scripts/check-sanitizers.sh: gcc-12
# depends on libgcc-12-dev, which depends on libasan8, libubsan1, liblsan0 and libtsan2 and
# ships <sanitizer/tsan_interface.h>; flock is util-linux (essential).
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite libgl-dev
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libprotoc-dev  # wire/: a gateway contract .proto read at run time (libprotoc's importer)
  libqcustomplot-dev
  xvfb xauth
  dpkg-dev appstream desktop-file-utils
  openssl
  python3-grpcio python3-protobuf  # tests/python/wire_robustness.py: a client generated from proto/
  clang-format git  # format.clang_format: the sources as .clang-format says
  lld  # the linker (CMakeLists.txt): a hundred suites link in a fraction of GNU ld's time
  ccache  # the compiler cache (CMakeLists.txt): a rebuild or a clean clone reuses what was built
  prometheus-cpp-dev  # watch/: /metrics of stormwatch --watch
  prometheus  # tests: a real Prometheus scraping --watch, and promtool for the alert rules
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# Debian's prometheus package starts its server (on every interface) when installed; the tests
# start their own on loopback and nothing here may listen elsewhere. policy-rc.d tells the
# package's scripts not to start a service while this install runs.
POLICY=/usr/sbin/policy-rc.d
added_policy=""
if [[ " ${missing[*]} " == *" prometheus "* ]] && [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" > /dev/null
  $SUDO chmod 755 "$POLICY"
  added_policy=1
fi
status=0
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" || status=$?
if [ -n "$added_policy" ]; then $SUDO rm -f "$POLICY"; fi
exit $status
