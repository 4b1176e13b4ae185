#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Malformed traffic at a running gsotun, every encapsulation over an IPv6
# underlay: see hostile.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/hostile.sh" 6
