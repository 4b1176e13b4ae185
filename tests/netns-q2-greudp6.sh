#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# netns-greudp6.sh with two queues in every gsotun (issue 26): tx, rx,
# GSO and GRO of GRE-in-UDP over IPv6; its counters are the queues' sums.
GSOTUN_TEST_ARGS="${GSOTUN_TEST_ARGS:+$GSOTUN_TEST_ARGS }--queues 2"
export GSOTUN_TEST_ARGS
exec sh "${TESTS_DIR:-$(dirname "$0")}/netns-greudp6.sh"
