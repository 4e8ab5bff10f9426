/* SPDX-License-Identifier: MIT */
/* classify_denied: the false alarms it must not raise, the denials it must. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "classify.h"

#define ALL (DIALECT_EROFS | DIALECT_EACCES | DIALECT_EXDEV | DIALECT_SEATBELT)

/* A fake file system view: the caller could write anything except under
 * the paths listed here; every path asked about is recorded. */
struct fake {
	const char *const *unwritable;
	const char *const *missing; /* whose directory does not exist */
	char asked[8][512];
	int n_asked;
};

static enum caller_access fake_could_write(const char *abs, void *ctx)
{
	struct fake *f = ctx;

	if (f->n_asked < 8)
		snprintf(f->asked[f->n_asked++], sizeof(f->asked[0]), "%s", abs);
	char dir[512];
	snprintf(dir, sizeof(dir), "%s", abs);
	if (strrchr(dir, '/') && strrchr(dir, '/') != dir)
		*strrchr(dir, '/') = '\0';
	for (const char *const *u = f->missing; u && *u; u++)
		if (path_is_within(dir, *u))
			return CALLER_NO_PARENT;
	for (const char *const *u = f->unwritable; u && *u; u++)
		if (path_is_within(abs, *u))
			return CALLER_CANNOT;
	return CALLER_CAN;
}

static const char *const ws_writable[] = { "/ws", "/tmp", NULL };
static const char *const root_only[] = { "/root", NULL };

struct run {
	unsigned mask;
	const char *stderr_text;
	bool exited;
	int exit_code;
	bool confined;
	const char *cwd;
	const char *const *writable;
};

/* the hidden paths every judged run has (NULL: none) */
static const char *const *hidden_paths;

/* the run's command line (NULL: none) */
static bool judge_command(const struct run *r, struct fake *f, const char *command);

static bool judge(const struct run *r, struct fake *f)
{
	return judge_command(r, f, NULL);
}

static bool judge_command(const struct run *r, struct fake *f, const char *command)
{
	struct evidence ev;
	struct classify_input in;

	evidence_init(&ev, r->mask, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, r->stderr_text, strlen(r->stderr_text));
	evidence_finish(&ev);
	in = (struct classify_input){
		.evidence = &ev,
		.exited = r->exited,
		.exit_code = r->exit_code,
		.confined = r->confined,
		.cwd = r->cwd,
		.command = command,
		.writable = r->writable,
		.hidden_paths = hidden_paths,
		.could_write = fake_could_write,
		.could_write_ctx = f,
	};
	return classify_denied(&in);
}

static bool denied(unsigned mask, const char *text, int exit_code)
{
	struct fake f = { .unwritable = root_only };
	struct run r = { mask, text, true, exit_code, true, "/ws", ws_writable };

	return judge(&r, &f);
}

/* ---- false alarms ---- */

Test(decide, non_executable_script_exit_126)
{
	cr_expect_not(denied(DIALECT_EACCES, "bash: line 1: ./x.sh: Permission denied\n", 126));
	cr_expect_not(denied(DIALECT_EACCES, "bash: ./x.sh: Permission denied\n", 126));
	/* control: the same line on exit 1 with a path outside /ws counts */
	cr_expect(denied(DIALECT_EACCES, "bash: /opt/x.sh: Permission denied\n", 1));
}

Test(decide, non_executable_script_in_read_only_mode)
{
	/* read-only mode: the script in cwd is outside every writable dir and
	 * the caller could write it, so only exit 126 keeps this from counting */
	static const char *const ro_mode[] = { "/dev/null", NULL };
	struct fake f = { .unwritable = NULL };
	struct run r = { DIALECT_EACCES, "bash: line 1: ./x.sh: Permission denied\n", true, 126, true,
			 "/ws", ro_mode };

	cr_expect_not(judge(&r, &f));
	r.exit_code = 1;
	cr_expect(judge(&r, &f), "control: the same line on exit 1 counts");
}

/* A hidden path (a credential store) is hidden in every confined mode: the
 * landlock runner's EACCES there, on a read or a write, is not a reason to
 * ask the user for a wider mode, and the namespace runner's ENOENT is none. */
