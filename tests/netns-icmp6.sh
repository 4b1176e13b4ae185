#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A flood of spoofed ICMP errors over an IPv6 underlay: see icmp.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/icmp.sh" 6
