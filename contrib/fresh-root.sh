#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A fresh machine, as a new user's: a Debian 12 minbase root made with
# debootstrap, a clean clone of this repository in it (what is committed,
# nothing installed by hand), and commands run there as root, in the
# clone, one after the other, each timed.
#
# Usage (as root): contrib/fresh-root.sh DIR [COMMAND]...
#   DIR      the root, outside the repository; made when it does not
#            exist, used again as it is when it does (the clone too)
#   COMMAND  a shell command run in the clone; default: contrib/demo.sh,
#            then contrib/check.sh, as the README says
#   FRESH_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
#
# The root's /proc, /sys, /dev and /run are mounted in a mount namespace
# of this script's own, so they go when it ends, however it ends; the
# trap unmounts them before that. The chroot shares this machine's network
# (apt-get needs it); the tests make namespaces of their own, as they do
# on the host, and a policy-rc.d in the root keeps any service from
# starting in the host's network namespace.
set -u

die()
{
	echo "fresh-root.sh: $*" >&2
	exit 1
}

top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || die "run me as root: I run debootstrap and chroot"
[ $# -ge 1 ] || die "usage: $0 DIR [COMMAND]..."
root=$(realpath -m "$1") || die "no such path: $1"
shift
case $root/ in
"$top"/*) die "$root is in the repository: put the root elsewhere" ;;
/) die "the root cannot be /" ;;
esac

# Everything below runs in a private mount namespace (unshare -m): the
# mounts of the root never reach the host's and vanish with the script.
if [ -z "${FRESH_ROOT_NS:-}" ]; then
	FRESH_ROOT_NS=1 exec unshare --mount --propagation private \
		"$top/contrib/fresh-root.sh" "$root" "$@"
fi

mounts=()

unmount_all()
{
	local i

	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -R "${mounts[$i]}" 2>/dev/null ||
			umount -R -l "${mounts[$i]}"
	done
	mounts=()
}
trap unmount_all EXIT
trap 'exit 1' INT TERM

# stamp WHAT: a line with the time, to say how long each step took.
stamp()
{
	echo "fresh-root.sh: $(date -u '+%H:%M:%S') $*"
}

make_root()
{
	local mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}

	command -v debootstrap >/dev/null ||
		die "debootstrap is missing (apt-get install debootstrap)"
	stamp "debootstrap --variant=minbase bookworm $root"
	mkdir -p "$root" || die "cannot make $root"
	debootstrap --variant=minbase bookworm "$root" "$mirror" ||
		die "debootstrap failed"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
	# invoke-rc.d and deb-systemd-invoke ask this before starting a
	# service: none may start in the host's network namespace.
	printf '#!/bin/sh\n# contrib/fresh-root.sh: no service starts\nexit 101\n' \
		>"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
}

# mount_in TARGET MOUNT-ARGS...: mount into the root, to unmount at exit.
mount_in()
{
	local target=$root$1

	shift
	mount "$@" "$target" || die "cannot mount $target"
	mounts+=("$target")
}

mount_root()
{
	# The root a mount point of its own: ip netns exec and ip -n make
	# "/" a slave mount, which a plain directory cannot be.
	mount_in "" --bind "$root"
	mount_in /proc -t proc proc
	mount_in /sys -t sysfs sysfs
	# /dev/net/tun, /dev/pts, /dev/shm: the host's devices.
	mount_in /dev --rbind /dev
	# ip netns keeps its namespaces in /run/netns: a /run of the root's own.
	mount_in /run -t tmpfs -o mode=0755 tmpfs
}

# run COMMAND: in the clone, as a login on the fresh machine would. The
# root is pivoted to, not only chrooted into, in a mount namespace of the
# command's own: a chroot's paths seen from another mount namespace (ip
# netns exec makes one) read /proc/PID/root and /proc/PID/fd/N with the
# host's path in front, where a real machine has none.
run()
{
	local start=$SECONDS status
	# shellcheck disable=SC2016 # expanded by the inner shells
	local inner='cd "$1" && mkdir -p .oldroot &&
		pivot_root . .oldroot && umount -l /.oldroot && shift &&
		exec chroot . /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd /root/gsotun && eval \"\$1\"" bash "$1"'

	stamp "in $root/root/gsotun: $1"
	unshare --mount --propagation private /bin/sh -c "$inner" sh \
		"$root" "$1"
	status=$?
	stamp "exit $status after $((SECONDS - start)) s: $1"
	return $status
}

if [ ! -x "$root/bin/bash" ]; then
	make_root
else
	stamp "using the root already in $root"
fi
if [ ! -d "$root/root/gsotun" ]; then
	stamp "cloning $top (HEAD, what is committed) into $root/root/gsotun"
	git clone -q --no-hardlinks "$top" "$root/root/gsotun" ||
		die "git clone failed"
fi
mount_root
[ $# -gt 0 ] || set -- contrib/demo.sh contrib/check.sh
for cmd in "$@"; do
	run "$cmd" || exit
done
stamp "done"
