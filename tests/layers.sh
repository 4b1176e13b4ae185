#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The layering rule of doc/design.md held to the objects gsotun is built
# from (layers.py): every module in a layer, no circle of calls, no call
# to a layer above, no include of a header above. Needs no root.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

tests_dir=${TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
top_srcdir=${top_srcdir:-$tests_dir/..}
top_builddir=${top_builddir:-.}

if ! command -v nm >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP needs nm and python3"
	exit 0
fi
exec python3 "$tests_dir/layers.py" "$top_srcdir/doc/design.md" \
	"$top_srcdir/src" "$top_builddir"/src/*/gsotun-*.o \
	"$top_builddir/src/libgsotun.a"
