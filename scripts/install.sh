#!/bin/sh
# SPDX-License-Identifier: MIT
# Install sbx: scripts/install.sh DESTDIR PREFIX
#
#   DESTDIR  staging root ("" for a real install); files land in DESTDIR/PREFIX
#   PREFIX   the prefix the files will live under at run time, e.g. /usr/local
#
# Lays out PREFIX/bin/sbx (0755), include/sbx.h, lib/libsbx.so.VERSION with
# its links libsbx.so.0 (the soname) and libsbx.so, lib/libsbx.a,
# lib/pkgconfig/sbx.pc, share/man/man1/sbx.1 and share/man/man5/sbx.conf.5:
# nothing outside DESTDIR/PREFIX, unless the AppArmor profile is asked for.
# The profile, DESTDIR/etc/apparmor.d/sbx, names PREFIX/bin/sbx and allows it
# user namespaces where AppArmor restricts them (Ubuntu 23.10+); it is
# loaded only by `apparmor_parser -r /etc/apparmor.d/sbx`, never by this
# script or by sbx (docs/kernels.md). It is written when PREFIX is a system
# prefix (/usr or /usr/local) or SBX_APPARMOR=1, never with SBX_APPARMOR=0;
# an existing profile that names another sbx is kept unless SBX_APPARMOR=1.
# The output names the file written, or says why none was. A real install
# (no DESTDIR, as root) into /usr or /usr/local also refreshes the loader's
# cache (ldconfig); one into any other prefix does not.
# Idempotent: running it twice gives the same tree. sbx is never installed
# setuid, setgid or with file capabilities; this script checks and fails if it
# finds any. Run from anywhere; it works from the repository root it lives in.
# Environment: SBX_VERSION overrides the version written into sbx.pc;
# SBX_REQUIRES_PRIVATE the pkg-config modules libsbx.a needs (`make install`
# passes those of the build's features; default: all of them); LIBDIR the
# library directory under PREFIX (default lib; lib/x86_64-linux-gnu for
# Debian's multiarch layout); SBX_STRIP a strip(1) to run on what is
# installed (`make install-strip`): sbx fully, libsbx.so --strip-unneeded,
# libsbx.a --strip-debug; SBX_APPARMOR=1 writes the AppArmor profile whatever
# PREFIX is (and replaces one naming another sbx), SBX_APPARMOR=0 never.
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 DESTDIR PREFIX" >&2
	exit 2
