#!/usr/bin/env bash
# Sets riftchart up on a fresh Debian machine: Graphviz's `dot`, Chromium (for the
# step-through page's browser test), a C compiler and Python's headers (for the compiled
# build's test) and Python's venv module from Debian where missing, then a virtual environment
# in .venv with riftchart and its test extras. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

need=()
command -v dot >/dev/null 2>&1 || need+=(graphviz)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# a C compiler and Python's headers, for the compiled build that tests/test_compiled.py makes
command -v cc >/dev/null 2>&1 || need+=(gcc)
# Debian's own python3 makes virtual environments only with python3-venv
python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  || need+=(python3-dev)
if [ "${#need[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if ! command -v apt-get >/dev/null 2>&1 || { [ -n "$sudo" ] && ! command -v sudo >/dev/null 2>&1; }; then
    echo "setup.sh: needs Debian's ${need[*]}: install them as root (apt-get install ${need[*]}), then run it again" >&2
    exit 1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# Installed in setuptools' path mode ("compat"): the checkout itself goes on the path, where
# type checkers find the package (tests/test_embedding.py checks a program outside it).
# Setuptools calls that mode transitional; should a later one drop it, its strict mode, a tree
# of links in build/ that type checkers follow too, is used (a new module then needs ./setup.sh
# again).
install() { .venv/bin/python -m pip install -q -e ".[test]" --config-settings "editable_mode=$1"; }
# pip's own chatter goes to a log that is shown only if the install fails
log=$(mktemp)
if ! { .venv/bin/python -m pip install -q --upgrade pip \
       && { install compat || install strict; }; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
rm -f "$log"
