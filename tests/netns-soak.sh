#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The soak test in `make check`: contrib/soak.sh for 60 seconds.
exec bash "${TESTS_DIR:-$(dirname "$0")}/../contrib/soak.sh" 60