Test(decide, hidden_path_refusal_is_no_denial)
{
	static const char *const ro_mode[] = { "/dev/null", NULL };
	static const char *const hidden[] = { "/home/u/.ssh", "/home/u/.netrc", NULL };
	struct fake f = { .unwritable = NULL };
	struct run r = { DIALECT_EACCES, "cat: /home/u/.ssh/id_ed25519: Permission denied\n", true,
			 1, true, "/ws", ro_mode };

	hidden_paths = hidden;

	cr_expect_not(judge(&r, &f));
	r.stderr_text = "bash: line 1: /home/u/.netrc: Permission denied\n";
	cr_expect_not(judge(&r, &f));
	r.stderr_text = "cat: ../home/u/.ssh/id_rsa: Permission denied\n";
	r.cwd = "/ws";
	cr_expect_not(judge(&r, &f));
	r.stderr_text = "cat: /home/u/.sshx: Permission denied\n";
	cr_expect(judge(&r, &f), "control: a sibling of a hidden path is not hidden");
	hidden_paths = NULL;
	r.stderr_text = "cat: /home/u/.ssh/id_ed25519: Permission denied\n";
	cr_expect(judge(&r, &f), "control: with no hidden list the same line counts");
}

/* A hard link to a hidden path (`ln ~/.netrc x`): the link lies in the
 * writable root, the refusal is about what it links to, which no wider
 * confined mode shows (adversarial pass 7, finding 09). */
Test(decide, hard_link_to_hidden_path_is_no_denial)
{
	static const char *const hidden[] = { "/home/u/.netrc", NULL };
	struct fake f = { .unwritable = root_only };
	struct run r = { DIALECT_EXDEV | DIALECT_EROFS,
			 "ln: failed to create hard link 'x' => '/home/u/.netrc': Invalid "
			 "cross-device link\n",
			 true, 1, true, "/ws", ws_writable };

	hidden_paths = hidden;
	cr_expect_not(judge(&r, &f));
	r.stderr_text = "ln: failed to create hard link 'x' => '../home/u/.netrc': Invalid "
			"cross-device link\n";
	cr_expect_not(judge(&r, &f), "a relative target from the cwd");
	r.stderr_text = "ln: failed to create hard link '/opt/x' => '/home/u/.netrc': "
			"Invalid cross-device link\n";
	cr_expect_not(judge(&r, &f), "the link's place does not matter");
	r.stderr_text = "ln: failed to create hard link 'x' => '/home/u/.netrcx': Invalid "
			"cross-device link\n";
	cr_expect(judge(&r, &f), "control: a sibling of a hidden path is not hidden");
	hidden_paths = NULL;
	r.stderr_text = "ln: failed to create hard link 'x' => '/home/u/.netrc': Invalid "
			"cross-device link\n";
	cr_expect(judge(&r, &f), "control: with no hidden list the same line counts");
}

Test(decide, command_not_found_exit_127)
{
	cr_expect_not(denied(ALL, "tee: /etc/x: Read-only file system\n", 127));
}

Test(decide, unreadable_file_the_caller_cannot_write)
{
	struct fake f = { .unwritable = root_only };
	struct run r = { DIALECT_EACCES, "cat: /root/secret: Permission denied\n", true, 1, true,
			 "/ws", ws_writable };

	cr_expect_not(judge(&r, &f));
	cr_assert_eq(f.n_asked, 1, "could_write must be asked");
	cr_expect_str_eq(f.asked[0], "/root/secret");
}

Test(decide, read_only_file_inside_the_workspace)
{
	struct fake f = { .unwritable = NULL };
	struct run r = { DIALECT_EACCES, "bash: /ws/owned-by-root: Permission denied\n", true, 1,
			 true, "/ws", ws_writable };

	cr_expect_not(judge(&r, &f));
	cr_expect_eq(f.n_asked, 0, "inside writable: no need to ask");
	r.stderr_text = "touch: cannot touch '/tmp/x': Read-only file system\n";
	r.mask = DIALECT_EROFS;
	cr_expect_not(judge(&r, &f));
}

Test(decide, ssh_publickey)
{
	cr_expect_not(denied(ALL, "git@github.com: Permission denied (publickey).\n"
				  "fatal: Could not read from remote repository.\n", 128));
}

Test(decide, phrase_mid_sentence_in_a_log)
{
	cr_expect_not(denied(ALL, "INFO: falling back since a Read-only file system was found\n", 1));
}

Test(decide, successful_run_and_or_true)
{
	/* "touch /etc/x || true": the denial happened, the run succeeded */
	cr_expect_not(denied(ALL, "touch: cannot touch '/etc/x': Read-only file system\n", 0));
}

