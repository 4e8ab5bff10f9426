#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end check of what a newcomer installs and copies: `make install
# DESTDIR=... PREFIX=/usr` into a temporary DESTDIR (and `make install-strip`
# with Debian's multiarch LIBDIR; the AppArmor profile under
# DESTDIR/etc/apparmor.d: its path, its userns rule, its syntax by
# apparmor_parser without loading it; written for a system PREFIX only, or
# when asked, and never over another sbx's profile unless asked; a private
# PREFIX touched nothing outside DESTDIR/PREFIX, nor /etc without DESTDIR),
# libsbx.so.0 exporting
# exactly what sbx.h declares, pkg-config on the staged sbx.pc,
# examples/embed.c compiled the ordinary way (shared) and the --static way
# against the installed files and run, man -l on the installed pages, no
# setuid bit or file capabilities on the installed sbx, both `sbx serve`
# examples against the built ./sbx, make demo's script into a file, and the front page: README.md short, its
# read-only example printing what it shows (as root and as nobody), its --json
# example holding the members of a real result, its links resolving, and
# docs/troubleshooting.md quoting what sbx really prints.
#
# Run from anywhere after `make all`. Last line: "N passed, M failed";
# exits non-zero on any failure.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
prefix=/usr
work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-examples-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
dest=$work/dest
staged=$dest$prefix
log=$work/log
passed=0
failed=0

# t NAME COMMAND...: run COMMAND, count it, show its output on failure.
t() {
	name=$1
	shift
	if "$@" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok    $name"
	else
		failed=$((failed + 1))
		echo "FAIL  $name"
		sed 's/^/      /' "$log" | tail -n 40
	fi
}

have() { command -v "$1" >/dev/null 2>&1; }

# ---- install ----
t "make install DESTDIR=... PREFIX=$prefix" make -s install DESTDIR="$dest" PREFIX="$prefix"
t "install.sh is idempotent" scripts/install.sh "$dest" "$prefix"
version=$(cat VERSION)
for f in bin/sbx include/sbx.h lib/libsbx.a "lib/libsbx.so.$version" lib/pkgconfig/sbx.pc \
	share/man/man1/sbx.1 share/man/man5/sbx.conf.5; do
	t "installed $f" test -f "$staged/$f"
done
# The AppArmor profile: under DESTDIR/etc (AppArmor reads nothing else),
# naming the installed sbx, granting userns.
profile=$dest/etc/apparmor.d/sbx
t "installed etc/apparmor.d/sbx" test -f "$profile"
t "install.sh names the AppArmor profile it wrote" \
	sh -c 'scripts/install.sh "$1" /usr | grep -qxF "AppArmor: wrote $1/etc/apparmor.d/sbx, the profile of /usr/bin/sbx"' \
	_ "$dest"
t "the AppArmor profile names the installed sbx" \
	grep -qxF "profile sbx \"$prefix/bin/sbx\" flags=(unconfined) {" "$profile"
t "the AppArmor profile grants userns (inside the profile)" \
	sh -c 'sed -n "/^profile sbx /,/^}/p" "$1" | grep -qx "  userns,"' _ "$profile"
t "the AppArmor profile has no unreplaced placeholder" sh -c '! grep -n "@[A-Z_]*@" "$1"' _ "$profile"
# apparmor_parser checks the syntax without loading anything (-Q: skip the
# kernel, -K: no cache). Debian 12's parser (3.0) predates the `userns` rule
# and abi 4.0 (AppArmor 4.0, Ubuntu 24.04's): it checks the rest of the
# profile, the quoted path above all; a 4.x parser checks the whole file.
# A prefix with a space and AppArmor's pattern characters must still name
# exactly one file.
aa_check() {
	if apparmor_parser --version | grep -q "version [4-9]"; then
		apparmor_parser -Q -K "$1"
	else
		sed '/^abi <abi\/4.0>,$/d; /^  userns,$/d' "$1" | apparmor_parser -Q -K
	fi
}
odd_prefix='/opt/s b"x[1]*'
t "install.sh with a PREFIX holding a space and pattern characters (SBX_APPARMOR=1)" \
	sh -c 'SBX_APPARMOR=1 scripts/install.sh "$1" "$2" && grep -qxF "profile sbx \"/opt/s b\\\"x\\[1\\]\\*/bin/sbx\" flags=(unconfined) {" "$1/etc/apparmor.d/sbx"' \
	_ "$work/dest-odd" "$odd_prefix"
