# SPDX-License-Identifier: MIT
# Compare a confined side with the plain one and print the table. Sourced by
# scripts/realwork.sh.

MARKER_PREFIX="[sandbox: file access denied under "

# cell FILE-PREFIX VERDICT REASON
cell() {
	echo "$2" >"$1.cell"
	printf '%s\n' "$3" >"$1.reason"
}

# cond_match "runner=R,user=U,root,kernel<X.Y" RUNNER KIND: every item holds
# (* always; root: the confined side's caller is root; kernel<X.Y: this
# machine's kernel is older).
cond_match() {
	local item ok=0
	[ "$1" = "*" ] && return 0
	for item in $(echo "$1" | tr ',' ' '); do
		case $item in
		runner=*) [ "${item#runner=}" = "$2" ] || return 1 ;;
		user=*) [ "${item#user=}" = "$3" ] || return 1 ;;
		root) [ "$3" = "root>nobody" ] || { [ "$3" = caller ] && [ "$(id -u)" = 0 ]; } || return 1 ;;
		kernel\<*) [ "$(printf '%s\n%s\n' "${item#kernel<}" "$(uname -r | cut -d- -f1)" | sort -V | head -n 1)" != "${item#kernel<}" ] || return 1 ;;
		*) return 1 ;;
		esac
		ok=1
	done
	[ "$ok" -eq 1 ]
}

normalized() {
	if [ -e "$RW_DEFS/$1/norm" ]; then
		sed -E -f "$RW_DEFS/$1/norm" "$2"
	else
		cat "$2"
	fi
}

# ws_view MANIFEST NAME: the manifest without the denied paths, volatile
# contents blanked.
ws_view() {
	# git's index holds stat data, a .pyc its source's mtime
	local m=$1 d=$RW_DEFS/$2 deny_re="^$" vol_re='(^|/)\.git/(.*/)?index$|\.pyc$'

	if [ "$3" = deny ] && [ -e "$d/deny" ]; then
		deny_re=$(sed -n 's|^ws/||p' "$d/deny" | sed 's/[.[\*^$]/\\&/g; s|.*|^&(/\|\t)|' | paste -sd'|')
		[ -n "$deny_re" ] || deny_re="^$"
	fi
	[ -e "$d/volatile" ] && vol_re="$vol_re|$(paste -sd'|' "$d/volatile")"
	local cp_re="^$"
	[ -e "$d/copied" ] && cp_re=$(paste -sd'|' "$d/copied")
	[ -e "$d/scratch" ] && deny_re="$deny_re|$(paste -sd'|' "$d/scratch")"
	awk -F'\t' -v OFS='\t' -v deny="$deny_re" -v vol="$vol_re" -v cp="$cp_re" '
		$1 "\t" ~ deny { next }
		vol != "^$" && $1 ~ vol { $5 = "-"; $7 = "-"; if ($2 == "d") $3 = "-" }
		cp != "^$" && $1 ~ cp { $3 = "-"; $4 = "-" }
		{ print }' "$m"
}

# path_state MANIFEST REL: the lines of MANIFEST for REL and below.
path_state() { awk -F'\t' -v p="$2" '$1 == p || index($1, p "/") == 1' "$1"; }

