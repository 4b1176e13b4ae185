#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The --peers file is read while gsotun carries traffic: whatever stands
# at its name (a FIFO, a symlink, a file too large, one that does not
# parse) is refused with a message and the old peers kept, and never
# holds the loop (a FIFO did: a SIGHUP froze the tunnel); an empty one is
# taken, the tunnel then without a peer (at start that needs --local); a
# file that others may write is said at start; with --chroot the file is
# inside the chroot and read there, with no directory outside it held
# open.
#
# Functions are called through check(), which shellcheck cannot see.
# shellcheck disable=SC2317

. "${TESTS_DIR:-$(dirname "$0")}/lib.sh"

lib_init 180 ping getent
net_setup 4 9
PEERS=$LIB_TMP/peers.A
ROOT=$LIB_TMP/root
OTHER=198.18.9.7
mkdir -m 0755 "$ROOT" || bail "cannot make $ROOT"
getent passwd nobody >/dev/null || bail "no user nobody"

# peers_file ADDR...: FILE's peers, one 'remote' line each.
peers_file()
{
	local file=$1 a

	shift
	: >"$file.new"
	for a in "$@"; do
		echo "remote $a" >>"$file.new"
	done
	chmod 0644 "$file.new" && mv -f "$file.new" "$file"
}

start_a()
{
	gt_start "$NS_A" "$TAP_A" --address "$OV4_A/24" "$@"
}

start_b()
{
	gt_start "$NS_B" "$TAP_B" --remote "$UL_A" --address "$OV4_B/24"
}

# hup_refused TEXT: a SIGHUP makes A say TEXT, and that its peers are
# unchanged, and the loop goes on: B still answers through the tunnel.
hup_refused()
{
	local n i line

	n=$(wc -l <"${GT_ERR[$NS_A]}")
	kill -HUP "${GT_PID[$NS_A]}" || return 1
	for ((i = 0; i < 50; i++)); do
		line=$(tail -n "+$((n + 1))" "${GT_ERR[$NS_A]}" |
			grep -F -- "$1")
		[ -n "$line" ] && break
		sleep 0.1
	done
	grep -q 'peers unchanged$' <<<"$line" ||
		{ diag "said: '$line'" "$(tail -n 2 "${GT_ERR[$NS_A]}")"
		  return 1; }
	ping_ok "$NS_A" "$OV4_B" ||
		{ diag "no answer from B after the SIGHUP"; return 1; }
}

# hup_taken: a SIGHUP makes A read the file again, its one peer B.
hup_taken()
{
	local n i

	n=$(wc -l <"${GT_ERR[$NS_A]}")
	kill -HUP "${GT_PID[$NS_A]}" || return 1
	for ((i = 0; i < 50; i++)); do
		tail -n "+$((n + 1))" "${GT_ERR[$NS_A]}" |
			grep -q "1 peer (0 new, 0 gone)" && return 0
		sleep 0.1
	done
	diag "not taken:" "$(tail -n 2 "${GT_ERR[$NS_A]}")"
	return 1
}

