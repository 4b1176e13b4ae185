#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What show, JSON and the metrics say of a peer, over IPv6 and with two
# queues in each gsotun (a peer's counts kept by each lane, summed): see
# peerstate.sh.
GSOTUN_TEST_ARGS="${GSOTUN_TEST_ARGS:+$GSOTUN_TEST_ARGS }--queues 2"
export GSOTUN_TEST_ARGS
exec bash "${TESTS_DIR:-$(dirname "$0")}/peerstate.sh" 6
