#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket and gsotunctl: see control.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/control.sh"
