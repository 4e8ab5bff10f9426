#!/bin/bash
# SPDX-License-Identifier: MIT
# arm64 on a real arm64 kernel (issue 33): boot Debian 12's arm64 cloud kernel
# (6.1, Landlock ABI 2) under qemu-system-aarch64 (TCG, -M virt -cpu max) with
# an initramfs holding the cross-built sbx (make ARCH=arm64), four of its
# test helpers, arm64 bash and busybox, and run scripts/arm64-guest.sh there,
# in two boots:
#
#   stock         Landlock on: both runners, as root and as nobody; then
#                 user.max_user_namespaces=0 (the landlock runner alone)
#   landlock-off  lsm= without landlock (the namespace runner alone); then
#                 user namespaces off too (every confined run refused)
#
# It prints one PASS/FAIL line per check and exits 1 if any failed or a boot
# gave no result.
#
#   scripts/arm64-check.sh [CONFIG...]      (default: both)
#
# Environment: SBX_VM_CACHE=DIR keeps the downloaded packages there (the
# default keeps nothing); SBX_VM_TIMEOUT=SECONDS per boot (default 600);
# SBX_VM_LOG=DIR keeps each boot's console log; SBX_ARM64_BUILD=DIR checks
# the cross build in DIR (default build/arm64: a scratch build elsewhere).
#
# The arm64 packages (the kernel, bash with libc6 and libtinfo6, busybox) are
# downloaded and unpacked, never installed: installing bash:arm64 would
# replace the host's bash. Nothing is left behind: one temporary directory,
# removed at exit, and the qemu process this script started.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SBX_ARM64_BUILD:-$top/build/arm64}
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(stock landlock-off)
timeout_s=${SBX_VM_TIMEOUT:-600}
BINARIES="sbx tests/helpers/sidedoor tests/helpers/sockserver tests/helpers/syscallprobe tests/helpers/inodeioctl"
PACKAGES="bash:arm64 libc6:arm64 libtinfo6:arm64 busybox-static:arm64"

for c in "${configs[@]}"; do
	case $c in
	stock | landlock-off) ;;
	*)
		echo "arm64-check: unknown configuration '$c' (stock landlock-off)" >&2
		exit 2
		;;
	esac
done
for b in $BINARIES; do
	[ -x "$build/$b" ] || {
		echo "arm64-check: $build/$b is not built (run: make check-arm64)" >&2
		exit 2
	}
done
# The single static binary the issue asks for, as file(1) sees it.
what=$(file -b "$build/sbx")
case $what in
*"ARM aarch64"*static-pie*) echo "arm64-check: sbx: $what" ;;
*)
	echo "arm64-check: $build/sbx is not a static-pie aarch64 binary: $what" >&2
	exit 2
	;;
