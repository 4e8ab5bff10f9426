# SPDX-License-Identifier: MIT
# One side of a comparison: build the fixture, run the workflow's calls
# unconfined ("plain") or under a runner, and record what each call did and
# what the fixture looks like afterwards. Sourced by scripts/realwork.sh.

# uid of the workspace's owner and of the one who runs the calls, per kind
owner_uid() { case $1 in caller) echo "$me" ;; *) echo 65534 ;; esac; }
caller_uid() { case $1 in nobody) echo 65534 ;; *) echo "$me" ;; esac; }

# as UID CMD...: run CMD as UID (no supplementary groups, no capabilities
# when that is not root).
as() {
	local uid=$1
	shift
	if [ "$uid" = "$me" ]; then
		"$@"
	else
		setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"
	fi
}

# The environment of every call, the same on both sides: a fresh home,
# fixed dates (git's commit ids), no update checks or network chatter.
rw_env() {
	local uid=$1 F=$2 tag=$3 name
	name=$(id -nu "$uid" 2>/dev/null || echo "u$uid")
	ENV=(env -i "HOME=$F/home" "USER=$name" "LOGNAME=$name" "SHELL=/bin/bash"
		"PATH=/usr/local/bin:/usr/bin:/bin" "LANG=C.UTF-8" "TERM=dumb" "TMPDIR=/tmp"
		"RW=/tmp/rw-$tag" "SOURCE_DATE_EPOCH=1700000000"
		"GIT_AUTHOR_DATE=1700000000 +0000" "GIT_COMMITTER_DATE=1700000000 +0000"
		"npm_config_update_notifier=false" "npm_config_fund=false" "npm_config_audit=false"
		"PIP_DISABLE_PIP_VERSION_CHECK=1" "PIP_NO_INDEX=1")
}

# manifest DIR [PRUNE]: one line per entry: path, type, mode, owner, size
# and md5 of files, the target of links; sorted. PRUNE (relative) is left out.
manifest() {
	local dir=$1 prune=${2:-.nonexistent}
	(
		t=$work/.manifest.$BASHPID
		cd "$dir" || exit 1
		find . -mindepth 1 -path "./$prune" -prune -o \
			-printf '%P\t%y\t%m\t%U:%G\t%s\t%l\n' | sort >"$t.m"
		find . -mindepth 1 -path "./$prune" -prune -o -type f -print0 | xargs -0r md5sum |
			sed 's|^\([0-9a-f]*\)  \./|\1\t|' >"$t.h"
		# FILENAME, not NR == FNR: with no file to hash, the first
		# file is empty and NR == FNR would hold for the whole listing.
		awk -F'\t' -v OFS='\t' 'FILENAME == ARGV[1] { h[$2] = $1; next }
			{ if ($2 != "f") $5 = "-"; print $0, ($2 == "f" ? h[$1] : "-") }' "$t.h" "$t.m"
		rm -f "$t.m" "$t.h"
	)
}

# fixture_state F: what is in the fixture beside the workspace and the home
fixture_state() {
	find "$1" -mindepth 1 \( -path "$1/ws" -o -path "$1/home" \) -prune -o \
		-printf '%P\t%y\t%m\t%U:%G\t%s\n' | sort
}

