#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# netns-vxlan4.sh with two queues in every gsotun (issue 26): tx, rx,
# GSO and GRO, IPv4 underlay; its counters are the queues' sums.
GSOTUN_TEST_ARGS="${GSOTUN_TEST_ARGS:+$GSOTUN_TEST_ARGS }--queues 2"
export GSOTUN_TEST_ARGS
exec sh "${TESTS_DIR:-$(dirname "$0")}/netns-vxlan4.sh"
