#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An overlay of four hosts, gsotun and the kernel's vxlan, over an IPv4
# underlay: see mesh.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/mesh.sh" 4
