#!/bin/bash
# SPDX-License-Identifier: MIT
# The guest half of scripts/arm64-check.sh: PID 1 of Debian 12's arm64 cloud
# kernel under qemu-system-aarch64, one boot per configuration
# (sbx.config= on the kernel command line), with the cross-built sbx, arm64
# bash and busybox. Each check prints one line on the console,
#
#   sbx-arm64: PASS NAME
#   sbx-arm64: FAIL NAME: what was seen
#
# and the last line is "sbx-arm64: END CONFIG: N passed, M failed". The
# host reads those lines (the console carries the details around them).
#
#   stock          Landlock on; both runners, as root and as nobody; then
#                  user.max_user_namespaces=0 in the same boot: the namespace
#                  runner refused, auto picks landlock (whose checks ran
#                  above: they do not change with user namespaces)
#   landlock-off   lsm= without landlock: the namespace runner alone; then
#                  user namespaces off too: every confined run refused
#                  (SANDBOX_UNAVAILABLE), nothing ran; danger-full-access runs
#
# What each check shows, as check-vm does on x86-64 (scripts/vm-guest.sh), in
# shell: checks are seen from outside (the file on disk, its mode and time,
# the process table, a daemon's witness file), never only from what sbx
# says. Everything runs as root and again as nobody.
set -u
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8
/bin/busybox mkdir -p /usr/local/bin
/bin/busybox --install -s /usr/local/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
ln -sf pts/ptmx /dev/ptmx
ln -sf /proc/self/fd /dev/fd
mount -t tmpfs -o mode=1777 shm /dev/shm
hostname sbx-arm64
exec >/dev/console 2>&1

config=$(sed -n 's/.*sbx\.config=\([^ ]*\).*/\1/p' /proc/cmdline)
sbx=/sbx/sbx
helpers=/sbx/tests/helpers
passed=0
failed=0

pass() {
	echo "sbx-arm64: PASS $1"
	passed=$((passed + 1))
}
fail() {
	echo "sbx-arm64: FAIL $1: $2"
	failed=$((failed + 1))
}
# check NAME DETAIL CONDITION...: PASS if the condition (a command) holds
check() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$detail"; fi
}

# as WHO CMD...: run CMD as root or as nobody (HOME of its own)
as() {
	local who=$1
	shift
	if [ "$who" = nobody ]; then
		su -s /bin/bash -c 'export HOME=/var/tmp/home-nobody; exec "$@"' -- nobody as-nobody "$@"
	else
		"$@"
	fi
}
# spawn WHO CMD...: as, in the background; $! is then CMD's own pid
spawn() {
	(
		if [ "$1" = nobody ]; then
			exec su -s /bin/bash -c 'exec "$@"' -- nobody as-nobody "${@:2}"
		fi
		exec "${@:2}"
	) &
}

echo "== sbx-arm64: $config on $(uname -r) ($(uname -m)), up $(cut -d' ' -f1 /proc/uptime) s"
mkdir -p /var/tmp/home-nobody
chown 65534:65534 /var/tmp/home-nobody

# ---- the configuration took effect, and sbx says so ----
probe_is() {
	local name=$1
	shift
	local probe
	probe=$($sbx probe 2>&1)
	echo "$probe" | sed 's/^/    probe: /'
	local want missing=""
	for want in "$@"; do
		grep -qF -- "$want" <<<"$probe" || missing="$missing [$want]"
	done
	if [ -z "$missing" ]; then pass "$name"; else fail "$name" "probe does not say:$missing"; fi
}

# ---- one runner, one user ----
# Every check makes its own fixture under /var/tmp/arm64-WHO-RUNNER: the
# workspace ws (the root) and outside, which only the caller may write.
fixture() {
	local who=$1 runner=$2 uid
	uid=$([ "$who" = nobody ] && echo 65534 || echo 0)
	base=/var/tmp/arm64-$who-$runner
	rm -rf "$base"
	ws=$base/ws
	out=$base/outside
	mkdir -p "$ws" "$out"
	echo orig >"$out/f"
	chmod 644 "$out/f"
	touch -d @1000000000 "$out/f"
	chown -R "$uid:$uid" "$base"
}