# a_dir_fds: the directories gsotun on A holds open, one a line.
a_dir_fds()
{
	local fd

	for fd in "/proc/${GT_PID[$NS_A]}/fd"/*; do
		[ -d "$fd" ] && readlink "$fd"
	done
}

# no_dir_fd: gsotun on A holds no directory open.
no_dir_fd()
{
	local dirs

	dirs=$(a_dir_fds)
	[ -z "$dirs" ] || { diag "directories held: $dirs"; return 1; }
}

# start_fails STATUS TEXT ARGS...: gsotun exits with STATUS within 10 s
# and says TEXT.
start_fails()
{
	local want=$1 text=$2 out st

	shift 2
	out=$(ip netns exec "$NS_A" timeout 10 "$GSOTUN" --dev "$TAP_A" \
		"$@" 2>&1 </dev/null)
	st=$?
	[ "$st" -eq "$want" ] && grep -qF -- "$text" <<<"$out" ||
		{ diag "status $st, want $want:" "$out"; return 1; }
}

peers_file "$PEERS" "$UL_B"
check "A starts with --peers (B)" start_a --peers "$PEERS"
check "B starts" start_b
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "a file only root writes: nothing said of it" \
	eval "! grep -q 'may be written by' ${GT_ERR[$NS_A]}"

rm -f "$PEERS" && mkfifo -m 0644 "$PEERS"
check "a FIFO at the file's name: refused, the tunnel goes on" \
	hup_refused "cannot read $PEERS: not a regular file"
rm -f "$PEERS"
peers_file "$LIB_TMP/elsewhere" "$UL_B" "$OTHER"
ln -s "$LIB_TMP/elsewhere" "$PEERS"
check "a symlink at its name: refused (not followed)" \
	hup_refused "cannot read $PEERS: a symbolic link: give the file itself"
rm -f "$PEERS"
{
	echo "remote $UL_B"
	head -c 1100000 /dev/zero | tr '\0' '#' | fold -w 200
} >"$PEERS"
check "a file of over 1 MiB: refused" \
	hup_refused "cannot read $PEERS: larger than 1024 KiB"
truncate -s 1048576 "$PEERS"
check "a file of 1 MiB exactly: taken" hup_taken
echo "remote $UL_B bogus" >"$PEERS"
check "a file that does not parse: refused" \
	hup_refused "$PEERS: line 1: invalid remote '$UL_B bogus': not an"
gt_counters "$NS_A"
check "A still has B as its peer, and only B" \
	eval "grep -q '^peer $UL_B ' ${GT_ERR[$NS_A]} &&
		! grep -q '^peer $OTHER ' ${GT_ERR[$NS_A]}"
: >"$PEERS"
kill -HUP "${GT_PID[$NS_A]}"
check "an empty file: taken, no peer left, said" \
	wait_log "$NS_A" "0 peers (1 gone): $PEERS holds none"
check "no ping with no peer" eval "! ping_ok $NS_A $OV4_B"
peers_file "$PEERS" "$UL_B" "$OTHER"
kill -HUP "${GT_PID[$NS_A]}"
check "a good file again: taken" \
	wait_log "$NS_A" "2 peers (2 new, 0 gone)"
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "A stops cleanly" gt_stop "$NS_A"

# At start the same file is refused with a usage error, never waited on.
rm -f "$PEERS" && mkfifo -m 0644 "$PEERS"
check "a FIFO as --peers at start: exit 64 at once, says why" \
	start_fails 64 "not a regular file" --peers "$PEERS"
rm -f "$PEERS"
: >"$PEERS"
check "an empty file as --peers at start, no --local: exit 64, says why" \
	start_fails 64 "no peer and no --local: give --remote ADDR, a 'remote' line in --peers, or --local ADDR" \
	--peers "$PEERS"
peers_file "$PEERS" "$UL_B"
chmod 0666 "$PEERS"
check "A starts with a file anyone may write" start_a --peers "$PEERS"
check "and says so" wait_log "$NS_A" \
	"--peers $PEERS may be written by anyone, not only root"
check "A stops cleanly" gt_stop "$NS_A"
chmod 0644 "$PEERS"

# --chroot: the file must be inside; it is read there on SIGHUP.
check "--peers outside --chroot: exit 64, says why" \
	start_fails 64 "--peers must be a file inside --chroot" \
	--peers "$PEERS" --user nobody --chroot "$ROOT"
peers_file "$ROOT/peers" "$UL_B"
check "--peers inside --chroot: starts" \
	start_a --peers "$ROOT/peers" --user nobody --chroot "$ROOT"
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "no directory held open (none outside the chroot)" no_dir_fd
peers_file "$ROOT/peers" "$UL_B" "$OTHER"
kill -HUP "${GT_PID[$NS_A]}"
check "SIGHUP in the chroot: the file read again from inside" \
	wait_log "$NS_A" "2 peers (1 new, 0 gone)"
check "ping through the tunnel" ping_ok "$NS_A" "$OV4_B"
check "A stops cleanly" gt_stop "$NS_A"

done_testing