if PATH=$PATH:/usr/sbin:/sbin have apparmor_parser; then
	PATH=$PATH:/usr/sbin:/sbin
	t "apparmor_parser accepts the profile" aa_check "$profile"
	t "apparmor_parser accepts the profile for that PREFIX" aa_check "$work/dest-odd/etc/apparmor.d/sbx"
else
	failed=$((failed + 1))
	echo "FAIL  apparmor_parser is missing (scripts/deps.sh all installs apparmor)"
fi
# Nothing outside DESTDIR/PREFIX unless asked: a private PREFIX gets no
# profile (in /etc, it would replace the one of the sbx the host runs), an
# existing profile of another sbx is kept unless SBX_APPARMOR=1, and the
# output says which.
only_under() { # DIR PREFIX: DIR holds PREFIX's tree and its parents, nothing else
	find "$1" -mindepth 1 | while IFS= read -r f; do
		case $1$2/ in "$f"/*) continue ;; esac
		case $f in "$1$2"/*) continue ;; esac
		echo "outside DESTDIR/PREFIX: $f"
	done | grep . && return 1
	return 0
}
private_prefix() {
	out=$(scripts/install.sh "$work/dest-private" /opt/sbx-private) || return 1
	echo "$out"
	echo "$out" | grep -qxF "AppArmor: no profile written (PREFIX /opt/sbx-private is not /usr or /usr/local; SBX_APPARMOR=1 writes it)" &&
		only_under "$work/dest-private" /opt/sbx-private
}
t "install.sh into a private PREFIX: nothing outside DESTDIR/PREFIX, and says why no profile" private_prefix
# A real install (no DESTDIR) into a scratch PREFIX, as root: the host's
# /etc/apparmor.d and loader cache are left as they were.
etc_state() {
	stat -c '%n %y' /etc/apparmor.d 2>&1
	ls -lA --full-time /etc/apparmor.d 2>&1
	[ ! -f /etc/apparmor.d/sbx ] || sha256sum /etc/apparmor.d/sbx
	ls -la --full-time /etc/ld.so.cache 2>&1
}
etc_untouched() {
	etc_state >"$work/etc-before"
	scripts/install.sh "" "$work/prefix-real" || return 1
	etc_state >"$work/etc-after"
	diff "$work/etc-before" "$work/etc-after"
}
t "install.sh without DESTDIR into a scratch PREFIX leaves /etc untouched" etc_untouched
other_profile() {
	d=$work/dest-other
	mkdir -p "$d/etc/apparmor.d" &&
	sed 's|^profile sbx "/usr/bin/sbx"|profile sbx "/elsewhere/bin/sbx"|' "$profile" >"$d/etc/apparmor.d/sbx" &&
	cp "$d/etc/apparmor.d/sbx" "$work/other-profile" || return 1
	scripts/install.sh "$d" /usr >"$work/other-out" 2>&1 || { cat "$work/other-out"; return 1; }
	cat "$work/other-out"
	cmp "$d/etc/apparmor.d/sbx" "$work/other-profile" &&
	grep -qF "install.sh: note: kept $d/etc/apparmor.d/sbx, which holds the profile of \"/elsewhere/bin/sbx\"; none written for /usr/bin/sbx (SBX_APPARMOR=1 replaces it)" "$work/other-out" &&
	SBX_APPARMOR=1 scripts/install.sh "$d" /usr >"$work/other-out" 2>&1 &&
	cat "$work/other-out" &&
	grep -qxF "AppArmor: wrote $d/etc/apparmor.d/sbx, the profile of /usr/bin/sbx (replacing the profile of \"/elsewhere/bin/sbx\")" "$work/other-out" &&
	cmp "$d/etc/apparmor.d/sbx" "$profile"
}
t "an existing profile of another sbx is kept and said; SBX_APPARMOR=1 replaces it, and says so" other_profile
t "SBX_APPARMOR=0: no profile for a system PREFIX either" \
	sh -c 'SBX_APPARMOR=0 scripts/install.sh "$1" /usr | grep -qxF "AppArmor: no profile written (SBX_APPARMOR=0)" &&
		[ ! -e "$1/etc" ]' _ "$work/dest-noaa"
t "SBX_APPARMOR=yes is refused" sh -c '! SBX_APPARMOR=yes scripts/install.sh "$1" /usr && [ ! -e "$1" ]' _ "$work/dest-yes"
t "lib/libsbx.so.0 -> libsbx.so.$version" sh -c '[ "$(readlink "$1/libsbx.so.0")" = "libsbx.so.$2" ]' \
	_ "$staged/lib" "$version"
t "lib/libsbx.so -> libsbx.so.0" sh -c '[ "$(readlink "$1/libsbx.so")" = libsbx.so.0 ]' _ "$staged/lib"
t "libsbx.so's soname is libsbx.so.0" \
	sh -c 'readelf -d "$1" | grep -q "(SONAME).*\[libsbx.so.0\]"' _ "$staged/lib/libsbx.so.$version"

# Exactly the functions sbx.h declares are exported, nothing else.
exports_match() {
	# declarations: a line starting with the type, the name right before '('
	grep -E '^[a-z].*[ *]sbx_[a-z0-9_]+\(' "$1/include/sbx.h" |
		sed -E 's/^[^(]*[ *](sbx_[a-z0-9_]+)\(.*/\1/' | sort -u >"$work/declared"
	[ -s "$work/declared" ] || { echo "no declarations found in sbx.h"; return 1; }
	nm -D --defined-only "${2:-$1/lib}/libsbx.so.0" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
		sort -u >"$work/exported"
	diff "$work/declared" "$work/exported"
}
t "libsbx.so exports exactly the functions of sbx.h" exports_match "$staged"

