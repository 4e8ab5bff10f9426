# SPDX-License-Identifier: MIT
# The words the workflow files (tests/realwork/wf_*.sh) are written in. Sourced
# by scripts/realwork.sh, which sets RW_DEFS (where each workflow's parts are
# written, one directory per workflow) before sourcing them.
#
#   wf NAME "what it does" [fast] [mode=MODE] [need=TOOL,TOOL]
#       starts a workflow. fast: part of the subset `make check` runs.
#       mode: the confined mode (default workspace-write). need: the programs
#       it runs (a missing one is a FAIL naming the package to install).
#   home <<'EOF' ... EOF      shell run first, as the home's owner, in $HOME
#   setup <<'EOF' ... EOF     shell run next, unconfined, as the workspace's
#                             owner, in the workspace (fixture files, git init)
#   call <<'EOF' ... EOF      one call of the agent (each is one `sbx run`);
#                             several calls run one after the other
#   deny PATH...              the last call writes PATH (relative to the
#                             fixture: ws/..., home/...), which the policy must
#                             refuse: where the unconfined call succeeds, the
#                             confined one must leave PATH as it was and either
#                             fail marked denied (sandbox.denied and the marker)
#                             or, where the write landed and was put back after
#                             the call (ws/ paths), exit 0 unmarked with PATH in
#                             sandbox.reverted
#   only_when runner=R|user=U the deny holds only for that runner / user kind
#   refuse runner=R|user=U|root|* "what"  the last call does something the policy
#                             refuses that is not a write to a path (a connect
#                             to a host socket, a setgid bit, a user
#                             namespace): where the unconfined call succeeds,
#                             the confined one must fail and be marked denied
#                             (elsewhere the workflow must behave the same)
#   norm 'SED'                a sed expression applied to both sides' stdout
#                             and stderr before they are compared
#   volatile 'ERE'            workspace paths whose content is not compared
#                             (only that they exist, with the same type)
#   copied 'ERE'              workspace paths a tool may copy where unconfined
#                             it hard-links (the namespace runner binds .git
#                             onto itself, so git's link out of .git fails with
#                             EXDEV and git copies, as the caller): their mode
#                             and owner are not compared
#   scratch 'ERE'             workspace paths not compared at all (names that
#                             differ from run to run: build tools' session dirs)
#   config 'key = value'      a line of the sbx config the confined run uses
#                             (@HOME@ is the fixture's home)
#   known runner=R|user=U|* "why"  a gap sbx has today, by design or waiting
#                             for a larger change: the cell must FAIL as
#                             described and is shown as FAIL (known: why); if
#                             it stops failing, the cell says so (also FAIL)
#
# In the calls: $HOME is the fixture's home, $RW a name under /tmp private
# to this workflow and user (removed after each side), cwd the workspace.

rw_cur=""

wf() {
	rw_cur=$RW_DEFS/$1
	[ ! -e "$rw_cur" ] || { echo "realwork: workflow $1 defined twice" >&2; exit 2; }
	mkdir -p "$rw_cur"
	printf '%s\n' "$2" >"$rw_cur/desc"
	echo workspace-write >"$rw_cur/mode"
	: >"$rw_cur/need"
	shift 2
	for opt in "$@"; do
		case $opt in
		fast) : >"$rw_cur/fast" ;;
		mode=*) echo "${opt#mode=}" >"$rw_cur/mode" ;;
		need=*) echo "${opt#need=}" | tr ',' '\n' >"$rw_cur/need" ;;
		*) echo "realwork: $rw_cur: unknown option $opt" >&2; exit 2 ;;
		esac
	done
	rw_calls=0
}

home() { cat >"$rw_cur/home"; }
setup() { cat >"$rw_cur/setup"; }

call() {
	rw_calls=$((rw_calls + 1))
	cat >"$rw_cur/call.$rw_calls"
	echo "$rw_calls" >"$rw_cur/calls"
}

deny() { printf '%s\n' "$@" >>"$rw_cur/deny"; }
only_when() { printf '%s\n' "$@" >>"$rw_cur/deny_when"; }
norm() { printf '%s\n' "$1" >>"$rw_cur/norm"; }
volatile() { printf '%s\n' "$1" >>"$rw_cur/volatile"; }
copied() { printf '%s\n' "$1" >>"$rw_cur/copied"; }
scratch() { printf '%s\n' "$1" >>"$rw_cur/scratch"; }
config() { printf '%s\n' "$1" >>"$rw_cur/config"; }
refuse() { printf '%s\t%s\n' "$1" "$2" >>"$rw_cur/refuse"; }
known() { printf '%s\t%s\n' "$1" "$2" >>"$rw_cur/known"; }