Test(decide, danger_mode_is_never_denied)
{
	struct fake f = { .unwritable = NULL };
	struct run r = { ALL, "touch: cannot touch '/etc/x': Read-only file system\n", true, 1,
			 false, "/ws", ws_writable };

	cr_expect_not(judge(&r, &f));
	r.confined = true;
	cr_expect(judge(&r, &f), "control: confined, the same run is denied");
}

Test(decide, other_runners_dialect_does_not_count)
{
	/* a landlock run (EACCES) seeing EROFS text: not its runner's denial */
	cr_expect_not(denied(DIALECT_EACCES, "touch: cannot touch '/etc/x': Read-only file system\n", 1));
	cr_expect(denied(DIALECT_EROFS, "touch: cannot touch '/etc/x': Read-only file system\n", 1));
}

Test(decide, no_evidence_no_denial)
{
	cr_expect_not(denied(ALL, "", 1));
	cr_expect_not(denied(ALL, "make: *** [Makefile:2: all] Error 1\n", 2));
}

Test(decide, no_callback_no_claim_for_a_path)
{
	struct evidence ev;
	struct classify_input in = { .evidence = &ev, .exited = true, .exit_code = 1,
				     .confined = true, .cwd = "/ws", .writable = ws_writable };

	evidence_init(&ev, DIALECT_EROFS, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, "tee: /etc/x: Read-only file system\n", 35);
	cr_expect_not(classify_denied(&in));
	cr_expect_not(classify_denied(NULL));
}

Test(decide, only_the_evidence_dialects_count)
{
	struct fake f = { .unwritable = NULL };
	struct evidence ev;
	struct classify_input in = { .evidence = &ev, .exited = true, .exit_code = 1,
				     .confined = true, .cwd = "/ws", .writable = ws_writable,
				     .could_write = fake_could_write, .could_write_ctx = &f };
	const char *t = "touch: cannot touch '/etc/x': Read-only file system\n";

	evidence_init(&ev, DIALECT_EROFS | DIALECT_EACCES, NULL);
	evidence_feed(&ev, EVIDENCE_STDERR, t, strlen(t));
	cr_expect(classify_denied(&in));
	ev.dialects = DIALECT_EACCES; /* a ring kept under a wider mask */
	cr_expect_not(classify_denied(&in));
}

/* ---- denials ---- */

Test(decide, each_tool_form_is_denied)
{
	static const struct {
		unsigned mask;
		const char *text;
	} cases[] = {
		{ DIALECT_EROFS, "bash: line 1: /etc/x: Read-only file system" },
		{ DIALECT_EACCES, "bash: /etc/x: Permission denied" },
		{ DIALECT_EROFS, "touch: cannot touch '/etc/x': Read-only file system" },
		{ DIALECT_EACCES, "mkdir: cannot create directory '/opt/d': Permission denied" },
		{ DIALECT_EROFS, "rm: cannot remove '/etc/x': Read-only file system" },
		{ DIALECT_EACCES, "cp: cannot create regular file '/etc/x': Permission denied" },
		{ DIALECT_EXDEV, "mv: cannot move 'a' to '/opt/a': Invalid cross-device link" },
		{ DIALECT_EXDEV, "ln: failed to create hard link '/opt/a' => 'a': Invalid cross-device link" },
		{ DIALECT_EROFS, "ln: failed to create symbolic link '/etc/l': Read-only file system" },
		{ DIALECT_EROFS, "mkfifo: cannot create fifo '/etc/f': Read-only file system" },
		{ DIALECT_EROFS, "tee: /etc/x: Read-only file system" },
		{ DIALECT_EROFS, "sed: couldn't open temporary file /etc/sedAbc: Read-only file system" },
		{ DIALECT_EACCES, "truncate: cannot open '/etc/x' for writing: Permission denied" },
		{ DIALECT_EROFS, "chmod: changing permissions of '/etc/x': Read-only file system" },
		{ DIALECT_EACCES, "PermissionError: [Errno 13] Permission denied: '/etc/x'" },
		{ DIALECT_EXDEV, "OSError: [Errno 18] Invalid cross-device link: 'a' -> '/opt/b'" },
		{ DIALECT_EROFS, "error: could not lock config file /opt/r/.git/config: Read-only file system" },
		{ DIALECT_EROFS, "fatal: Unable to create '/opt/r/.git/index.lock': Read-only file system." },
		{ DIALECT_EACCES, "fatal: cannot mkdir /opt/r: Permission denied" },
		{ DIALECT_EROFS, "/usr/bin/ld: cannot open output file /opt/a.out: Read-only file system" },
		{ DIALECT_EACCES, "cc1: fatal error: opening output file /opt/x.s: Permission denied" },
		{ DIALECT_EROFS, "make: /opt/x: Read-only file system" },
		{ DIALECT_EROFS, "npm ERR! EROFS: read-only file system, open '/usr/lib/x'" },
		{ DIALECT_EACCES, "npm ERR! EACCES: permission denied, mkdir '/usr/lib/x'" },
		{ DIALECT_EROFS, "ERROR: Could not install packages due to an OSError: [Errno 30] Read-only file system: '/usr/lib/x'" },
		{ DIALECT_SEATBELT, "touch: /opt/x: Operation not permitted" },
		{ DIALECT_EROFS, "Error: failed to write /etc/x\n\nCaused by:\n    Read-only file system (os error 30)" },
	};
	char text[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "some output\n%s\nmake: *** Error 1\n", cases[i].text);
		cr_expect(denied(cases[i].mask, text, 1), "case %zu: %s", i, cases[i].text);
		/* the same line on a successful run is not a denial */
		cr_expect_not(denied(cases[i].mask, text, 0), "case %zu on exit 0", i);
	}
}