# ---- no privilege on the installed binary ----
t "bin/sbx has mode 0755" sh -c '[ "$(stat -c %a "$1")" = 755 ]' _ "$staged/bin/sbx"
t "bin/sbx is neither setuid nor setgid" sh -c '[ ! -u "$1" ] && [ ! -g "$1" ]' _ "$staged/bin/sbx"
getcap_bin=$(PATH=$PATH:/usr/sbin:/sbin command -v getcap 2>/dev/null || true)
if [ -n "$getcap_bin" ]; then
	t "bin/sbx carries no file capabilities" \
		sh -c 'out=$("$1" "$2") || exit 1; [ -z "$out" ] || { echo "$out"; exit 1; }' \
		_ "$getcap_bin" "$staged/bin/sbx"
else
	echo "skip  getcap not installed (install.sh checks too)"
fi
t "installed sbx runs and confines (read-only write denied, marker shown)" \
	sh -c 'out=$("$1" run -- "echo x > /etc/sbx-examples-test" 2>&1); rc=$?
		printf "%s\n(exit %s)\n" "$out" "$rc"
		[ "$rc" -ne 0 ] && [ "$rc" -ne 125 ] &&
		printf "%s\n" "$out" | grep -qxF "[sandbox: file access denied under read-only mode]"' \
	_ "$staged/bin/sbx"

# ---- make install-strip, into Debian's multiarch library directory ----
sdest=$work/dest-strip
triplet=$(cc -print-multiarch 2>/dev/null)
slib=lib/${triplet:-$(uname -m)-linux-gnu}
t "make install-strip DESTDIR=... PREFIX=$prefix LIBDIR=$slib" \
	make -s install-strip DESTDIR="$sdest" PREFIX="$prefix" LIBDIR="$slib"
t "install-strip: bin/sbx has no symbol table, and is smaller than ./sbx" \
	sh -c '! readelf -S "$1" | grep -qE "\.symtab|\.debug_info" &&
		[ "$(stat -c %s "$1")" -lt "$(stat -c %s sbx)" ]' _ "$sdest$prefix/bin/sbx"
stripped_so_exports() {
	! readelf -S "$2/libsbx.so.0" | grep -qE '\.symtab|\.debug_info' && exports_match "$1" "$2"
}
t "install-strip: libsbx.so has no symbol table and still exports sbx.h" \
	stripped_so_exports "$sdest$prefix" "$sdest$prefix/$slib"
t "install-strip: libsbx.a has no debug information" \
	sh -c '! readelf -S "$1/libsbx.a" 2>/dev/null | grep -q "\.debug_info"' _ "$sdest$prefix/$slib"
t "install-strip: sbx.pc's libdir is \${prefix}/$slib" \
	grep -qx "libdir=\${prefix}/$slib" "$sdest$prefix/$slib/pkgconfig/sbx.pc"
