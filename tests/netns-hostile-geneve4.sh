#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Malformed Geneve (RFC 8926) at a running gsotun over an IPv4 underlay,
# built with scapy: versions, protocol types, VNIs, options past their
# length or the datagram, critical options, the O bit, and options that
# are skipped; see hostile.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/hostile.sh" 4 geneve
