#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Debian package (debian/) as a user would, with
# `dpkg-buildpackage -us -uc -b`, in a copy of the source tree that
# `make distdir` makes (so it works from git and from make distcheck's
# read-only tree alike), then checks the .deb: its file list, the unit's
# ExecStart, User= and SystemCallFilter=, the service user that postinst
# creates (systemd-sysusers run on a throwaway root), the installed
# programs' --version against the package version in that root, and no
# lintian error. Skips without debhelper.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

tests_dir=${TESTS_DIR:-$(cd "$(dirname "$0")" && pwd)}
top_srcdir=${top_srcdir:-$tests_dir/..}
top_builddir=${top_builddir:-.}

for tool in dpkg-buildpackage dpkg-deb dh; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool not found (apt-get install debhelper)"
		exit 0
	fi
done

# What the package must hold, whatever else it has: the programs, their
# pages and bash completion, the unit, and /etc/gsotun for the unit's
# NAME.conf files with the example beside them.
expected="usr/sbin/gsotun
	usr/sbin/gsotunctl
	usr/share/man/man8/gsotun.8.gz
	usr/share/man/man8/gsotunctl.8.gz
	usr/share/bash-completion/completions/gsotun
	usr/share/bash-completion/completions/gsotunctl
	usr/share/doc/gsotun/copyright
	usr/share/doc/gsotun/changelog.gz
	usr/share/doc/gsotun/examples/gsotun.conf.example
	etc/gsotun/
	etc/gsotun/gsotun.conf.example
	lib/systemd/system/gsotun@.service
	usr/lib/sysusers.d/gsotun.conf"
programs="gsotun gsotunctl"
unit=lib/systemd/system/gsotun@.service

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gsotun-deb.XXXXXX") || {
	echo "Bail out! cannot create a temporary directory"
	exit 1
}
trap 'rm -rf "$tmp"' EXIT
src=$tmp/build/gsotun
root=$tmp/root
log=$tmp/build.log

tap_n=0
failed=0

# ok STATUS DESCRIPTION: one TAP line, a pass when STATUS is 0.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		failed=1
	fi
}

diag() {
	sed -e 's/^/# /' "$1" | tail -n "${2:-40}"
}

# The outer make's flags (jobserver, TESTS=... of `make check TESTS=`) and
# the test environment are no business of the package build's make.
clean_env() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		-u GSOTUN -u TESTS_DIR -u top_srcdir -u top_builddir "$@"
}

finish() {
	echo "1..$tap_n"
	echo "# took ${SECONDS}s"
	exit "$failed"
}

# The source as `make dist` ships it: no build output, debian/ included
# only as far as EXTRA_DIST lists it. From distcheck's read-only tree the
# copies are read-only: autoreconf must be able to rewrite them.
mkdir -p "$tmp/build"
if ! clean_env make -C "$top_builddir" distdir distdir="$src" \
	>"$log" 2>&1; then
	ok 1 "make distdir copies the source tree"
	diag "$log"
	finish
fi
chmod -R u+w "$src"

# Niced: under make -j2 check it shares the machine with timing tests.
# Without the package's own run of the unit tests (dh_auto_test): make
# check runs them on this tree, and their build and run here cost the
# time make check may take.
opts="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck"
(cd "$src" && DEB_BUILD_OPTIONS=$opts clean_env nice -n 19 \
	dpkg-buildpackage -us -uc -b) >"$log" 2>&1
rc=$?
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
deb=$tmp/build/gsotun_${version}_$arch.deb
if [ "$rc" -ne 0 ] || [ ! -f "$deb" ]; then
	ok 1 "dpkg-buildpackage -us -uc -b builds gsotun_${version}_$arch.deb"
	diag "$log"
	finish
fi
ok 0 "dpkg-buildpackage -us -uc -b builds gsotun_${version}_$arch.deb"

# Paths of the .deb, without dpkg-deb's leading "./".
dpkg-deb -c "$deb" | awk '{ sub(/^\.\//, "", $6); print $6 }' \
	>"$tmp/files"
for f in $expected; do
	grep -qxF "$f" "$tmp/files"
	ok $? "the package holds /$f"
done

