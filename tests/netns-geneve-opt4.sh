#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun to gsotun, geneve with an option of class 0x0102 (--geneve-opt)
# over an IPv4 underlay: on the wire in every header, skipped by the
# other end, 8 bytes off the MTU; see tunnel.sh.
TUNNEL_GENEVE_OPT=0102:01:0000000a
export TUNNEL_GENEVE_OPT
exec bash "${TESTS_DIR:-$(dirname "$0")}/tunnel.sh" geneve 4
