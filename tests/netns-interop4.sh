#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gsotun against the kernel's vxlan over an IPv4 underlay: see interop.sh.
exec bash "${TESTS_DIR:-$(dirname "$0")}/interop.sh" 4