t "the stripped sbx runs and confines" \
	sh -c 'out=$("$1" run -- "echo x > /etc/sbx-examples-test" 2>&1); echo "$out";
		printf "%s\n" "$out" | grep -qxF "[sandbox: file access denied under read-only mode]"' \
	_ "$sdest$prefix/bin/sbx"
t "embed.c builds and runs against the stripped multiarch libsbx.so.0" \
	sh -c 'cc -std=gnu11 -Wall -Wextra -Werror -o "$3/embed-strip" examples/embed.c \
		$(PKG_CONFIG_PATH="$1/$2/pkgconfig" pkg-config --define-variable=prefix="$1" --cflags --libs sbx) &&
		LD_LIBRARY_PATH="$1/$2" "$3/embed-strip" | grep -qx "denied: yes"' _ "$sdest$prefix" "$slib" "$work"

# ---- pkg-config ----
PKG_CONFIG_PATH=$staged/lib/pkgconfig
export PKG_CONFIG_PATH
pc() { pkg-config --define-variable=prefix="$staged" "$@"; }
t "pkg-config --exists sbx" pc --exists sbx
t "pkg-config --validate sbx" pkg-config --validate sbx
t "sbx.pc has no unreplaced placeholder" sh -c '! grep -n "@[A-Z]*@" "$1"' _ "$staged/lib/pkgconfig/sbx.pc"
t "sbx.pc names the real prefix" grep -qx "prefix=$prefix" "$staged/lib/pkgconfig/sbx.pc"
t "plain --libs is just -lsbx (its dependencies are private)" \
	sh -c '[ "$(pkg-config --define-variable=prefix="$1" --libs-only-l sbx | tr -d " ")" = -lsbx ]' _ "$staged"
t "--static lists what libsbx.a needs" \
	sh -c 'pkg-config --define-variable=prefix="$1" --libs --static sbx | grep -q -- -ljansson' _ "$staged"
t "pkg-config --cflags points at the staged include dir" \
	sh -c 'pkg-config --define-variable=prefix="$1" --cflags sbx | grep -qF -- "-I$1/include"' _ "$staged"

# ---- examples/embed.c against the installed files only ----
# Run with the staged libsbx.so.0 found by the loader, as an installed one
# would be; embed's own checks say whether the denial was reported.
run_embed() {
	LD_LIBRARY_PATH=$staged/lib "$1" >"$1.out" && cat "$1.out" &&
		grep -qx "denied: yes" "$1.out" && grep -qF '"denied":true' "$1.out"
}
t "embed.c builds the ordinary way: cc embed.c \$(pkg-config --cflags --libs sbx)" \
	sh -c 'cc -std=gnu11 -Wall -Wextra -Werror -o "$2/embed" examples/embed.c \
		$(pkg-config --define-variable=prefix="$1" --cflags --libs sbx)' _ "$staged" "$work"
t "the shared embed loads the staged libsbx.so.0" \
	sh -c 'LD_LIBRARY_PATH="$1/lib" ldd "$2/embed" | grep -q "libsbx.so.0 => $1/lib/libsbx.so.0"' \
	_ "$staged" "$work"
t "the shared embed reports the denial" run_embed "$work/embed"
t "embed.c builds with pkg-config --static" \
	sh -c 'cc -std=gnu11 -Wall -Wextra -Werror -o "$2/embed-static" examples/embed.c \
		$(pkg-config --define-variable=prefix="$1" --cflags --libs --static sbx)' _ "$staged" "$work"
t "the --static embed reports the denial" run_embed "$work/embed-static"
t "embed.c builds against the archive (-Bstatic -lsbx, then --static's libraries)" \
	sh -c 'cc -std=gnu11 -Wall -Wextra -Werror -o "$2/embed-archive" examples/embed.c \
		$(pkg-config --define-variable=prefix="$1" --cflags sbx) -Wl,-Bstatic -lsbx -Wl,-Bdynamic \
		$(pkg-config --define-variable=prefix="$1" --libs --static sbx)' _ "$staged" "$work"
t "the archive embed needs no libsbx.so" \
	sh -c '! readelf -d "$1" | grep -q "NEEDED.*libsbx"' _ "$work/embed-archive"
t "the archive embed reports the denial" run_embed "$work/embed-archive"

