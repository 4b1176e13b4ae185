#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun to gsotun, --mode tun, geneve over an IPv6 underlay: see tunnel.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/tunnel.sh" geneve 6 tun