fi
destdir=$1
prefix=$2
case $prefix in
/*) ;;
*) echo "install.sh: PREFIX must be absolute, got '$prefix'" >&2; exit 2 ;;
esac
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/   # PREFIX=/ stays /
apparmor=${SBX_APPARMOR-}
case $apparmor in
'' | 0 | 1) ;;
*) echo "install.sh: SBX_APPARMOR must be 0 or 1, got '$apparmor'" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
version=${SBX_VERSION:-$(cat "$top/VERSION")}
requires=${SBX_REQUIRES_PRIVATE:-jansson liburing libseccomp libmnl}
libsub=${LIBDIR:-lib}
so_real=libsbx.so.$(cat "$top/VERSION")
soname=libsbx.so.0

for f in sbx libsbx.a "$so_real" include/sbx.h sbx.pc.in man/sbx.1 man/sbx.conf.5 \
	etc/apparmor.d/sbx.in; do
	if [ ! -f "$top/$f" ]; then
		echo "install.sh: $top/$f is missing (run 'make all' first)" >&2
		exit 1
	fi
done

root=$destdir${prefix%/}
bindir=$root/bin
libdir=$root/$libsub
incdir=$root/include
pcdir=$libdir/pkgconfig
man1=$root/share/man/man1
man5=$root/share/man/man5

install -D -m 0755 "$top/sbx" "$bindir/sbx"
install -D -m 0644 "$top/include/sbx.h" "$incdir/sbx.h"
install -D -m 0644 "$top/libsbx.a" "$libdir/libsbx.a"
install -D -m 0755 "$top/$so_real" "$libdir/$so_real"
# The soname link (what programs load) and the development link (what -lsbx
# finds), both relative so a staged tree can move.
ln -sfn "$so_real" "$libdir/$soname"
ln -sfn "$soname" "$libdir/libsbx.so"
if [ -n "${SBX_STRIP:-}" ]; then
	$SBX_STRIP "$bindir/sbx"
	$SBX_STRIP --strip-unneeded "$libdir/$so_real"
	$SBX_STRIP --strip-debug "$libdir/libsbx.a"
fi
install -D -m 0644 "$top/man/sbx.1" "$man1/sbx.1"
install -D -m 0644 "$top/man/sbx.conf.5" "$man5/sbx.conf.5"

# libdir/includedir stay relative to ${prefix}, so a staged tree can be used
# with `pkg-config --define-variable=prefix=DESTDIR/PREFIX`.
pc_tmp=$(mktemp)
trap 'rm -f "$pc_tmp"' EXIT
sed -e "s|@PREFIX@|$prefix|g" \
    -e "s|@LIBDIR@|\${prefix}/$libsub|g" \
    -e 's|@INCLUDEDIR@|${prefix}/include|g' \
    -e "s|@VERSION@|$version|g" \
    -e "s|@REQUIRES_PRIVATE@|$(echo $requires | sed 's/ /, /g')|g" \
    "$top/sbx.pc.in" > "$pc_tmp"
if grep -q '@[A-Z]*@' "$pc_tmp"; then
	echo "install.sh: unreplaced placeholder in sbx.pc:" >&2
	grep '@[A-Z]*@' "$pc_tmp" >&2
	exit 1
fi
install -D -m 0644 "$pc_tmp" "$pcdir/sbx.pc"

# The AppArmor profile: under /etc (AppArmor reads nothing else), naming
# sbx's installed path, quoted, with AppArmor's pattern characters escaped so
# that it names that one file. Why only for a system prefix unless asked:
# /etc is outside PREFIX, and a scratch or private install must not replace
# the profile of the sbx the host really runs (its next load would take the
# user namespaces away from that one).
case $apparmor:$prefix in
0:*) aa_why="SBX_APPARMOR=0" ;;
1:* | :/usr | :/usr/local) aa_why= ;;
*) aa_why="PREFIX $prefix is not /usr or /usr/local; SBX_APPARMOR=1 writes it" ;;
esac
aa_dir=$destdir/etc/apparmor.d
if [ -n "$aa_why" ]; then
	echo "AppArmor: no profile written ($aa_why)"
else
	case $prefix in
	*[[:cntrl:]]*)
		echo "install.sh: PREFIX holds a control character; no AppArmor profile can name it" >&2
		exit 1
		;;
	esac
	aa_path=$(printf '%s\n' "${prefix%/}/bin/sbx" | sed 's/[][\\"*?{}^]/\\&/g')
	aa_tmp=$(mktemp)
	trap 'rm -f "$pc_tmp" "$aa_tmp"' EXIT
	# Plain shell: awk and sed would read the backslashes themselves.
	while IFS= read -r line; do
		case $line in
		*@SBX_PATH@*)
			line=${line%%@SBX_PATH@*}\"$aa_path\"${line#*@SBX_PATH@}
			aa_line=$line
			;;
		esac
		printf '%s\n' "$line"
	done <"$top/etc/apparmor.d/sbx.in" >"$aa_tmp"
	# A profile there for another sbx (another PREFIX, or the admin's own):
	# kept, and said, unless SBX_APPARMOR=1 asked for this one.
	aa_other=
	if [ -e "$aa_dir/sbx" ] && ! grep -qxF -- "$aa_line" "$aa_dir/sbx" 2>/dev/null; then
		aa_other=$(sed -n 's/^profile sbx \(".*"\) flags=.*/the profile of \1/p' "$aa_dir/sbx" 2>/dev/null | head -n 1)
		aa_other=${aa_other:-"no profile of sbx"}
	fi
	if [ -n "$aa_other" ] && [ "$apparmor" != 1 ]; then
		echo "install.sh: note: kept $aa_dir/sbx, which holds $aa_other;" \
			"none written for ${prefix%/}/bin/sbx (SBX_APPARMOR=1 replaces it)" >&2
	elif install -D -m 0644 "$aa_tmp" "$aa_dir/sbx" 2>/dev/null; then
		echo "AppArmor: wrote $aa_dir/sbx, the profile of ${prefix%/}/bin/sbx${aa_other:+ (replacing $aa_other)}"
		if [ -z "$destdir" ] && [ -d /sys/kernel/security/apparmor ]; then
			echo "AppArmor: load the profile with: apparmor_parser -r /etc/apparmor.d/sbx"
		fi
	elif [ -z "$destdir" ]; then
		# Not root: /etc is not theirs.
		echo "install.sh: note: no AppArmor profile (cannot write $aa_dir); see docs/kernels.md" >&2
	else
		echo "install.sh: unable to write $aa_dir/sbx" >&2
		exit 1
	fi
fi

# Never a setuid/setgid bit, never file capabilities.
bin=$bindir/sbx
mode=$(stat -c %a "$bin")
case $mode in
755) ;;
*)
	echo "install.sh: FATAL: $bin has mode $mode, expected 755 (no setuid/setgid bit)" >&2
	exit 1
	;;
esac
if [ -u "$bin" ] || [ -g "$bin" ]; then
	echo "install.sh: FATAL: $bin is setuid or setgid" >&2
	exit 1
fi
getcap_bin=$(PATH=$PATH:/usr/sbin:/sbin command -v getcap 2>/dev/null || true)
if [ -n "$getcap_bin" ]; then
	caps=$("$getcap_bin" "$bin" 2>/dev/null || true)
	if [ -n "$caps" ]; then
		echo "install.sh: FATAL: $bin carries file capabilities: $caps" >&2
		exit 1
	fi
fi
# Without getcap, read the xattr directly if we can.
if command -v getfattr >/dev/null 2>&1; then
	if getfattr -n security.capability "$bin" >/dev/null 2>&1; then
		echo "install.sh: FATAL: $bin carries file capabilities (security.capability)" >&2
		exit 1
	fi
fi

# A real install of the shared library into a system prefix: refresh the
# loader's cache, /etc/ld.so.cache (a staged one is the packager's business;
# a private prefix's library is not in the loader's path, and its install
# touches nothing outside it).
case $prefix in
/usr | /usr/local)
	if [ -z "$destdir" ] && [ "$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null 2>&1; then
		ldconfig || true
	fi
	;;
esac

echo "installed sbx $version into ${destdir:-}$prefix"
