#!/usr/bin/env bash
# The layering check (docs/ARCHITECTURE.md, "Layers"): fails when a folder includes a header
# it must not. Registered with CTest as layering.includes (tests/CMakeLists.txt), so the
# README's test command and CI run it.
#
#   scripts/check-includes.sh [--qt-headers DIR] [SOURCE_ROOT]   check the tree (default: ..)
#   scripts/check-includes.sh --self-test                          prove every rule fires
#
# Prints each violation as `file:line: <folder> must not include <header> (rule)` and exits
# 1 when there is any, 0 when there is none, 2 on a usage or environment error.
#
# The per-target include roots (cmake/StormwatchIncludes.cmake) already make most wrong
# includes a compile error (client/ cannot see gateway/ at all); this check adds what
# targets cannot express: rules inside a target's reach (ui/ links scenario/, which exposes
# gateway/, yet ui/ must not include the mock), the scheduler part of client/, and Qt
# modules (no widget header below ui/).
#
# Plain bash, grep and find: it runs on a fresh Debian box before anything else is installed.
set -uo pipefail

# ---- The rules ------------------------------------------------------------------------
#
# wire/      proto, protobuf. Nothing of Qt, client/, gateway/ or above: both sides use it.
# client/    proto, wire, QtCore. Nothing of QtGui/QtWidgets, gateway/, scenario/, models/, ui/, app/.
#            The scheduler files (stormwatch_scheduler) and log_text.* (stormwatch_log_text)
#            include only their own target's headers.
# gateway/   proto, client's scheduler (and log_text). Nothing else of client/; nothing of
#            scenario/, models/, ui/, app/, QtGui, QtWidgets.
# scenario/  client, gateway. Nothing of models/, recording/, ui/, app/, QtGui, QtWidgets.
# models/    client, QtGui. Nothing of ui/, gateway/, scenario/, recording/, app/, QtWidgets.
# recording/ scenario, models (and what they hand on), QtSql. Nothing of ui/, app/, QtWidgets.
# watch/     scenario, recording (and what they hand on), prometheus-cpp, QtNetwork. Nothing of
#            ui/, app/, QtGui, QtWidgets: the watch service has no window.
# ui/        models, scenario, recording; of client/ only the value types that models/ and scenario/
#            hand on (UI_CLIENT_HEADERS); nothing of gateway/ or app/.
# app/, tests/: everything (main()s and test wiring).

SCHEDULER_HEADERS="scheduler.h virtual_scheduler.h qt_scheduler.h thread_host.h unix_signals.h"
SCHEDULER_FILES="scheduler.h virtual_scheduler.h virtual_scheduler.cpp qt_scheduler.h qt_scheduler.cpp thread_host.h thread_host.cpp unix_signals.h unix_signals.cpp"
LOG_TEXT_HEADERS="log_text.h"
LOG_TEXT_FILES="log_text.h log_text.cpp"
# What gateway/ may take from client/: the stormwatch_scheduler and stormwatch_log_text
# targets (client/CMakeLists.txt).
GATEWAY_CLIENT_HEADERS="$SCHEDULER_HEADERS $LOG_TEXT_HEADERS"
# What ui/ may take from client/: the samples the models store, the lever set and options a
# panel edits, their defaults, and the log-text helper. The engine, its worker, the ports,
# the connection, the guard and the scheduler are the client's internals.
UI_CLIENT_HEADERS="engine_samples.h lever_set.h options.h defaults.h log_text.h grpc_port_options.h thread_host.h"

# Qt modules by what they are. A module not listed here (QtCore, QtNetwork, QtTest, ...) is
# not restricted.
GUI_MODULES="QtGui QtOpenGL QtSvg"
WIDGET_MODULES="QtWidgets QtPrintSupport QtOpenGLWidgets QtSvgWidgets QtCharts QtDataVisualization QtQuickWidgets QtWebEngineWidgets QCustomPlot"

# ---- Allowed violations ---------------------------------------------------------------
# "<file> <header as resolved>", one per line; an entry that no longer matches is reported
# as a note (not a failure) so that it can be deleted.
ALLOWED=(
)

# ---------------------------------------------------------------------------------------

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

in_list() { # word list...
  local w=$1; shift
  local x
  for x in $*; do [[ $x == "$w" ]] && return 0; done
  return 1
}

