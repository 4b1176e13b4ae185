#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every command the tests and contrib scripts run comes from a package
# that contrib/deps.sh installs (deps.py): read from the scripts and
# deps.sh's lists, whatever this machine has installed. Needs no root.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

tests_dir=${TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
top_srcdir=${top_srcdir:-$tests_dir/..}

if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP needs python3"
	exit 0
fi
exec python3 "$tests_dir/deps.py" "$top_srcdir"
