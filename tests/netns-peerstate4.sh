#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What show, JSON and the metrics say of a peer, over IPv4: see
# peerstate.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/peerstate.sh" 4
