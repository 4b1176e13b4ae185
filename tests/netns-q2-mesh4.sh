#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# netns-mesh4.sh with two queues in every gsotun (issue 26): forwarding
# among four hosts, learning, --max-address, peers reloaded under traffic.
GSOTUN_TEST_ARGS="${GSOTUN_TEST_ARGS:+$GSOTUN_TEST_ARGS }--queues 2"
export GSOTUN_TEST_ARGS
exec sh "${TESTS_DIR:-$(dirname "$0")}/netns-mesh4.sh"