Test(decide, signal_ended_run_with_evidence)
{
	struct fake f = { .unwritable = NULL };
	struct run r = { DIALECT_EROFS, "tee: /etc/x: Read-only file system\n", false, 0, true, "/ws",
			 ws_writable };

	cr_expect(judge(&r, &f));
}

Test(decide, sibling_prefix_is_outside)
{
	struct fake f = { .unwritable = NULL };
	struct run r = { DIALECT_EACCES, "touch: cannot touch '/ws-other/x': Permission denied\n", true,
			 1, true, "/ws", ws_writable };

	cr_expect(judge(&r, &f));
	cr_assert_eq(f.n_asked, 1);
	cr_expect_str_eq(f.asked[0], "/ws-other/x");
}

Test(decide, relative_paths_resolve_against_cwd)
{
	struct fake f = { .unwritable = NULL };
	/* cwd /ws/sub: "../../etc/x" is /etc/x, outside: denied */
	struct run r = { DIALECT_EROFS, "touch: cannot touch '../../etc/x': Read-only file system\n",
			 true, 1, true, "/ws/sub", ws_writable };

	cr_expect(judge(&r, &f));
	cr_assert_eq(f.n_asked, 1);
	cr_expect_str_eq(f.asked[0], "/etc/x");
	/* "out.txt" placed at /ws/sub is inside /ws, where the runner refuses
	 * nothing: the tool was elsewhere (cd X, git -C, tar -C). The caller
	 * could write it, so it counts... */
	r.stderr_text = "bash: line 1: out.txt: Read-only file system\n";
	f.n_asked = 0;
	cr_expect(judge(&r, &f));
	cr_expect_str_eq(f.asked[0], "/ws/sub/out.txt");
	/* ...but not when the caller could not write it either (a read-only
	 * file of someone else's in the workspace). */
	static const char *const ro_here[] = { "/ws/sub/out.txt", NULL };
	f.unwritable = ro_here;
	cr_expect_not(judge(&r, &f));
	f.unwritable = NULL;
	/* an absolute path inside the writable dirs never counts */
	r.stderr_text = "bash: line 1: /ws/sub/out.txt: Read-only file system\n";
	cr_expect_not(judge(&r, &f));
	r.stderr_text = "bash: line 1: out.txt: Read-only file system\n";
	/* the same relative name from cwd /srv (read-only mode) is denied */
	static const char *const none[] = { NULL };
	r.cwd = "/srv";
	r.writable = none;
	f.n_asked = 0;
	cr_expect(judge(&r, &f));
	cr_expect_str_eq(f.asked[0], "/srv/out.txt");
	/* no cwd: a relative path cannot be placed, no claim */
	r.cwd = NULL;
	cr_expect_not(judge(&r, &f));
}

Test(decide, one_counting_line_among_harmless_ones)
{
	cr_expect(denied(DIALECT_EACCES,
			 "cat: /root/secret: Permission denied\n"
			 "bash: /ws/ro-file: Permission denied\n"
			 "touch: cannot touch '/etc/x': Permission denied\n"
			 "cat: /root/other: Permission denied\n",
			 1));
	cr_expect_not(denied(DIALECT_EACCES,
			     "cat: /root/secret: Permission denied\n"
			     "bash: /ws/ro-file: Permission denied\n",
			     1));
}

