#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# netns-control.sh with two queues in every gsotun (issue 26): show,
# stats against SIGUSR1 (sums), peer and fdb changes under traffic.
GSOTUN_TEST_ARGS="${GSOTUN_TEST_ARGS:+$GSOTUN_TEST_ARGS }--queues 2"
export GSOTUN_TEST_ARGS
exec sh "${TESTS_DIR:-$(dirname "$0")}/netns-control.sh"
