#!/usr/bin/env bash
# Installs the Debian packages the package needs, when they are missing.
# `setup.sh` (before `make run`): the libraries the package links against.
# `setup.sh test` (before `make test`): those, plus tmux for the terminal tests and the sqlite3
# command-line tool, which checks the integrity of stores a test killed during an import, and GNU time,
# which measures the peak memory of the huge-input tests.
# `setup.sh docs` (before `make docs`): those, plus jq, which reads the symbol graphs.
set -euo pipefail

packages=(libsqlite3-dev libedit-dev)
[ "${1:-}" = test ] && packages+=(tmux sqlite3 time)
[ "${1:-}" = docs ] && packages+=(jq)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "setup: missing ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
