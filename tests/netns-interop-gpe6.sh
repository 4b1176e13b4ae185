#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun --mode tun against the kernel's vxlan-gpe over an IPv6 underlay:
# see interop-gpe.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/interop-gpe.sh" 6
