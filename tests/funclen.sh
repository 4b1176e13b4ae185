#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# No function of src/ over 60 lines, in every .c of it and of its
# folders (funclen.py). Needs no root.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

tests_dir=${TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
top_srcdir=${top_srcdir:-$tests_dir/..}

if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP needs python3"
	exit 0
fi
exec python3 "$tests_dir/funclen.py" "$top_srcdir/src" 60