# ---- man pages ----
for page in share/man/man1/sbx.1 share/man/man5/sbx.conf.5; do
	t "man -l $page" sh -c 'man -l "$1" >/dev/null' _ "$staged/$page"
	t "man --warnings $page is silent" \
		sh -c 'w=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null); [ -z "$w" ] || { echo "$w"; exit 1; }' \
		_ "$staged/$page"
done
t "sbx(1) shows the three markers byte for byte" sh -c '
	LC_ALL=C.UTF-8 MANWIDTH=300 man -l "$1" 2>/dev/null | sed -n "s/^ *\(\[sandbox: [a-z].*\]\)$/\1/p" > "$2/m.txt"
	grep -qxF "[sandbox: file access denied under <mode> mode]" "$2/m.txt" &&
	grep -qxF "[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]" "$2/m.txt" &&
	grep -qxF "[sandbox: the sandbox runner itself failed under <mode> mode — the command did not run; this is a sandbox problem, not a command failure]" "$2/m.txt"' \
	_ "$staged/share/man/man1/sbx.1" "$work"

# ---- sbx serve examples against the built ./sbx ----
if have python3; then
	t "scripts/serve_example.py" python3 -B scripts/serve_example.py "$top/sbx"
else
	failed=$((failed + 1))
	echo "FAIL  python3 not found"
fi
if have node; then
	t "scripts/serve_example.mjs" node scripts/serve_example.mjs "$top/sbx"
else
	failed=$((failed + 1))
	echo "FAIL  node not found"
fi

# ---- the front page and the docs ----
t "README.md is under 150 lines" sh -c '[ "$(wc -l < README.md)" -lt 150 ]'

# The README's first example, as written, in a workspace of the caller's own:
# the marker line and the exit status it shows. Also as nobody where runuser
# exists: the marker must not depend on being root.
readme_denial() {
	block=$(sed -n "/^    \$ sbx run -- 'echo hello > notes.txt'$/,/^    [0-9]*$/p" README.md)
	[ -n "$block" ] || { echo "README.md: the read-only example is gone"; return 1; }
	marker=$(printf '%s\n' "$block" | sed -n 's/^    \(\[sandbox: .*\]\)$/\1/p')
	status=$(printf '%s\n' "$block" | tail -n 1 | tr -d ' ')
	ws=$(mktemp -d "$work/readme-XXXXXX")
	chmod 755 "$ws"
	# nobody must reach its workspace through the test's private directory
	[ -z "${1:-}" ] || { chmod 711 "$work" && chown "$1" "$ws"; }
	out=$(cd "$ws" && ${1:+runuser -u "$1" --} "$top/sbx" run -- 'echo hello > notes.txt' 2>&1)
	rc=$?
	printf '%s\n(exit %s; README says %s and %s)\n' "$out" "$rc" "$marker" "$status"
	[ "$rc" = "$status" ] && printf '%s\n' "$out" | grep -qxF "$marker" && [ ! -e "$ws/notes.txt" ]
}
t "README: the read-only example prints its marker and exit status" readme_denial
if have runuser && [ "$(id -u)" -eq 0 ]; then
	t "README: the read-only example, as nobody" readme_denial nobody
fi

# make demo's script to a file (a CI log, `make demo > log`): it goes as
# described, and in plain text (escape codes went into the file).
demo_plain() {
	scripts/demo.sh >"$work/demo.out" 2>&1 </dev/null || { cat "$work/demo.out"; return 1; }
	if grep -q "$(printf '\033')" "$work/demo.out"; then
		echo "escape codes in the demo's output to a file"
		return 1
	fi
	grep -q "Every step went as described" "$work/demo.out"
}
t "make demo: plain text into a file, every step as described" demo_plain