Test(decide, read_only_mode_writable_only_dev_null)
{
	static const char *const ro_mode[] = { "/dev/null", NULL };
	struct fake f = { .unwritable = NULL };
	struct run r = { DIALECT_EROFS, "bash: line 1: /ws/out: Read-only file system\n", true, 1,
			 true, "/ws", ro_mode };

	cr_expect(judge(&r, &f));
}

/* ---- issue 14: every piece of evidence is tied to a path ---- */

Test(decide, quoted_log_line_whose_directory_does_not_exist)
{
	/* a deploy log quoting another machine's error, printed by a failing
	 * run: as root the caller could write under /mnt, but /mnt/backup does
	 * not exist, so nothing could have been refused there */
	static const char *const missing[] = { "/mnt/backup", NULL };
	struct fake f = { .missing = missing };
	struct run r = { ALL, "[10:00] cp: cannot create regular file '/mnt/backup/db.sql': Read-only file system\n",
			 true, 1, true, "/ws", ws_writable };

	cr_expect_not(judge(&r, &f));
	r.stderr_text = "cp: cannot create regular file '/mnt/db.sql': Read-only file system\n";
	cr_expect(judge(&r, &f), "control: its directory exists");
}

Test(decide, relative_path_in_a_missing_directory_walks_up)
{
	/* tar -C elsewhere: "./sub/b.txt" placed at the cwd names a directory
	 * that exists only in the archive; the nearest one here decides */
	static const char *const missing[] = { "/ws/sub", NULL };
	static const char *const ro_ws[] = { "/ws", NULL };
	struct fake f = { .missing = missing };
	struct run r = { DIALECT_EROFS, "tar: ./sub/b.txt: Cannot open: Read-only file system\n", true,
			 2, true, "/ws", ws_writable };

	cr_expect(judge(&r, &f));
	cr_assert_eq(f.n_asked, 2);
	cr_expect_str_eq(f.asked[0], "/ws/sub/b.txt");
	cr_expect_str_eq(f.asked[1], "/ws/sub");
	/* ...and an unwritable one there stops it */
	f = (struct fake){ .missing = missing, .unwritable = ro_ws };
	cr_expect_not(judge(&r, &f));
}

Test(decide, a_message_that_names_no_file_is_no_denial)
{
	/* Before issue 14 a line naming no path counted on its dialect alone:
	 * a Rust tool failing on /etc as nobody, or a bare translated message,
	 * was reported as a sandbox denial. Now a chain's cause takes the path
	 * of its error line, and that path is checked like any other. */
	static const char *const etc[] = { "/etc", NULL };
	struct fake f = { .unwritable = etc };
	struct run r = { ALL, "Error: failed to write /etc/x\n\nCaused by:\n    Permission denied (os error 13)\n",
			 true, 1, true, "/ws", ws_writable };

	cr_expect_not(judge(&r, &f));
	r.stderr_text = "Error: failed to write /opt/x\n\nCaused by:\n    Permission denied (os error 13)\n";
	cr_expect(judge(&r, &f), "control: a path the caller could write");
	r.stderr_text = "    Permission denied (os error 13)\n";
	cr_expect_not(judge(&r, &f));
	r.stderr_text = "Permission denied\n";
	cr_expect_not(judge(&r, &f));
	r.stderr_text = "cat: Permission denied\n";
	cr_expect_not(judge(&r, &f));
}

Test(decide, stdout_lines_are_checked_the_same_way)
{
	static const char *const etc[] = { "/etc", NULL };
	struct fake f = { .unwritable = etc };
	struct evidence ev;
	struct classify_input in = { .evidence = &ev, .exited = true, .exit_code = 1,
				     .confined = true, .cwd = "/ws", .writable = ws_writable,
				     .could_write = fake_could_write, .could_write_ctx = &f };
	const char *bait = "E       PermissionError: [Errno 13] Permission denied: '/etc/app.conf'\n";
	const char *real = "E       PermissionError: [Errno 13] Permission denied: '/opt/app.conf'\n";

	evidence_init(&ev, DIALECT_EACCES, NULL);
	evidence_feed(&ev, EVIDENCE_STDOUT, bait, strlen(bait));
	evidence_finish(&ev);
	cr_expect_not(classify_denied(&in));
	evidence_init(&ev, DIALECT_EACCES, NULL);
	evidence_feed(&ev, EVIDENCE_STDOUT, real, strlen(real));
	evidence_finish(&ev);
	cr_expect(classify_denied(&in));
}