# deny_state SIDE-DIR WHEN LINE: the state of a deny path (ws/..., home/...,
# an absolute path, anything else relative to the fixture) before or after.
deny_state() {
	local top_dir=${3%%/*} rel=${3#*/}
	case $3 in
	/*) grep -F "$3 " "$1/abs.$2" ;;
	ws/* | home/*) path_state "$1/$top_dir.$2" "$rel" ;;
	*) path_state "$1/fixture.$2" "$3" ;;
	esac
}

# covered DENY-LINE REVERTED-FILE: DENY-LINE (ws/REL) is, holds or lies in a
# path the file names (relative to the root). A path outside the root is
# never put back: a call that wrote there did not exit 0 unmarked.
covered() {
	local rel
	case $1 in ws/*) rel=${1#ws/} ;; *) return 1 ;; esac
	awk -v p="$rel" '$0 == p || index($0, p "/") == 1 || index(p, $0 "/") == 1 { f = 1 }
		END { exit !f }' "$2"
}

first_diff() {
	diff "$1" "$2" | grep '^[<>]' | head -n 2 | cut -c1-160 | tr '\n' ' '
}

# verdict NAME KIND RUNNER PLAIN CONF: writes CONF's cell.
verdict() {
	local name=$1 kind=$2 r=$3 p=$4 c=$5 d=$RW_DEFS/$1 res calls i deny=0 why="" ok=1 k
	local mode prc crc den mk line rel top_dir before after
	res=$(dirname "$c")/$r
	mode=$(cat "$d/mode")
	calls=$(cat "$d/calls")
	if [ -e "$d/deny" ]; then
		deny=1
		if [ -e "$d/deny_when" ]; then
			deny=0
			while read -r line; do
				cond_match "$(echo "$line" | tr ' ' ',')" "$r" "$kind" && deny=1
			done <"$d/deny_when"
		fi
	fi
	# A refusal that is no write: expected where the condition holds.
	local refuse=0 refuse_what=""
	if [ -e "$d/refuse" ]; then
		while IFS="$(printf '\t')" read -r k line; do
			cond_match "$k" "$r" "$kind" && refuse=1 && refuse_what=$line
		done <"$d/refuse"
	fi
	fail() { [ "$ok" -eq 1 ] && why=$1; ok=0; }
	# The refusal is expected where the unconfined side did write there.
	local wrote=0
	if [ "$deny" -eq 1 ]; then
		while read -r line; do
			[ "$(deny_state "$p" before "$line")" = "$(deny_state "$p" after "$line")" ] || wrote=1
		done <"$d/deny"
	fi
	for i in $(seq 1 "$calls"); do
		[ "$ok" -eq 1 ] || break
		if [ -e "$c/call.$i.error" ]; then
			fail "call $i: $(head -c 200 "$c/call.$i.error" | tr '\n' ' ')"
			break
		fi
		prc=$(cat "$p/call.$i.rc")
		crc=$(cat "$c/call.$i.rc")
		den=$(cat "$c/call.$i.denied")
		mk=$(grep -c . "$c/call.$i.markers")
		if [ "$refuse" -eq 1 ] && [ "$i" -eq "$calls" ] && [ "$prc" = 0 ]; then
			[ "$crc" != 0 ] || fail "call $i: $refuse_what: not refused (exit 0)"
			[ "$den" = true ] || fail "call $i: $refuse_what: the refusal is not marked (sandbox.denied false, exit $crc): $(tail -n 2 "$c/call.$i.err" | cut -c1-160 | tr '\n' ' ')"
			grep -qxF "$MARKER_PREFIX$mode mode]" "$c/call.$i.markers" ||
				fail "call $i: $refuse_what: no denial marker"
			wrote=1
			continue
		fi
		# A write the runner let through and sbx put back after the call
		# (the landlock runner; a protected path absent before): the call
		# exited 0, so it is not denied (CONTRACT section 5), and
		# sandbox.reverted names every path of the root it wrote.
		if [ "$deny" -eq 1 ] && [ "$i" -eq "$calls" ] && [ "$wrote" -eq 1 ] && [ "$crc" = 0 ]; then
			[ "$den" = false ] && [ "$mk" -eq 0 ] ||
				fail "call $i: exited 0 yet marked denied (denied $den): $(head -n 1 "$c/call.$i.markers")"
			while read -r line; do
				covered "$line" "$c/call.$i.reverted" ||
					fail "call $i: exited 0 and $line is not named in sandbox.reverted ($(paste -sd' ' "$c/call.$i.reverted"))"
			done <"$d/deny"
			continue
		fi
		if [ "$deny" -eq 1 ] && [ "$i" -eq "$calls" ] && [ "$wrote" -eq 1 ]; then
			[ "$den" = true ] || fail "call $i: the refusal is not marked (sandbox.denied false, exit $crc): $(tail -n 2 "$c/call.$i.err" | cut -c1-160 | tr '\n' ' ')"
			grep -qxF "$MARKER_PREFIX$mode mode]" "$c/call.$i.markers" ||
				fail "call $i: no denial marker"
			continue
		fi
		[ "$prc" = "$crc" ] ||
			fail "call $i: exit $prc unconfined, $crc confined: $(tail -n 2 "$c/call.$i.err" | cut -c1-200 | tr '\n' ' ')"
		# A deny call whose unconfined side wrote nothing (it failed on its
		# own): the same exit, no marker; the texts may differ by errno.
		if [ "$deny" -eq 0 ] || [ "$i" -ne "$calls" ]; then
			normalized "$name" "$p/call.$i.out" >"$c/call.$i.pn"
			normalized "$name" "$c/call.$i.out" >"$c/call.$i.cn"
			cmp -s "$c/call.$i.pn" "$c/call.$i.cn" ||
				fail "call $i stdout differs: $(first_diff "$c/call.$i.pn" "$c/call.$i.cn")"
			normalized "$name" "$p/call.$i.err" >"$c/call.$i.pe"
			normalized "$name" "$c/call.$i.err" >"$c/call.$i.ce"
			cmp -s "$c/call.$i.pe" "$c/call.$i.ce" ||
				fail "call $i stderr differs: $(first_diff "$c/call.$i.pe" "$c/call.$i.ce")"
		fi
		[ "$den" = false ] && [ "$mk" -eq 0 ] ||
			fail "call $i: marked denied although the sandbox refused nothing (denied $den): $(head -n 1 "$c/call.$i.markers")"
	done
	if [ "$ok" -eq 1 ]; then
		[ "$deny" -eq 1 ] && dm=deny || dm=same
		# read-only: what the unconfined side wrote (git status refreshing
		# the index) must simply not happen
		if [ "$mode" = read-only ]; then
			ws_view "$c/ws.before" "$name" $dm >"$c/ws.pv"
		else
			ws_view "$p/ws.after" "$name" $dm >"$c/ws.pv"
		fi
		ws_view "$c/ws.after" "$name" $dm >"$c/ws.cv"
		cmp -s "$c/ws.pv" "$c/ws.cv" ||
			fail "workspace differs: $(first_diff "$c/ws.pv" "$c/ws.cv")"
	fi
	if [ "$ok" -eq 1 ]; then
		cmp -s "$c/home.before" "$c/home.after" ||
			fail "confined call changed \$HOME outside the cache: $(first_diff "$c/home.before" "$c/home.after")"
	fi
	if [ "$ok" -eq 1 ] && [ "$deny" -eq 1 ]; then
		while read -r line; do
			[ "$(deny_state "$c" before "$line")" = "$(deny_state "$c" after "$line")" ] ||
				fail "$line was changed although it must be refused"
		done <"$d/deny"
	fi
	local verdict_word=same
	[ "$wrote" -eq 1 ] && verdict_word=denied
	if [ -e "$d/known" ]; then
		while IFS="$(printf '\t')" read -r k line; do
			cond_match "$k" "$r" "$kind" || continue
			if [ "$ok" -eq 1 ]; then
				cell "$res" FAIL "known gap did not happen (drop the known line): $line"
			elif [ "$fast" -eq 1 ]; then
				cell "$res" known "$line [$why]"
			else
				cell "$res" FAIL "known: $line [$why]"
			fi
			return
		done <"$d/known"
	fi
	if [ "$ok" -eq 1 ]; then
		cell "$res" "$verdict_word" ""
	else
		cell "$res" FAIL "$why"
	fi
}

# print_table "NAMES": workflow x runner x user, then the reasons.
print_table() {
	local name r k f head1="" head2="" row word n_fail=0 n_known=0
	printf '\n%-26s' workflow
	for r in $runners; do
		for k in $all_kinds; do
			printf ' %-13s' "${r:0:2}:$k"
		done
	done
	echo
	for name in $1; do
		printf '%-26s' "$name"
		for r in $runners; do
			for k in $all_kinds; do
				f=$work/res/$name/${k/>/-}/$r.cell
				if [ -e "$f" ]; then
					word=$(cat "$f")
				elif echo " $kinds " | grep -qF " $k "; then
					word="FAIL"
					cell "${f%.cell}" FAIL "no result (the job died)"
				else
					word="-"
				fi
				printf ' %-13s' "$word"
			done
		done
		echo
	done
	echo
	for name in $1; do
		for r in $runners; do
			for k in $all_kinds; do
				f=$work/res/$name/${k/>/-}/$r
				[ -e "$f.cell" ] || continue
				case $(cat "$f.cell") in
				FAIL) n_fail=$((n_fail + 1)); echo "FAIL  $name $r $k: $(cat "$f.reason")" ;;
				known) n_known=$((n_known + 1)); echo "known $name $r $k: $(cat "$f.reason")" ;;
				esac
			done
		done
	done
	[ "$(echo " $kinds " | grep -c nobody)" -eq 1 ] ||
		echo "note: the nobody and root>nobody columns need root (-)"
	echo "realwork: $n_fail FAIL, $n_known known gaps not counted (--fast)"
}
