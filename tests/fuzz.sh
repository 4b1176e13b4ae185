#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replays the seed corpus of each fuzz harness (tests/corpus/NAME) through
# tests/replay-NAME, which make check builds from tests/fuzz-NAME.c and
# tests/fuzz-replay.c with the library, under ASan and UBSan when the
# compiler has them. Harnesses: fuzz-rx.c (decap_packet: encap_parse,
# ECN, gro), fuzz-tx.c (xmit_frame: vnet_hdr_parse, pmtu, gso_plan,
# encap_build; sendq), fuzz-icmp.c (the underlay's ICMP errors as the
# error queue gives them: pmtu_serr_mtu, pmtu_lower), fuzz-peers.c (the
# --peers file: peersfile_load), fuzz-control.c (the control
# socket's requests: ctlreq_line, ctlreq_parse), fuzz-config.c (the
# --config file: conffile_read, options_parse_file, conffile_write),
# fuzz-fdbwatch.c (what the forwarding database watch reads from
# rtnetlink: link_fdb_parse), fuzz-routefind.c (a dump of the host's
# routes before a --route is made: link_route_scan).
# tests/fuzz-seeds.c writes the seeds (peers', control's and config's are
# text, in the tree); contrib/fuzz.sh fuzzes.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

tests_dir=${TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
top_srcdir=${top_srcdir:-$tests_dir/..}
top_builddir=${top_builddir:-.}
harnesses_all='rx tx icmp peers control config fdbwatch routefind'
read -r -a harnesses <<<"${FUZZ_HARNESSES:-$harnesses_all}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gsotun-fuzz.XXXXXX") || {
	echo "Bail out! cannot create a temporary directory"
	exit 1
}
trap 'rm -rf "$tmp"' EXIT

# Leaks are errors too, unless LeakSanitizer cannot run here (ptrace).
asan="abort_on_error=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

diag() {
	sed -e 's/^/# /' "$1" | tail -n 40
}

# Is there a sanitizer report in the log?
reported() {
	grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$1"
}

echo "1..${#harnesses[@]}"
n=0
failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	bin=$top_builddir/tests/replay-$h
	log=$tmp/$h.log
	corpus=$top_srcdir/tests/corpus/$h
	if [ ! -x "$bin" ]; then
		echo "not ok $n - fuzz-$h: $bin not built (make check builds it)"
		failed=1
		continue
	fi
	# In a subshell, so that its "Aborted" goes to the log as well.
	(ASAN_OPTIONS=$asan "$bin" "$corpus"; exit $?) >"$log" 2>&1
	rc=$?
	if grep -q 'LeakSanitizer has encountered a fatal error' "$log"; then
		echo "# LeakSanitizer cannot run here: replaying without it"
		(ASAN_OPTIONS=abort_on_error=0:detect_leaks=0 \
			"$bin" "$corpus"; exit $?) >"$log" 2>&1
		rc=$?
	fi
	count=$(sed -n 's/^replay: \([0-9]*\) inputs$/\1/p' "$log")
	if [ "$rc" -eq 0 ] && ! reported "$log"; then
		echo "ok $n - fuzz-$h: ${count:-0} inputs of tests/corpus/$h"
	else
		echo "not ok $n - fuzz-$h: exit $rc replaying tests/corpus/$h"
		diag "$log"
		failed=1
	fi
done
exit $failed