/* ---- issue 31: a relative path, in every place the command line names ---- */

static const char *const none_writable[] = { NULL };


Test(decide, relative_path_in_a_directory_the_command_line_names)
{
	static const char *const etc[] = { "/etc", NULL };
	struct fake f = { .unwritable = etc };
	struct run r = { DIALECT_EACCES, "touch: cannot touch 'x': Permission denied\n", true, 1, true,
			 "/ws", ws_writable };

	cr_expect(judge_command(&r, &f, "cd \"/o/my dir\" && touch x"),
		  "cd into a directory the caller may write");
	/* the user's own limit there, whatever x would be at the cwd: before
	 * issue 31 it was placed at the cwd only, and counted */
	f = (struct fake){ .unwritable = etc };
	cr_expect_not(judge_command(&r, &f, "cd /etc && touch x"));
	/* read-only mode: the cwd is refused too, /etc still decides */
	r.writable = none_writable;
	f = (struct fake){ .unwritable = etc };
	cr_expect_not(judge_command(&r, &f, "cd /etc && touch x"));
	f = (struct fake){ .unwritable = etc };
	cr_expect(judge_command(&r, &f, "touch x"), "read-only mode, at the cwd");
}

Test(decide, relative_path_under_tar_and_unzip_options)
{
	static const char *const usr[] = { "/usr", NULL };
	static const char *const missing_sub[] = { "/ws/sub", NULL };
	const char *line = "tar: ./sub/b.txt: Cannot open: Read-only file system\n";
	struct fake f = { .missing = missing_sub };
	struct run r = { DIALECT_EROFS, line, true, 2, true, "/ws", ws_writable };

	cr_expect(judge_command(&r, &f, "tar -C '/o/\xc3\xb1" "and\xc3\xba' -xf src.tar"));
	f = (struct fake){ .missing = missing_sub, .unwritable = usr };
	cr_expect_not(judge_command(&r, &f, "tar --directory=/usr -xf src.tar"),
		      "a place the caller could not write");
	f = (struct fake){ .missing = missing_sub, .unwritable = usr };
	cr_expect_not(judge_command(&r, &f, "unzip -q a.zip -d /usr/share"));
	/* a name the command line gives no place for: where it lands at the
	 * cwd decides, as before */
	f = (struct fake){ .missing = missing_sub };
	cr_expect(judge_command(&r, &f, "./extract.sh"));
}

Test(decide, command_dirs_as_the_shell_splits_them)
{
	char d[CLASSIFY_DIRS][CLASSIFY_DIR_MAX];
	size_t n;

	n = command_dirs("cd \"/o/my dir\" && tar -C sub -xf a.tar; make --directory=../m all",
			 "/ws", d, CLASSIFY_DIRS);
	cr_assert_eq(n, 3u);
	cr_expect_str_eq(d[0], "/o/my dir");
	cr_expect_str_eq(d[1], "/o/my dir/sub", "relative to the cd before it");
	cr_expect_str_eq(d[2], "/o/m");
	n = command_dirs("git -C '/o/a b' commit -m x && unzip x.zip -d/o/u && cmake -B build",
			 "/ws", d, CLASSIFY_DIRS);
	cr_assert_eq(n, 3u);
	cr_expect_str_eq(d[0], "/o/a b");
	cr_expect_str_eq(d[1], "/o/u");
	cr_expect_str_eq(d[2], "/ws/build");
	/* expansions are not guessed at; an option's value is no command */
	n = command_dirs("cd $HOME/x && cd ~/y && cd \"$D\" && tar -C `pwd` -xf a", "/ws", d,
			 CLASSIFY_DIRS);
	cr_expect_eq(n, 0u);
	n = command_dirs("LANG=C cd /o/\\ x; echo cd /nope; (cd /o/sub)", "/ws", d, CLASSIFY_DIRS);
	cr_assert_eq(n, 2u);
	cr_expect_str_eq(d[0], "/o/ x");
	cr_expect_str_eq(d[1], "/o/sub");
	cr_expect_eq(command_dirs(NULL, "/ws", d, CLASSIFY_DIRS), 0u);
	cr_expect_eq(command_dirs("cd /x", "rel", d, CLASSIFY_DIRS), 0u);
}
