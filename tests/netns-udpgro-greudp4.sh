#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# UDP super-frames on receive, gre-udp over an IPv4 underlay: see udp-gro.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/udp-gro.sh" gre-udp 4