# abs_state NAME TAG: the state of the workflow's absolute deny paths (@TAG@
# is its tag: /tmp/rw-@TAG@ is $RW), one line each.
abs_state() {
	local line path
	[ -e "$RW_DEFS/$1/deny" ] || return 0
	grep '^/' "$RW_DEFS/$1/deny" | while read -r line; do
		path=${line//@TAG@/$2}
		if [ -e "$path" ] || [ -L "$path" ]; then
			echo "$line $(stat -c '%F %a %u:%g %s' "$path") $(find "$path" -type f -exec md5sum {} + 2>/dev/null | sort | md5sum)"
		else
			echo "$line absent"
		fi
	done
}

# Processes left behind by an unconfined call (sbx ends its own): anything
# whose cwd is in the fixture.
sweep() {
	find /proc -mindepth 2 -maxdepth 2 -name cwd \( -lname "$1" -o -lname "$1/*" \) \
		-printf '%h\n' 2>/dev/null | sed -n 's|^/proc/\([0-9]*\)$|\1|p' | xargs -r kill -9 2>/dev/null
}

# The workflow's /tmp names (the host's /tmp: unconfined, landlock runner).
sweep_tmp() { rm -rf "/tmp/rw-$1" "/tmp/rw-$1".* 2>/dev/null; }

# fixture F KIND: a fresh workspace and home at F, owned as KIND says, the
# home with the ordinary settings of a developer.
fixture() {
	local F=$1 kind=$2 ou cu
	ou=$(owner_uid "$kind")
	cu=$(caller_uid "$kind")
	rm -rf "$F"
	mkdir -p "$F/ws" "$F/home/.cache"
	chmod 755 "$F" "$F/ws" "$F/home" "$F/home/.cache"
	if [ "$me" -eq 0 ]; then
		chown "$ou:$ou" "$F/ws"
		chown "$cu:$cu" "$F/home" "$F/home/.cache"
	fi
	# safe.directory: root over another user's repository, as in a container
	printf '[user]\n\tname = Real Work\n\temail = rw@example.invalid\n[init]\n\tdefaultBranch = main\n[safe]\n\tdirectory = *\n' \
		>"$F/home/.gitconfig"
	[ "$me" -ne 0 ] || chown "$cu:$cu" "$F/home/.gitconfig"
}

# run_side NAME KIND SIDE OUT: SIDE is plain or a runner's name. OUT gets
# call.N.{rc,out,err} (and .json, .denied, .markers, .reverted confined), ws.before,
# ws.after, home.before, home.after, and setup.err when the setup failed.
run_side() {
	local name=$1 kind=$2 side=$3 out=$4 d=$RW_DEFS/$1 F tag ou cu i calls cmd rc conf mode
	F=$work/fx/$name.${kind/>/-}
	tag=$name.${kind/>/-}
	ou=$(owner_uid "$kind")
	cu=$(caller_uid "$kind")
	mode=$(cat "$d/mode")
	mkdir -p "$out"
	sweep_tmp "$tag"
	fixture "$F" "$kind"
	conf=$work/conf.$tag
	sed "s|@HOME@|$F/home|g" "$d/config" >"$conf" 2>/dev/null || : >"$conf"
	chmod 644 "$conf"
	if [ -e "$d/home" ]; then
		rw_env "$cu" "$F" "$tag"
		# a daemon it starts in the background lives until the side ends
		(cd "$F/home" && as "$cu" "${ENV[@]}" bash -e "$d/home") </dev/null >"$out/setup.err" 2>&1 ||
			return 1
	fi
	if [ -e "$d/setup" ]; then
		rw_env "$ou" "$F" "$tag"
		(cd "$F/ws" && as "$ou" "${ENV[@]}" bash -e "$d/setup") </dev/null >"$out/setup.err" 2>&1 ||
			return 1
		sweep "$F/ws"
	fi
	rm -f "$out/setup.err"
	abs_state "$name" "$tag" >"$out/abs.before"
	fixture_state "$F" >"$out/fixture.before"
	manifest "$F/ws" >"$out/ws.before"
	manifest "$F/home" .cache/sbx >"$out/home.before"
	rw_env "$cu" "$F" "$tag"
	calls=$(cat "$d/calls")
	for i in $(seq 1 "$calls"); do
		cmd=$(cat "$d/call.$i")
		if [ "$side" = plain ]; then
			(cd "$F/ws" && as "$cu" "${ENV[@]}" timeout -k 5 "$timeout_s" setsid -w bash -c "$cmd") \
				</dev/null >"$out/call.$i.out" 2>"$out/call.$i.err"
			echo $? >"$out/call.$i.rc"
			abs_state "$name" "$tag" >"$out/abs.after"
			sweep "$F"
		else
			(cd "$F/ws" && as "$cu" "${ENV[@]}" "$SBX" run --json --config "$conf" --mode "$mode" \
				--runner "$side" --root "$F/ws" --timeout "$timeout_s" --output-limit 4194304 \
				-- "$cmd") </dev/null >"$out/call.$i.json" 2>"$out/call.$i.sbx"
			rc=$?
			parse_result "$out/call.$i" "$rc"
			abs_state "$name" "$tag" >"$out/abs.after"
		fi
	done
	fixture_state "$F" >"$out/fixture.after"
	manifest "$F/ws" >"$out/ws.after"
	manifest "$F/home" .cache/sbx >"$out/home.after"
	sweep "$F"
	sweep_tmp "$tag"
	return 0
}

# parse_result PREFIX SBX_RC: split PREFIX.json into .rc .out .err .denied
# .markers .reverted; an sbx error (no result object) goes to .error.
parse_result() {
	local p=$1 src=$2 sig rc
	if ! jq -r '.exit_code as $x | if $x == null and .signal == null then error("no result") else
		(.signal // ""), ($x | tostring), (.sandbox.denied | tostring), .markers[] end' \
		"$p.json" >"$p.fields" 2>/dev/null; then
		{
			echo "sbx exited $src: $(head -c 300 "$p.sbx")"
			head -c 300 "$p.json"
		} >"$p.error"
		echo 125 >"$p.rc"
		: >"$p.out"
		: >"$p.err"
		echo false >"$p.denied"
		: >"$p.markers"
		: >"$p.reverted"
		return
	fi
	sig=$(sed -n 1p "$p.fields")
	rc=$(sed -n 2p "$p.fields")
	[ -z "$sig" ] || rc=$((128 + $(kill -l "${sig#SIG}")))
	echo "$rc" >"$p.rc"
	sed -n 3p "$p.fields" >"$p.denied"
	sed -n '4,$p' "$p.fields" >"$p.markers"
	jq -r '.sandbox.reverted // [] | .[]' "$p.json" >"$p.reverted"
	jq -j '.stdout' "$p.json" >"$p.out"
	jq -j '.stderr' "$p.json" >"$p.err"
}

# run_job NAME KIND: both sides for every runner, then the verdicts.
run_job() {
	local name=$1 kind=$2 d=$RW_DEFS/$1 res tool missing="" r t0=$SECONDS
	res=$work/res/$name/${kind/>/-}
	mkdir -p "$res"
	for tool in $(cat "$d/need"); do
		env -i PATH=/usr/local/bin:/usr/bin:/bin sh -c "command -v $tool" >/dev/null ||
			missing="$missing $tool"
	done
	for r in $runners; do
		if [ -n "$missing" ]; then
			cell "$res/$r" FAIL "not installed:$missing (scripts/deps.sh all installs it)"
			continue
		fi
		if [ ! -e "$res/plain" ]; then
			run_side "$name" "$kind" plain "$res/plain" ||
				{ cell "$res/$r" FAIL "setup failed: $(tail -n 3 "$res/plain/setup.err" | tr '\n' ' ')"; continue; }
		fi
		run_side "$name" "$kind" "$r" "$res/$r" ||
			{ cell "$res/$r" FAIL "setup failed: $(tail -n 3 "$res/$r/setup.err" | tr '\n' ' ')"; continue; }
		verdict "$name" "$kind" "$r" "$res/plain" "$res/$r"
	done
	[ "$keep" -eq 1 ] || rm -rf "$work/fx/$name.${kind/>/-}"
	echo $((SECONDS - t0)) >"$res/seconds"
}
