#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Faults around a gsotun pair, vxlan over an IPv4 underlay: see faults.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/faults.sh" vxlan 4