QT_HEADERS=""
declare -A QT_MODULE_OF=()

find_qt_headers() {
  [[ -n $QT_HEADERS ]] && return 0
  local d
  for tool in qtpaths6 qtpaths qmake6; do
    if command -v "$tool" >/dev/null 2>&1; then
      d=$("$tool" -query QT_INSTALL_HEADERS 2>/dev/null) || d=""
      if [[ -d $d/QtCore ]]; then QT_HEADERS=$d; return 0; fi
    fi
  done
  for d in /usr/include/*/qt6 /usr/include/qt6 /usr/local/include/qt6; do
    if [[ -d $d/QtCore ]]; then QT_HEADERS=$d; return 0; fi
  done
  echo "check-includes: no Qt 6 headers found (pass --qt-headers DIR)" >&2
  exit 2
}

QT_MODULE_DIRS=""

# Sets MODULE to the Qt module (or "QCustomPlot") an external include belongs to; empty
# when it is none. <QtWidgets/QWidget>, <QtWidgets>, <QWidget>, <qwidget.h>; a class header
# found in several modules counts as the first of QtCore, QtGui, then the rest (QAction
# lives in QtGui).
module_of() {
  local h=$1
  local lower=${h,,}
  MODULE=""
  if [[ $lower == qcustomplot.h || $lower == qcustomplot/* ]]; then MODULE=QCustomPlot; return; fi
  if [[ $h =~ ^(Qt[A-Za-z0-9]+)/ ]]; then MODULE=${BASH_REMATCH[1]}; return; fi
  if [[ ! $h =~ ^(Q[A-Za-z0-9_]+|q[a-z0-9_]+\.h)$ ]]; then return; fi
  if [[ -n ${QT_MODULE_OF[$h]+x} ]]; then MODULE=${QT_MODULE_OF[$h]}; return; fi
  find_qt_headers
  if [[ -z $QT_MODULE_DIRS ]]; then
    local d
    QT_MODULE_DIRS="QtCore QtGui"
    for d in "$QT_HEADERS"/Qt*/; do
      d=${d%/}; d=${d##*/}
      [[ $d == QtCore || $d == QtGui ]] || QT_MODULE_DIRS+=" $d"
    done
  fi
  local m
  if [[ $h =~ ^Qt[A-Za-z0-9]+$ && -d $QT_HEADERS/$h ]]; then
    MODULE=$h # a module's umbrella header
  else
    for m in $QT_MODULE_DIRS; do
      if [[ -e $QT_HEADERS/$m/$h ]]; then MODULE=$m; break; fi
    done
  fi
  QT_MODULE_OF[$h]=$MODULE
}

VIOLATIONS=0
declare -A ALLOWED_SEEN=()

report() { # file line folder header rule
  local key="$1 $4"
  local entry
  for entry in "${ALLOWED[@]}"; do
    if [[ $entry == "$key" ]]; then ALLOWED_SEEN[$key]=1; return; fi
  done
  echo "$1:$2: $3 must not include $4 ($5)"
  VIOLATIONS=$((VIOLATIONS + 1))
}

# One include of `file` (relative to the root, in `folder`): header text and its delimiter.
check_include() {
  local file=$1 line=$2 folder=$3 delim=$4 header=$5
  local name=${file#*/}   # path inside the folder
  local base=${file##*/}
  local path=$header

  # A project header: "<folder>/x.h", "../<folder>/x.h", or a same-folder "x.h".
  while [[ $path == ./* || $path == ../* ]]; do path=${path#./}; path=${path#../}; done
  local target=""
  if [[ $path =~ ^(wire|client|gateway|scenario|models|recording|watch|ui|app|proto|tests)/ ]]; then
    target=${BASH_REMATCH[1]}
  elif [[ $delim == '"' && -e $ROOT/${file%/*}/$header ]]; then
    path=${file%/*}/$header
    target=$folder
  fi

  if [[ -n $target ]]; then
    local inner=${path#*/}
    case $folder in
      wire)
        if [[ $target != wire && $target != proto ]]; then
          report "$file" "$line" wire "$path" "wire -> proto: the contract knows nothing of the client or the mock"
        fi ;;
      client)
        if [[ $target != client && $target != proto && $target != wire ]]; then
          report "$file" "$line" client "$path" "client -> proto, wire, QtCore: it knows nothing of the mock, the runner or the UI"
        elif [[ $target == client ]] && in_list "$base" "$SCHEDULER_FILES" && ! in_list "$inner" "$SCHEDULER_HEADERS"; then
          report "$file" "$line" "client (stormwatch_scheduler)" "$path" "the scheduler target stands alone: gateway/ links it without the client"
        elif [[ $target == client ]] && in_list "$base" "$LOG_TEXT_FILES" && ! in_list "$inner" "$LOG_TEXT_HEADERS"; then
          report "$file" "$line" "client (stormwatch_log_text)" "$path" "the log_text target stands alone: gateway/ links it without the client"
        fi ;;
      gateway)
        if [[ $target == client ]] && ! in_list "$inner" "$GATEWAY_CLIENT_HEADERS"; then
          report "$file" "$line" gateway "$path" "gateway -> proto, client's scheduler and log_text targets only"
        elif [[ $target != gateway && $target != client && $target != proto && $target != wire ]]; then
          report "$file" "$line" gateway "$path" "gateway -> proto, wire, client's scheduler: it knows nothing of the runner or the UI"
        fi ;;
      scenario)
        if [[ $target == models || $target == recording || $target == watch || $target == ui || $target == app || $target == tests ]]; then
          report "$file" "$line" scenario "$path" "scenario -> client, gateway: nothing of the models or the UI"
        fi ;;
      models)
        if [[ $target != models && $target != client && $target != proto ]]; then
          report "$file" "$line" models "$path" "models -> client, QtGui: nothing of the UI, the runner or the mock"
        fi ;;
      recording)
        if [[ $target == ui || $target == watch || $target == app || $target == tests ]]; then
          report "$file" "$line" recording "$path" "recording -> scenario, models: nothing of the UI"
        fi ;;
      watch)
        if [[ $target == ui || $target == app || $target == tests ]]; then
          report "$file" "$line" watch "$path" "watch -> scenario, recording: nothing of the UI"
        fi ;;
      ui)
        if [[ $target == gateway ]]; then
          report "$file" "$line" ui "$path" "ui -> models, scenario: nothing of the mock gateway's internals"
        elif [[ $target == client ]] && ! in_list "$inner" "$UI_CLIENT_HEADERS"; then
          report "$file" "$line" ui "$path" "ui -> models, scenario: of client/ only the value types they hand on"
        elif [[ $target == app || $target == tests ]]; then
          report "$file" "$line" ui "$path" "ui -> models, scenario"
        fi ;;
    esac
    return
  fi

  [[ $delim == '<' ]] || return 0
  module_of "$header"
  local module=$MODULE
  [[ -n $module ]] || return 0
  if [[ $folder == wire ]]; then
    report "$file" "$line" wire "<$header>" "$module: wire/ uses protobuf only, no Qt"
  elif in_list "$module" "$WIDGET_MODULES" && [[ $folder != ui ]]; then
    report "$file" "$line" "$folder" "<$header>" "$module: nothing below ui/ includes a widget header"
  elif in_list "$module" "$GUI_MODULES" && [[ $folder == client || $folder == gateway || $folder == scenario || $folder == watch ]]; then
    report "$file" "$line" "$folder" "<$header>" "$module: $folder/ uses QtCore only (QtGui starts at models/)"
  fi
}