# The README's JSON example has exactly the members a real result has.
readme_json_shape() {
	sed -n "/^    \$ sbx run --json --mode workspace-write/,/^$/p" README.md | sed '1d' >"$work/readme.json"
	ws=$(mktemp -d "$work/readme-XXXXXX")
	"$top/sbx" run --json --mode workspace-write --root "$ws" -- true >"$work/real.json" || return 1
	python3 -B - "$work/readme.json" "$work/real.json" <<'PY'
import json, sys
def shape(v):
    return {k: shape(x) for k, x in v.items()} if isinstance(v, dict) else None
readme, real = (shape(json.load(open(f))) for f in sys.argv[1:])
if readme != real:
    print("README.md:", json.dumps(readme)); print("sbx:      ", json.dumps(real)); sys.exit(1)
PY
}
t "README: the --json example has the members of a real result" readme_json_shape
# Written by other tracks; the lead empties this list when they are merged.
pending_docs=""
links_resolve() {
	bad=0
	for md in README.md docs/*.md; do
		dir=$(dirname "$md")
		for link in $(grep -o '](\([^)#]*\)[)#]' "$md" | sed 's/^](//; s/[)#]$//' | grep -v '^[a-z]*:'); do
			target=$dir/$link
			[ "${link#/}" = "$link" ] || target=.$link
			target=$(realpath -m --relative-to=. "$target")
			[ -e "$target" ] && continue
			case " $pending_docs " in *" $target "*) echo "pending: $target (another track)"; continue ;; esac
			echo "$md: broken link $link"
			bad=1
		done
	done
	return $bad
}
t "every link in README.md and docs/ resolves" links_resolve
# A page named in prose, not linked, must be in the tree too; and the docs
# cite no outside "contract": a reader has docs/ and the man pages only.
pages_exist() {
	bad=0
	for page in $(grep -ohE '[A-Za-z0-9_-]+\.md\b' README.md docs/*.md man/sbx.1 man/sbx.conf.5 | sort -u); do
		[ -n "$(find . -name node_modules -prune -o -name "$page" -print | head -n 1)" ] && continue
		grep -nF "$page" README.md docs/*.md man/sbx.1 man/sbx.conf.5
		echo "not in the tree: $page"
		bad=1
	done
	if grep -niE 'contract' README.md docs/*.md man/sbx.1 man/sbx.conf.5; then
		echo "the docs cite a contract the tree does not hold"
		bad=1
	fi
	return $bad
}
t "every page README.md, docs/ and the man pages name is in the tree" pages_exist
# A list item run into the line before it (`...)).- Next item`) renders as
# part of the paragraph: a sentence's end, then "- " and a word.
t "no list item in README.md or docs/ is run into the line before it" \
	sh -c '! grep -nE "[.):;]- [[:alnum:]\`*[]" README.md docs/*.md'

# Each reason sbx gives when it refuses is quoted in docs/troubleshooting.md.
nofeature=$top/tests/helpers/nofeature
quoted() {
	out=$("$@" 2>&1 >/dev/null)
	[ -n "$out" ] || { echo "no refusal from: $*"; return 1; }
	echo "$out"
	# A reason may end in "(fix: ...)": the reason and the fix are each
	# quoted (in their columns).
	printf '%s\n' "${out#*here: }" | sed 's/; /\n/g' | while IFS= read -r reason; do
		fix=
		case $reason in
		*" (fix: "*")") fix=${reason#* (fix: }; fix=${fix%)}; reason=${reason%% (fix: *} ;;
		esac
		for text in "$reason" "$fix"; do
			[ -z "$text" ] || grep -qF -- "$text" docs/troubleshooting.md ||
				{ echo "not quoted: $text"; exit 1; }
		done
	done
}
t "troubleshooting: user namespaces blocked (pinned namespace runner)" \
	quoted "$nofeature" userns -- ./sbx run --runner namespace -- true
# Without Landlock the namespace runner still confines (a private /proc).
t "no Landlock: the namespace runner confines" sh -c '
	"$1" landlock -- ./sbx run --json -- "echo x > /etc/sbx-x" |
	grep -q "\"runner\":\"namespace\",\"enforcement\":\"full\",\"denied\":true,\"processes\":\"private\""' _ "$nofeature"
t "troubleshooting: user namespaces without capabilities (Ubuntu 23.10+'s shape, pinned namespace runner)" \
	quoted "$nofeature" userns_nocaps -- ./sbx run --runner namespace -- true
t "troubleshooting: user namespaces blocked and no Landlock" \
	quoted "$nofeature" userns,landlock -- ./sbx run -- true
t "troubleshooting: --net none where only the network namespace is refused" \
	quoted "$nofeature" netns -- ./sbx run --runner namespace --net none -- true
t "troubleshooting: --net none without namespaces" \
	quoted "$nofeature" userns,netns -- ./sbx run --runner landlock --net none -- true
t "troubleshooting: io_uring refused (probe)" sh -c '
	line=$("$1" io_uring -- ./sbx probe | grep "^io_uring: ") && echo "$line" &&
	grep -qF -- "$line" docs/troubleshooting.md' _ "$nofeature"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
