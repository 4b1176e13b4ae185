#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's test command: install what is missing, build with -Werror
# and run the whole test suite, in the source tree. Arguments go to
# make check: contrib/check.sh TESTS='tests/deps.sh tests/netns-evpn.sh'
# runs those only.
#
# A tree configured otherwise before (contrib/demo.sh configures without
# -Werror) is cleaned first: make rebuilds what is older than its sources,
# not what was compiled with other flags.
cd "$(dirname "$0")/.." || exit 1
config=--enable-werror
old=$config
[ -x config.status ] && old=$(./config.status --config | tr -d "'")
contrib/deps.sh && ./autogen.sh && ./configure --enable-werror || exit
if [ "$old" != "$config" ]; then
	echo "check.sh: configured before with \"$old\": make clean"
	make clean >/dev/null || exit
fi
make -j2 && make -j2 check "$@"