mkdir "$root"
dpkg-deb -x "$deb" "$root"
grep -qE '^ExecStart=/usr/sbin/gsotun( |$)' "$root/$unit"
ok $? "/$unit runs /usr/sbin/gsotun"
grep -qE '^ExecStart=[^ ]* --dev %i --config /etc/gsotun/%i\.conf ' \
	"$root/$unit"
ok $? "  with --config /etc/gsotun/NAME.conf"
grep -qx 'EnvironmentFile=-/etc/gsotun/%i.env' "$root/$unit" &&
	grep -qE '^ExecStart=.* \$GSOTUN_OPTS$' "$root/$unit"
ok $? "  and GSOTUN_OPTS from /etc/gsotun/NAME.env if there is one"
grep -qx 'User=gsotun' "$root/$unit"
ok $? "  as the service user gsotun"
grep -qE '^SystemCallFilter=@system-service .*seccomp' "$root/$unit"
ok $? "  under SystemCallFilter=@system-service, seccomp() allowed"
grep -qx 'RestartPreventExitStatus=64' "$root/$unit"
ok $? "  not restarted after a usage error (exit status 64)"

# systemd's own reading of the unit, in the package's root with the
# targets it names and kill: no error, no warning (a key mistyped).
unit_verified()
{
	local u

	command -v systemd-analyze >/dev/null 2>&1 || return 0
	mkdir -p "$root/bin" && cp /bin/kill "$root/bin/" || return 1
	for u in sysinit.target basic.target network-online.target \
		multi-user.target shutdown.target; do
		[ -e "/lib/systemd/system/$u" ] &&
			cp "/lib/systemd/system/$u" "$root/lib/systemd/system/"
	done
	systemd-analyze verify --man=no --recursive-errors=no \
		--root="$root" gsotun@gt0.service >"$tmp/verify" 2>&1 &&
		[ ! -s "$tmp/verify" ] || { diag "$tmp/verify"; return 1; }
}
unit_verified
ok $? "  systemd-analyze verify finds nothing in gsotun@gt0.service"
# A template names no tunnel: nothing to enable, start or stop.
dpkg-deb -e "$deb" "$tmp/control"
! cat "$tmp"/control/* |
	grep -qE 'deb-systemd-(helper enable|invoke) .*gsotun@\.service'
ok $? "no maintainer script enables, starts or stops gsotun@.service"
grep -q 'systemd-sysusers.* gsotun\.conf' "$tmp/control/postinst" 2>/dev/null
ok $? "postinst runs systemd-sysusers gsotun.conf"
dpkg-deb -f "$deb" Depends | grep -q 'systemd-sysusers'
ok $? "the package depends on a systemd-sysusers"

# What that postinst makes, made in the throwaway root.
user_made()
{
	local line

	command -v systemd-sysusers >/dev/null 2>&1 || return 0
	mkdir -p "$root/etc" &&
		systemd-sysusers --root="$root" gsotun.conf >"$tmp/sysusers" 2>&1 ||
		{ diag "$tmp/sysusers"; return 1; }
	line=$(grep '^gsotun:' "$root/etc/passwd")
	[[ $line == *:/usr/sbin/nologin ]] && grep -q '^gsotun:' "$root/etc/group" ||
		{ echo "# passwd: ${line:-none}"; return 1; }
}
user_made
ok $? "systemd-sysusers makes the user gsotun (no login) and its group"

# bash-completion loads completions/NAME when NAME is completed: each
# file must set up its own program's.
for p in $programs; do
	bash -c '. "$1" && complete -p "$2"' - \
		"$root/usr/share/bash-completion/completions/$p" "$p" \
		>/dev/null 2>&1
	ok $? "the installed completion of $p completes $p"
done

for p in $programs; do
	out=$("$root/usr/sbin/$p" --version 2>&1)
	rc=$?
	got=$(printf '%s\n' "$out" | awk '{ print $NF; exit }')
	[ "$rc" -eq 0 ] && [ "$got" = "$version" ]
	ok $? "installed $p --version says $version (exit $rc: ${out%%
*})"
done

if command -v lintian >/dev/null 2>&1; then
	lintian "$deb" >"$tmp/lintian" 2>&1
	grep -E '^[EW]:' "$tmp/lintian" | sed 's/^/# lintian: /'
	! grep -q '^E:' "$tmp/lintian"
	ok $? "lintian reports no error"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP lintian not installed"
fi
finish
