#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's test command: install what is missing, build with -Werror
# and run the whole test suite, in the source tree.
cd "$(dirname "$0")/.." || exit 1
contrib/deps.sh && ./autogen.sh && ./configure --enable-werror &&
	make -j2 && make -j2 check
