#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun to gsotun, --mode tun, gre over an IPv4 underlay: see tunnel.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/tunnel.sh" gre 4 tun