run_json() { # WHO RUNNER MODE COMMAND: stdout to $base/json, stderr to $base/err, rc in $rc
	local who=$1 runner=$2 mode=$3
	as "$who" $sbx run --json --runner "$runner" --mode "$mode" --root "$ws" -- "$4" \
		>"$base/json" 2>"$base/err"
	rc=$?
}

leftover() { # MARK: processes whose command line holds MARK
	grep -lsa -- "$1" /proc/[0-9]*/cmdline 2>/dev/null | grep -v "/proc/$$/" || true
}

confined_checks() {
	local who=$1 runner=$2 tag="$2/$1" dialect json
	case $runner in
	namespace) dialect="Read-only file system" ;;
	landlock) dialect="Permission denied" ;;
	esac

	# a confined write: into the root allowed, outside refused, seen on disk
	fixture "$who" "$runner"
	run_json "$who" "$runner" workspace-write \
		"echo in > $ws/in; echo x > $out/f; echo new > $out/new"
	json=$(cat "$base/json")
	check "confined-write [$tag]" "exit $rc, $json, outside: $(cat "$out/f"; ls "$out")" \
		eval '[[ $json == *"\"runner\":\"$runner\""* ]] && [ -e "$ws/in" ] &&
			[ "$(cat "$out/f")" = orig ] && [ ! -e "$out/new" ] && [ $rc != 0 ] && [ $rc != 125 ]'

	# the denial is the sandbox's: the runner's dialect, the marker, denied
	fixture "$who" "$runner"
	run_json "$who" "$runner" read-only "echo x > $ws/ro"
	json=$(cat "$base/json")
	check "denial-marker [$tag]" "exit $rc, $json" \
		eval '[ $rc = 1 ] && [ ! -e "$ws/ro" ] && [[ $json == *"$dialect"* ]] &&
			[[ $json == *"\"denied\":true"* ]] &&
			[[ $json == *"[sandbox: file access denied under read-only mode]"* ]]'
	# ... and without --json the marker is its own line on stderr
	as "$who" $sbx run --runner "$runner" --mode workspace-write --root "$ws" -- \
		"echo x > $out/f" >/dev/null 2>"$base/err"
	rc=$?
	check "denial-marker-stream [$tag]" "exit $rc, stderr: $(cat "$base/err")" \
		eval '[ $rc = 1 ] && grep -qx "\[sandbox: file access denied under workspace-write mode\]" "$base/err" &&
			[ "$(cat "$out/f")" = orig ]'
	# a failure that is not the sandbox's is not marked
	run_json "$who" "$runner" workspace-write "cat $ws/no-such-file; exit 3"
	json=$(cat "$base/json")
	check "no-marker-for-own-failure [$tag]" "exit $rc, $json" \
		eval '[ $rc = 3 ] && [[ $json == *"\"denied\":false"* ]] && [[ $json == *"\"markers\":[]"* ]]'

	# nothing outlives a run: setsid, a double fork, TERM ignored
	local mark=$((RANDOM + 1000))
	fixture "$who" "$runner"
	as "$who" $sbx run --runner "$runner" --mode workspace-write --root "$ws" -- \
		"setsid sleep 300.$mark & (sleep 301.$mark &); trap '' TERM; echo started" \
		>/dev/null 2>&1
	sleep 0.5
	local left
	left=$(leftover "30[01].$mark")
	check "whole-tree-kill [$tag]" "left: $left" [ -z "$left" ]
	[ -n "$left" ] && pkill -9 -f "$mark"
	# ... and the timeout ends the tree with 124
	mark=$((RANDOM + 1000))
	as "$who" $sbx run --runner "$runner" --mode workspace-write --root "$ws" --timeout 2 -- \
		"(setsid sleep 302.$mark &); sleep 303.$mark" >/dev/null 2>&1
	rc=$?
	sleep 0.5
	left=$(leftover "30[23].$mark")
	check "timeout-kill [$tag]" "exit $rc, left: $left" eval '[ $rc = 124 ] && [ -z "$left" ]'
	[ -n "$left" ] && pkill -9 -f "$mark"

	# the errno rules (compiled for aarch64): no setuid or setgid bit by any
	# call, io_uring and openat2 absent; a plain chmod goes through
	fixture "$who" "$runner"
	touch "$ws/s" && chown "$(stat -c %u "$ws")" "$ws/s"
	run_json "$who" "$runner" workspace-write \
		"$helpers/sidedoor create $ws/c; $helpers/sidedoor chmod $ws/s; $helpers/sidedoor mknod $ws/m"
	json=$(cat "$base/json")
	local want got bad=""
	for want in OPENAT_SUID=1 OPENAT_SGID=1 MKDIR_SGID=1 TMPFILE_SUID=1 OPENAT2=38 URING=38 \
		CHMOD=1 FCHMOD=1 FCHMODAT=1 FCHMODAT2=1 CHMOD_SGID=1 CHMOD_PLAIN=0 SUID=1; do
		[[ $json == *"${want}\\n"* ]] || bad="$bad $want"
	done
	got=$(find "$ws" -perm /6000 2>/dev/null)
	check "no-setuid-bits [$tag]" "expected$bad; set-id files: $got; $json" \
		eval '[ -z "$bad" ] && [ -z "$got" ] && [ "$(stat -c %a "$ws/s")" = 700 ]'

	# the supervisor's metadata calls: outside the writable set the mode
	# and the times stay (landlock: the supervisor refuses them, EACCES;
	# namespace: the read-only view, EROFS); inside they change
	fixture "$who" "$runner"
	echo in >"$ws/in" && chown "$(stat -c %u "$ws")" "$ws/in" && chmod 644 "$ws/in"
	run_json "$who" "$runner" workspace-write \
		"chmod 600 $ws/in; touch -d @0 $ws/in; chmod 600 $out/f; touch -d @0 $out/f"
	json=$(cat "$base/json")
	check "metadata [$tag]" "exit $rc, outside $(stat -c '%a %Y' "$out/f"), inside $(stat -c '%a %Y' "$ws/in"); $json" \
		eval '[ "$(stat -c %a "$out/f")" = 644 ] && [ "$(stat -c %Y "$out/f")" = 1000000000 ] &&
			[ "$(stat -c %a "$ws/in")" = 600 ] && [ "$(stat -c %Y "$ws/in")" = 0 ] &&
			[[ $json == *"\"denied\":true"* ]]'

	# the opener (workspace-write): no file of the run is open for writing
	# with a setuid or setgid bit, so an open for writing that writes
	# nothing strips the bit (the kernel alone keeps it), by openat, the
	# only open arm64 has; the content stays
	fixture "$who" "$runner"
	echo orig >"$ws/suid" && echo orig >"$ws/sgid"
	chown "$(stat -c %u:%g "$ws")" "$ws/suid" "$ws/sgid"
	chmod 4755 "$ws/suid" && chmod 2644 "$ws/sgid"
	run_json "$who" "$runner" workspace-write ": >> $ws/suid; : 3<> $ws/sgid"
	json=$(cat "$base/json")
	check "opener-strips-setuid [$tag]" "exit $rc, modes $(stat -c %a "$ws/suid" "$ws/sgid" | tr '\n' ' ')$(cat "$ws/suid"); $json" \
		eval '[ $rc = 0 ] && [ "$(stat -c %a "$ws/suid")" = 755 ] && [ "$(stat -c %a "$ws/sgid")" = 644 ] &&
			[ "$(cat "$ws/suid")" = orig ] && [ "$(cat "$ws/sgid")" = orig ]'

	# a read-write open (O_RDWR) the sandbox refused is noted: a failed
	# run whose command line names the file and whose output says it could
	# not open something is denied; the same output after a read-only open
	# (nothing noted) is not
	fixture "$who" "$runner"
	echo db >"$ws/db" && chown "$(stat -c %u "$ws")" "$ws/db"
	run_json "$who" "$runner" read-only \
		": 2>/dev/null 3<> $ws/db || { echo 'Error: unable to open database file' >&2; exit 1; }"
	json=$(cat "$base/json")
	local ctl
	ctl=$(as "$who" $sbx run --json --runner "$runner" --mode read-only --root "$ws" -- \
		": 3< $ws/db; echo 'Error: unable to open database file' >&2; exit 1" 2>&1)
	check "rw-open-noted [$tag]" "exit $rc, $json; control: $ctl" \
		eval '[ $rc = 1 ] && [[ $json == *"\"denied\":true"* ]] && [ "$(cat "$ws/db")" = db ] &&
			[[ $json == *"[sandbox: file access denied under read-only mode]"* ]] &&
			[[ $ctl == *"\"denied\":false"* ]]'

	# the file systems' own ioctls (chattr's FS_IOC_SETFLAGS, here
	# FS_NODUMP_FL): outside the writable set refused (landlock: the
	# supervisor's allow-list, EACCES; namespace: the read-only view,
	# EROFS), the flags unchanged; inside they change
	fixture "$who" "$runner"
	echo in >"$ws/in" && chown "$(stat -c %u "$ws")" "$ws/in"
	run_json "$who" "$runner" workspace-write \
		"$helpers/inodeioctl setflags $out/f 40; $helpers/inodeioctl setflags $ws/in 40"
	json=$(cat "$base/json")
	local fl_out fl_in want_err
	fl_out=$("$helpers/inodeioctl" show "$out/f" | sed -n 's/^FLAGS=\([0-9a-f]*\) .*/\1/p')
	fl_in=$("$helpers/inodeioctl" show "$ws/in" | sed -n 's/^FLAGS=\([0-9a-f]*\) .*/\1/p')
	want_err=$([ "$runner" = landlock ] && echo 13 || echo 30)
	check "inode-ioctls [$tag]" "exit $rc, flags outside ${fl_out:-?}, inside ${fl_in:-?}; $json" \
		eval '[[ $json == *"RESULT=$want_err\\nRESULT=0\\n"* ]] && [ -n "$fl_out" ] && [ -n "$fl_in" ] &&
			(( !(0x$fl_out & 0x40) && (0x$fl_in & 0x40) ))'

	# a host daemon's unix socket outside the writable set: refused by the
	# supervisor under both runners (the daemon's witness file stays empty);
	# allowed by unix_sockets, the same connect reaches it
	fixture "$who" "$runner"
	spawn "$who" "$helpers/sockserver" stream "$out/sock" "$out/witness"
	local server=$!
	for _ in $(seq 100); do [ -S "$out/sock" ] && break; sleep 0.1; done
	run_json "$who" "$runner" workspace-write "$helpers/sidedoor unix $out/sock refused-$who"
	json=$(cat "$base/json")
	sleep 0.3
	check "unix-socket-refused [$tag]" "$json; witness: $(cat "$out/witness" 2>/dev/null)" \
		eval '[[ $json == *"CONNECT=13"* ]] && ! grep -qs refused "$out/witness"'
	echo "unix_sockets = $out/sock" >"$base/conf"
	chmod 644 "$base/conf"
	as "$who" $sbx run --json --config "$base/conf" --runner "$runner" --mode workspace-write \
		--root "$ws" -- "$helpers/sidedoor unix $out/sock allowed-$who" >"$base/json" 2>&1
	json=$(cat "$base/json")
	for _ in $(seq 30); do grep -qs allowed "$out/witness" && break; sleep 0.1; done
	check "unix-socket-allowed [$tag]" "$json; witness: $(cat "$out/witness" 2>/dev/null)" \
		eval '[[ $json == *"CONNECT=0"* ]] && grep -qs "allowed-$who" "$out/witness"'
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null

	# new namespaces: nested ones under the namespace runner, none under
	# the landlock runner (setns, unshare, clone's flags; clone3 absent),
	# nor for a root caller (its rules refuse them, so that the refusal is
	# counted: seccomp_rules.c)
	fixture "$who" "$runner"
	run_json "$who" "$runner" workspace-write "$helpers/sidedoor userns"
	json=$(cat "$base/json")
	case $runner/$who in
	landlock/* | namespace/root)
		check "no-new-namespaces [$tag]" "$json" \
			eval '[[ $json == *"UNSHARE=1\\n"* && $json == *"CLONE=1\\n"* && $json == *"CLONE3=38\\n"* && $json == *"SETNS=1\\n"* ]]'
		;;
	namespace/nobody)
		check "nested-namespaces [$tag]" "$json" eval '[[ $json == *"UNSHARE=0\\n"* ]]'
		;;
	esac

	# the 32-bit ARM compat ABI: killed at its first call (SIGSYS), nothing
	# printed; the same program runs without the sandbox (below)
	run_json "$who" "$runner" workspace-write "/sbx/arm32"
	json=$(cat "$base/json")
	check "compat-arm32-killed [$tag]" "exit $rc, $json" \
		eval '[ $rc = 159 ] && [[ $json == *"\"stdout\":\"\""* ]] && [[ $json == *SIGSYS* ]]'

	# /proc/<pid>/root and /cwd of an outside process of the same user
	fixture "$who" "$runner"
	cd "$out" && spawn "$who" sleep 120
	local sleeper=$!
	cd /
	for _ in $(seq 100); do
		[ "$(cat /proc/$sleeper/comm 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
	as "$who" $sbx run --runner "$runner" --mode workspace-write --root "$ws" -- \
		"echo x > /proc/$sleeper/root$out/f; touch /proc/$sleeper/cwd/new2" >/dev/null 2>&1
	rc=$?
	check "proc-root-route [$tag]" "exit $rc, outside: $(cat "$out/f"; ls "$out"), cwd $(readlink /proc/$sleeper/cwd)" \
		eval '[ "$(readlink /proc/$sleeper/cwd)" = "$out" ] && [ "$(cat "$out/f")" = orig ] &&
			[ ! -e "$out/new2" ] && [ $rc != 0 ]'
	kill "$sleeper" 2>/dev/null
	wait "$sleeper" 2>/dev/null
	rm -rf "$base"
}

# --runner auto picks the runner this configuration leaves, and it confines.
auto_checks() {
	local who=$1 want=$2 json
	fixture "$who" auto
	run_json "$who" auto workspace-write "echo in > $ws/in; echo x > $out/f; echo new > $out/new"
	json=$(cat "$base/json")
	check "auto-picks-$want [$who]" "exit $rc, $json, outside: $(cat "$out/f"; ls "$out")" \
		eval '[[ $json == *"\"runner\":\"$want\""* ]] && [ -e "$ws/in" ] &&
			[ "$(cat "$out/f")" = orig ] && [ ! -e "$out/new" ] && [ $rc != 0 ] && [ $rc != 125 ]'
	rm -rf "$base"
}

# A runner this configuration lacks: refused, nothing ran.
refused_checks() {
	local who=$1 runner=$2 tag="$2/$1"
	fixture "$who" "$runner"
	as "$who" $sbx run --runner "$runner" --mode workspace-write --root "$ws" -- "echo in > $ws/in" \
		>/dev/null 2>"$base/err"
	rc=$?
	check "fail-closed [$tag]" "exit $rc: $(cat "$base/err")" \
		eval '[ $rc = 125 ] && grep -q SANDBOX_UNAVAILABLE "$base/err" && [ ! -e "$ws/in" ]'
	rm -rf "$base"
}

# Outside the sandbox: the checks' controls.
unconfined_checks() {
	local who=$1
	fixture "$who" danger
	as "$who" $sbx run --mode danger-full-access --root "$ws" -- "echo d > $out/danger" >/dev/null 2>&1
	check "danger-full-access-runs [$who]" "outside: $(ls "$out")" \
		eval '[ "$(cat "$out/danger" 2>/dev/null)" = d ]'
	# the compat ABI works on this kernel: the kill above is the filter's
	local o
	o=$(as "$who" $sbx run --mode danger-full-access --root "$ws" -- /sbx/arm32 2>&1)
	check "compat-arm32-runs-unconfined [$who]" "$o" [ "$o" = arm32 ]
	# --syscalls-as-of with the generated aarch64 table: pidfd_open (5.3)
	# and landlock_create_ruleset (5.13) absent as of 5.2, present as of 6.1
	o=$(as "$who" $sbx run --mode danger-full-access --root "$ws" --syscalls-as-of 5.2 -- \
		"$helpers/syscallprobe" 2>&1)
	local now
	now=$(as "$who" $sbx run --mode danger-full-access --root "$ws" --syscalls-as-of 6.1 -- \
		"$helpers/syscallprobe" 2>&1)
	check "syscalls-as-of [$who]" "5.2: $(grep -E '^(pidfd_open|landlock_create_ruleset|renameat2) ' <<<"$o" | tr '\n' ' ') 6.1: $(grep -E '^(pidfd_open|landlock_create_ruleset) ' <<<"$now" | tr '\n' ' ')" \
		eval 'grep -qx "pidfd_open ENOSYS" <<<"$o" && grep -qx "landlock_create_ruleset ENOSYS" <<<"$o" &&
			grep -q "^renameat2 " <<<"$o" && ! grep -qx "renameat2 ENOSYS" <<<"$o" &&
			grep -q "^pidfd_open " <<<"$now" && ! grep -qx "pidfd_open ENOSYS" <<<"$now" &&
			! grep -qx "landlock_create_ruleset ENOSYS" <<<"$now"'
	rm -rf "$base"
}

userns_off() {
	echo 0 >/proc/sys/user/max_user_namespaces
	echo "== user.max_user_namespaces=0"
}

case $config in
stock)
	lsm=$(cat /sys/kernel/security/lsm)
	check "landlock-active" "lsm: $lsm" eval '[[ ,$lsm, == *,landlock,* ]]'
	probe_is "probe-stock" "user namespaces: yes" "landlock: ABI 2, enforcement partial" \
		"a 32-bit ARM program (the compat ABI) is killed" "supervisor: yes" \
		"namespace runner: yes, enforcement full" "landlock runner: yes, enforcement partial" \
		"workspace-write: runner namespace, enforcement full, processes private"
	for who in root nobody; do
		unconfined_checks "$who"
		auto_checks "$who" namespace
		for runner in namespace landlock; do confined_checks "$who" "$runner"; done
	done
	userns_off
	probe_is "probe-userns-off" "user namespaces: no: user namespaces disabled (user.max_user_namespaces=0)" \
		"workspace-write: runner landlock, enforcement partial, processes host"
	for who in root nobody; do
		refused_checks "$who" namespace
		auto_checks "$who" landlock
	done
	;;
landlock-off)
	lsm=$(cat /sys/kernel/security/lsm)
	check "landlock-inactive" "lsm: $lsm" eval '[[ ,$lsm, != *,landlock,* ]]'
	probe_is "probe-landlock-off" "user namespaces: yes" \
		"landlock: no: built in but not enabled at boot: landlock is not in the lsm= list" \
		"namespace runner: yes, enforcement full" \
		"workspace-write: runner namespace, enforcement full, processes private"
	for who in root nobody; do
		refused_checks "$who" landlock
		auto_checks "$who" namespace
		confined_checks "$who" namespace
	done
	userns_off
	probe_is "probe-both-off" "workspace-write: refused (SANDBOX_UNAVAILABLE)" \
		"fix: make one runner work: namespace: sysctl -w user.max_user_namespaces=15000"
	for who in root nobody; do
		refused_checks "$who" namespace
		refused_checks "$who" landlock
		refused_checks "$who" auto
		unconfined_checks "$who"
	done
	;;
*)
	fail "config" "unknown configuration '${config:-?}'"
	;;
esac

echo "sbx-arm64: END $config: $passed passed, $failed failed"
echo "== done at $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
