#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# netns-pmtu-router4.sh with two queues in every gsotun (issue 26): a
# router's ICMP lands on either queue's socket and sets the tunnel's PMTU.
GSOTUN_TEST_ARGS="${GSOTUN_TEST_ARGS:+$GSOTUN_TEST_ARGS }--queues 2"
export GSOTUN_TEST_ARGS
exec sh "${TESTS_DIR:-$(dirname "$0")}/netns-pmtu-router4.sh"
