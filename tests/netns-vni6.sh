#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Two overlays on one UDP port, a tap per VNI or GRE key, over an IPv6
# underlay: see vni.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/vni.sh" 6
