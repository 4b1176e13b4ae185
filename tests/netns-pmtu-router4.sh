#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Path MTU learnt from a router, IPv4 underlay: see pmtu-router.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/pmtu-router.sh" 4