esac
command -v qemu-system-aarch64 >/dev/null || {
	echo "arm64-check: no qemu-system-aarch64 (scripts/deps.sh arm64 installs it)" >&2
	exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-arm64-XXXXXX")
qemu_pid=
cleanup() {
	if [ -n "$qemu_pid" ]; then
		kill "$qemu_pid" 2>/dev/null || true
		wait "$qemu_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the packages: downloaded and unpacked, never installed ----

debdir=${SBX_VM_CACHE:-$work/deb}
mkdir -p "$debdir"

# The .deb of PKG (NAME:arm64) in $debdir, downloaded once.
fetch() {
	local pkg=$1 name=${1%%:*} deb
	deb=$(ls "$debdir/${name}_"*_arm64.deb 2>/dev/null | tail -n1 || true)
	if [ -z "$deb" ]; then
		# apt's download sandbox user cannot write our private directory.
		(cd "$debdir" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null) || {
			apt-get update -q >/dev/null
			(cd "$debdir" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null)
		}
		deb=$(ls "$debdir/${name}_"*_arm64.deb | tail -n1)
	fi
	echo "$deb"
}

fetch_kernel() {
	local meta=linux-image-cloud-arm64:arm64 pkg
	pkg=$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
	if [ -z "$pkg" ]; then
		apt-get update -q >/dev/null
		pkg=$(apt-cache depends "$meta" | awk '/Depends: linux-image-/ { print $2; exit }')
	fi
	[ -n "$pkg" ] || {
		echo "arm64-check: cannot resolve $meta to a kernel package (dpkg --add-architecture arm64?)" >&2
		exit 2
	}
	mkdir -p "$work/kernel"
	dpkg-deb --fsys-tarfile "$(fetch "$pkg")" | tar -C "$work/kernel" -x ./boot
	# an uncompressed arm64 Image: qemu boots it with -kernel
	cp "$work/kernel"/boot/vmlinuz-* "$work/Image"
	# The LSM list the kernel was built with, for "everything but landlock".
	lsm_default=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$work/kernel"/boot/config-*)
	kernel_release=$(basename "$work/kernel"/boot/vmlinuz-*)
	rm -rf "$work/kernel"
}

# ---- the initramfs ----

# A 32-bit ARM (EABI) program of eight instructions: write(1, "arm32\n", 6),
# exit(0). The guest checks that it runs unconfined (the kernel has the
# compat ABI) and is killed confined.
arm32_elf() {
	local hdr code
	# ELF32 header: ARM (40), EXEC, entry 0x10054, one program header
	hdr='\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00'
	hdr+='\x02\x00\x28\x00\x01\x00\x00\x00\x54\x00\x01\x00\x34\x00\x00\x00'
	hdr+='\x00\x00\x00\x00\x00\x00\x00\x05\x34\x00\x20\x00\x01\x00\x00\x00\x00\x00\x00\x00'
	# PT_LOAD of the whole file (122 bytes) at 0x10000, R+X
	hdr+='\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00'
	hdr+='\x7a\x00\x00\x00\x7a\x00\x00\x00\x05\x00\x00\x00\x00\x10\x00\x00'
	# mov r0,#1; add r1,pc,#20; mov r2,#6; mov r7,#4; svc 0;
	# mov r0,#0; mov r7,#1; svc 0; "arm32\n"
	code='\x01\x00\xa0\xe3\x14\x10\x8f\xe2\x06\x20\xa0\xe3\x04\x70\xa0\xe3\x00\x00\x00\xef'
	code+='\x00\x00\xa0\xe3\x01\x70\xa0\xe3\x00\x00\x00\xef'
	code+='arm32\n'
	printf "$hdr$code" >"$1"
	chmod 755 "$1"
	[ "$(stat -c %s "$1")" = 122 ]
}

build_image() {
	local img=$work/stage1/image p
	mkdir -p "$img"
	for p in $PACKAGES; do
		dpkg-deb -x "$(fetch "$p")" "$img"
	done
	mkdir -p "$img/proc" "$img/sys" "$img/dev" "$img/run" "$img/root" "$img/etc" \
		"$img/var/tmp" "$img/tmp" "$img/usr/local/bin" "$img/sbx/tests/helpers"
	chmod 1777 "$img/tmp" "$img/var/tmp"
	rm -rf "$img/usr/share/doc" "$img/usr/share/man" "$img/usr/share/locale" "$img/usr/share/info"
	for b in $BINARIES; do
		cp "$build/$b" "$img/sbx/$b"
	done
	arm32_elf "$img/sbx/arm32"
	cp "$top/scripts/arm64-guest.sh" "$img/sbx/arm64-guest.sh"
	cat >"$img/etc/passwd" <<-EOF
		root:x:0:0:root:/root:/bin/bash
		nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
	EOF
	cat >"$img/etc/group" <<-EOF
		root:x:0:
		nogroup:x:65534:
	EOF
	echo sbx-arm64 >"$img/etc/hostname"
	echo "127.0.0.1 localhost sbx-arm64" >"$img/etc/hosts"
	# stage 1: copy the image into a tmpfs and switch_root there, so
	# mounts (pivot, bind, MS_PRIVATE) behave as on a real root file system
	mkdir -p "$work/stage1/bin" "$work/stage1/newroot"
	cp "$img/bin/busybox" "$work/stage1/bin/busybox"
	cat >"$work/stage1/init" <<-'EOF'
		#!/bin/busybox sh
		/bin/busybox mount -t tmpfs -o mode=0755 root /newroot
		/bin/busybox cp -a /image/. /newroot/
		exec /bin/busybox switch_root /newroot /bin/bash /sbx/arm64-guest.sh
	EOF
	chmod 755 "$work/stage1/init"
	(cd "$work/stage1" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"
	rm -rf "$work/stage1"
}

# ---- boot ----

boot() {
	local config=$1 append lsm
	append="console=ttyAMA0 quiet loglevel=3 panic=-1 sbx.config=$config"
	if [ "$config" = landlock-off ]; then
		lsm=$(echo "$lsm_default" | tr ',' '\n' | grep -vx landlock | paste -sd, -)
		append="$append lsm=$lsm"
	fi
	# Why pauth-impdef: -cpu max emulates pointer authentication with the
	# architected QARMA algorithm, which costs TCG half its speed; the
	# implementation-defined one is as good for a test and boots in half
	# the time.
	timeout --foreground -k 10 "$timeout_s" qemu-system-aarch64 -M virt -accel tcg \
		-cpu max,pauth-impdef=on -smp 2 -m 2048 \
		-nographic -no-reboot -nodefaults -display none -serial "file:$work/console-$config" \
		-kernel "$work/Image" -initrd "$work/initrd.cpio" -append "$append" \
		</dev/null >/dev/null 2>"$work/qemu-$config.err" &
	qemu_pid=$!
	wait "$qemu_pid" || true
	qemu_pid=
	if [ -n "${SBX_VM_LOG:-}" ]; then
		mkdir -p "$SBX_VM_LOG"
		cp "$work/console-$config" "$SBX_VM_LOG/arm64-console-$config.log"
	fi
}

lsm_default=
kernel_release=
t0=$(date +%s)
fetch_kernel
build_image
echo "arm64-check: $kernel_release, initramfs $(($(stat -c %s "$work/initrd.cpio") / 1048576)) MiB," \
	"prepared in $(($(date +%s) - t0)) s"

failed=0
passed=0
broken=0
for config in "${configs[@]}"; do
	t1=$(date +%s)
	boot "$config"
	secs=$(($(date +%s) - t1))
	tr -d '\r' <"$work/console-$config" | grep -a '^sbx-arm64: \(PASS\|FAIL\) ' |
		sed "s/^sbx-arm64: \([A-Z]*\) /arm64-check: $config: \1 /" || true
	p=$(tr -d '\r' <"$work/console-$config" | grep -a -c '^sbx-arm64: PASS ' || true)
	f=$(tr -d '\r' <"$work/console-$config" | grep -a -c '^sbx-arm64: FAIL ' || true)
	passed=$((passed + p))
	failed=$((failed + f))
	if ! tr -d '\r' <"$work/console-$config" | grep -aq "^sbx-arm64: END $config: "; then
		broken=$((broken + 1))
		echo "arm64-check: $config: FAIL boot (no end from the guest after ${secs} s; console tail:)"
		tail -n 40 "$work/console-$config" | sed 's/^/    /'
		sed 's/^/    qemu: /' "$work/qemu-$config.err"
		continue
	fi
	echo "arm64-check: $config: $p passed, $f failed (${secs} s)"
done
echo "arm64-check: $(uname -m) host, qemu-system-aarch64 TCG, $(($(date +%s) - t0)) s in all"
echo "$passed passed, $((failed + broken)) failed"
[ $failed = 0 ] && [ $broken = 0 ]
