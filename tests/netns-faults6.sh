#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Faults around a gsotun pair, gre-udp over an IPv6 underlay: see faults.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/faults.sh" gre-udp 6
