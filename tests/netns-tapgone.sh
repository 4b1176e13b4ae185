#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A tap or tun deleted under gsotun (`ip link del`, issue 35): gsotun
# kept a core busy for good and said nothing, its fd ready with errors.
# It must say why and stop with status 1, so that its service manager
# starts it again (gsotun@.service: Restart=on-failure), as it would a
# gsotun that could not start: a tap, a tun, and a tap with two queues
# (the lanes on threads of their own). Then a gsotun started again gets
# a new tap and the tunnel carries pings.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 90 ping
net_setup 4 37

# deleted ARGS...: gsotun on A with ARGS, a ping through the tunnel,
# its device deleted: gsotun exits 1, having said why, within 10 s (its
# queues' threads joined on a busy machine; the gsotun of issue 35 ran
# on for good).
deleted()
{
	local pid st ticks=0

	gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" "$@" || return 1
	ping_ok "$NS_A" "$OV4_B" || diag "no ping before the deletion"
	pid=${GT_PID[$NS_A]}
	ip -n "$NS_A" link del "$TAP_A" || return 1
	wait_gone "$pid" 100
	if pid_alive "$pid"; then
		ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
		diag "gsotun still runs 10 s after, $ticks ticks of CPU"
		kill -KILL "$pid"
	fi
	wait "$pid"
	st=$?
	forget_pid "$pid"
	GT_PID[$NS_A]=
	diag "exit $st: $(grep -e deleted "${GT_ERR[$NS_A]}")"
	[ "$st" -eq 1 ] && grep -q "$TAP_A: the t[au][pn] was deleted: stopping" \
		"${GT_ERR[$NS_A]}"
}

# again ARGS...: gsotun started again makes its device anew; pings cross.
again()
{
	gt_start "$NS_A" "$TAP_A" --local "$UL_A" --remote "$UL_B" \
		--address "$OV4_A/24" "$@" && ping_ok "$NS_A" "$OV4_B" &&
		gt_stop "$NS_A"
}

gt_start "$NS_B" "$TAP_B" --local "$UL_B" --remote "$UL_A" \
	--address "$OV4_B/24" || bail "B's gsotun did not start"
check "tap: deleted, gsotun says so and exits 1" deleted
check "tap: started again, pings cross" again
check "tap, 2 queues: deleted, gsotun says so and exits 1" \
	deleted --queues 2
gt_stop "$NS_B" || diag "B did not stop cleanly"

gt_start "$NS_B" "$TAP_B" --mode tun --encap gre-udp --local "$UL_B" \
	--remote "$UL_A" --address "$OV4_B/24" || bail "B's tun did not start"
check "tun: deleted, gsotun says so and exits 1" \
	deleted --mode tun --encap gre-udp
check "tun: started again, pings cross" again --mode tun --encap gre-udp
gt_stop "$NS_B" || diag "B did not stop cleanly"
done_testing
