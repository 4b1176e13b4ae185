#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# netns-geneve-echo4.sh with two queues: their lanes share the flow
# table, one learning what another's answers look up.
GSOTUN_TEST_ARGS="${GSOTUN_TEST_ARGS:+$GSOTUN_TEST_ARGS }--queues 2"
export GSOTUN_TEST_ARGS
exec bash "${TESTS_DIR:-$(dirname "$0")}/netns-geneve-echo4.sh"
