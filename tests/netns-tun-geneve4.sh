#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun to gsotun, --mode tun, geneve over an IPv4 underlay: see tunnel.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/tunnel.sh" geneve 4 tun