check_tree() {
  local folder file rest line text delim header
  for folder in wire client gateway scenario models recording watch ui; do
    [[ -d $ROOT/$folder ]] || continue
    while IFS= read -r file; do
      file=${file#"$ROOT"/}
      while IFS= read -r rest; do
        line=${rest%%:*}
        text=${rest#*:}
        if [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\<\"])([^\>\"]+)[\>\"] ]]; then
          delim=${BASH_REMATCH[1]}
          header=${BASH_REMATCH[2]}
          check_include "$file" "$line" "$folder" "$delim" "$header"
        fi
      done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include' "$ROOT/$file")
    done < <(find "$ROOT/$folder" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' \
                 -o -name '*.cc' -o -name '*.inl' \) | LC_ALL=C sort)
  done

  local entry
  for entry in "${ALLOWED[@]}"; do
    [[ -n ${ALLOWED_SEEN[$entry]+x} ]] ||
      echo "note: allowed include no longer found, delete it from scripts/check-includes.sh: $entry"
  done
  if ((VIOLATIONS > 0)); then
    echo "check-includes: $VIOLATIONS include(s) break the layering (docs/ARCHITECTURE.md, \"Layers\")"
    return 1
  fi
  echo "check-includes: layering ok"
  return 0
}

# ---- Self-test: a small tree that breaks every rule once, and one that breaks none -------
self_test() {
  local tmp
  tmp=$(mktemp -d) || exit 2
  trap 'rm -rf "$tmp"' EXIT
  local qt=$tmp/qt bad=$tmp/bad good=$tmp/good
  mkdir -p "$qt"/{QtCore,QtGui,QtWidgets,QtPrintSupport}
  touch "$qt"/QtCore/{QObject,QString} "$qt"/QtGui/{QColor,QAction} "$qt"/QtWidgets/{QWidget,QAction,QtWidgets} \
        "$qt"/QtPrintSupport/QPrinter
  mkdir -p "$bad"/{wire,client,gateway,scenario,models,recording,watch,ui} "$good"/{wire,client,gateway,scenario,models,recording,watch,ui}

  printf '%s\n' '#include "gateway/mock_gateway_server.h"' '#include <QWidget>' '#include <QColor>' \
    '#include "../models/series_store.h"' > "$bad/client/engine.cpp"
  printf '%s\n' '#pragma once' '#include "gateway_port.h"' > "$bad/client/qt_scheduler.h"
  touch "$bad/client/gateway_port.h"
  printf '%s\n' '#include "client/gateway_connection.h"' '#include "scenario/scenario.h"' \
    '  #  include <QtWidgets/QLabel>' > "$bad/gateway/sta.cpp"
  printf '%s\n' '#include "ui/main_window.h"' '#include "models/series_store.h"' '#include <qcustomplot.h>' \
    > "$bad/scenario/run.cpp"
  printf '%s\n' '#include "scenario/report.h"' '#include "gateway/gateway_model.h"' '#include <QtWidgets>' \
    '#include <QPrinter>' > "$bad/models/model.h"
  printf '%s\n' '#include "gateway/gateway_model.h"' '#include "client/client_engine.h"' \
    '#include "client/lever_set.h"' '#include <QWidget>' > "$bad/ui/panel.cpp"
  printf '%s\n' '#include "ui/main_window.h"' '#include <QWidget>' '#include "recording/recording.h"' \
    > "$bad/recording/recorder.cpp"
  printf '%s\n' '#include "recording/recorder.h"' > "$bad/models/store.cpp"
  printf '%s\n' '#include "ui/main_window.h"' '#include <QColor>' > "$bad/watch/service.cpp"
  printf '%s\n' '#include "client/gateway_port.h"' '#include <QString>' > "$bad/wire/codec.cpp"

  local expected=(
    'client/engine.cpp:1: client must not include gateway/mock_gateway_server.h (client -> proto, wire, QtCore'
    'client/engine.cpp:2: client must not include <QWidget> (QtWidgets: nothing below ui/'
    'client/engine.cpp:3: client must not include <QColor> (QtGui: client/ uses QtCore only'
    'client/engine.cpp:4: client must not include models/series_store.h (client -> proto, wire, QtCore'
    'client/qt_scheduler.h:2: client (stormwatch_scheduler) must not include client/gateway_port.h (the scheduler target stands alone'
    'gateway/sta.cpp:1: gateway must not include client/gateway_connection.h (gateway -> proto, client'"'"'s scheduler and log_text'
    'gateway/sta.cpp:2: gateway must not include scenario/scenario.h (gateway -> proto'
    'gateway/sta.cpp:3: gateway must not include <QtWidgets/QLabel> (QtWidgets: nothing below ui/'
    'scenario/run.cpp:1: scenario must not include ui/main_window.h (scenario -> client, gateway'
    'scenario/run.cpp:2: scenario must not include models/series_store.h (scenario -> client, gateway'
    'scenario/run.cpp:3: scenario must not include <qcustomplot.h> (QCustomPlot: nothing below ui/'
    'models/model.h:1: models must not include scenario/report.h (models -> client, QtGui'
    'models/model.h:2: models must not include gateway/gateway_model.h (models -> client, QtGui'
    'models/model.h:3: models must not include <QtWidgets> (QtWidgets: nothing below ui/'
    'models/model.h:4: models must not include <QPrinter> (QtPrintSupport: nothing below ui/'
    'ui/panel.cpp:1: ui must not include gateway/gateway_model.h (ui -> models, scenario: nothing of the mock'
    'ui/panel.cpp:2: ui must not include client/client_engine.h (ui -> models, scenario: of client/ only'
    'recording/recorder.cpp:1: recording must not include ui/main_window.h (recording -> scenario, models'
    'recording/recorder.cpp:2: recording must not include <QWidget> (QtWidgets: nothing below ui/'
    'models/store.cpp:1: models must not include recording/recorder.h (models -> client, QtGui'
    'watch/service.cpp:1: watch must not include ui/main_window.h (watch -> scenario, recording'
    'watch/service.cpp:2: watch must not include <QColor> (QtGui: watch/ uses QtCore only'
    'wire/codec.cpp:1: wire must not include client/gateway_port.h (wire -> proto'
    'wire/codec.cpp:2: wire must not include <QString> (QtCore: wire/ uses protobuf only'
  )

  printf '%s\n' '#include "scheduler.h"' '#include <QObject>' '#include "mxaccess_gateway.pb.h"' \
    > "$good/client/qt_scheduler.h"
  touch "$good/client/scheduler.h"
  printf '%s\n' '#include "client/qt_scheduler.h"' '#include "client/log_text.h"' '#include "sta.h"' \
    '// #include "ui/main_window.h"' '#include <QString>' > "$good/gateway/sta.cpp"
  printf '%s\n' '#include "client/client_engine.h"' '#include "gateway/gateway_model.h"' > "$good/scenario/run.cpp"
  printf '%s\n' '#include "client/engine_samples.h"' '#include <QColor>' '#include <QAction>' > "$good/models/model.h"
  printf '%s\n' '#include "models/series_store.h"' '#include "scenario/scenario_runner.h"' \
    '#include "client/lever_set.h"' '#include <QWidget>' '#include <qcustomplot.h>' \
    '#include "recording/recording.h"' > "$good/ui/panel.cpp"
  printf '%s\n' '#include "scenario/run_host.h"' '#include "models/series_store.h"' '#include <QSqlDatabase>' \
    > "$good/recording/recorder.cpp"
  printf '%s\n' '#include "scenario/run_host.h"' '#include "recording/recorder.h"' '#include <QHostAddress>' \
    > "$good/watch/service.cpp"
  printf '%s\n' '#include "wire/contract.h"' '#include <google/protobuf/descriptor.h>' > "$good/wire/codec.cpp"
  printf '%s\n' '#include "wire/contract_check.h"' > "$good/client/port.cpp"

  local out status failed=0
  out=$(bash "$0" --qt-headers "$qt" "$bad" 2>&1); status=$?
  if ((status != 1)); then echo "self-test: a tree with violations exited $status, not 1"; failed=1; fi
  local e
  for e in "${expected[@]}"; do
    if ! grep -qF -- "$e" <<<"$out"; then echo "self-test: missing: $e"; failed=1; fi
  done
  local count
  count=$(grep -c ' must not include ' <<<"$out")
  if ((count != ${#expected[@]})); then
    echo "self-test: $count violations reported, ${#expected[@]} expected"; failed=1
  fi
  out2=$(bash "$0" --qt-headers "$qt" "$good" 2>&1); status=$?
  if ((status != 0)) || grep -q ' must not include ' <<<"$out2"; then
    echo "self-test: a clean tree failed ($status):"; echo "$out2"; failed=1
  fi
  if ((failed)); then
    echo "--- output on the tree with violations:"; echo "$out"
    exit 1
  fi
  echo "check-includes self-test: ${#expected[@]} violations found as expected, clean tree passes"
  exit 0
}

ROOT=""
while (($#)); do
  case $1 in
    --qt-headers) [[ $# -ge 2 ]] || usage; QT_HEADERS=$2; shift 2 ;;
    --self-test) self_test ;;
    -h|--help) usage ;;
    -*) usage ;;
    *) [[ -z $ROOT ]] || usage; ROOT=$1; shift ;;
  esac
done
[[ -n $ROOT ]] || ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${ROOT%/}
if [[ ! -d $ROOT ]]; then echo "check-includes: no such directory: $ROOT" >&2; exit 2; fi
if [[ -n $QT_HEADERS && ! -d $QT_HEADERS ]]; then
  echo "check-includes: no such directory: $QT_HEADERS" >&2; exit 2
fi
check_tree
