#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Path MTU, gre over an IPv4 underlay: see pmtu.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/pmtu.sh" gre 4
