/* SPDX-License-Identifier: MIT */
/* The supervisor's pure decisions (policy/supervise.c), the unix_sockets
 * config key, and how the allow-list travels from the config to a run. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "launcher.h"
#include "policy.h"

static struct supervise_writable ws(const char *root, const char *tmp)
{
	struct supervise_writable w = { .n = 0 };

	if (root) {
		w.dirs[w.n] = root;
		w.below_only[w.n++] = false;
	}
	if (tmp) {
		w.dirs[w.n] = tmp;
		w.below_only[w.n++] = true;
	}
	return w;
}

/* A home brought into the namespace runner's /tmp is read-only there: not
 * writable below /tmp, but a root or cache inside it is (issue 32). */
Test(supervise_writable, home_in_tmp_excepted)
{
	struct supervise_writable w = ws("/tmp/h/proj", "/tmp");

	w.except[w.n_except++] = "/tmp/h";
	cr_assert_not(supervise_in_writable(&w, "/tmp/h"));
	cr_assert_not(supervise_in_writable(&w, "/tmp/h/.gitconfig"));
	cr_assert_not(supervise_in_writable(&w, "/tmp/h/projx/a"));
	cr_assert(supervise_in_writable(&w, "/tmp/h/proj"), "the root inside it");
	cr_assert(supervise_in_writable(&w, "/tmp/h/proj/a.c"));
	cr_assert(supervise_in_writable(&w, "/tmp/hx/a"), "a sibling in /tmp is the run's");
	cr_assert(supervise_in_writable(&w, "/tmp/x.sock"));
	cr_assert_not(supervise_in_writable(&w, "/etc/passwd"));
}

Test(supervise_writable, inside_and_outside)
{
	struct supervise_writable w = ws("/home/u/ws", "/tmp");

	cr_assert(supervise_in_writable(&w, "/home/u/ws/a.c"));
	cr_assert(supervise_in_writable(&w, "/home/u/ws/deep/er/x"));
	cr_assert(supervise_in_writable(&w, "/home/u/ws"), "the root itself is the workspace's");
	cr_assert(supervise_in_writable(&w, "/tmp/x.sock"));
	cr_assert_not(supervise_in_writable(&w, "/tmp"), "/tmp's own mode is the host's");
	cr_assert_not(supervise_in_writable(&w, "/home/u/ws-sibling/a"));
	cr_assert_not(supervise_in_writable(&w, "/home/u/w"));
	cr_assert_not(supervise_in_writable(&w, "/home/u"));
	cr_assert_not(supervise_in_writable(&w, "/etc/passwd"));
	cr_assert_not(supervise_in_writable(&w, "/tmpfoo/x"));
	cr_assert_not(supervise_in_writable(&w, "relative/x"));
	cr_assert_not(supervise_in_writable(&w, NULL));
}

Test(supervise_writable, read_only_has_nothing)
{
	struct supervise_writable w = ws(NULL, NULL);

	cr_assert_not(supervise_in_writable(&w, "/home/u/ws/a.c"));
	cr_assert_not(supervise_in_writable(&w, "/dev/null"), "metadata of /dev/null is the host's");
	cr_assert_not(supervise_in_writable(NULL, "/x"));
}

Test(supervise_writable, trailing_slash_and_root_dir)
{
	struct supervise_writable w = ws("/srv/ws/", NULL);

	cr_assert(supervise_in_writable(&w, "/srv/ws/x"));
	cr_assert(supervise_in_writable(&w, "/srv/ws"));
	cr_assert_not(supervise_in_writable(&w, "/srv/wsx"));
}

/* The hidden paths: each one and what lies below it, component-wise. */
Test(supervise_paths, each_and_below)
{
	const char *const hidden[] = { "/home/u/.ssh", "/home/u/.aws/", "/home/u/.netrc" };

	cr_assert(supervise_in_paths(hidden, 3, "/home/u/.ssh"));
	cr_assert(supervise_in_paths(hidden, 3, "/home/u/.ssh/id_ed25519"));
	cr_assert(supervise_in_paths(hidden, 3, "/home/u/.aws/credentials"));
	cr_assert(supervise_in_paths(hidden, 3, "/home/u/.netrc"));
	cr_assert_not(supervise_in_paths(hidden, 3, "/home/u/.sshd"));
	cr_assert_not(supervise_in_paths(hidden, 3, "/home/u/.netrc2"));
	cr_assert_not(supervise_in_paths(hidden, 3, "/home/u"));
	cr_assert_not(supervise_in_paths(hidden, 3, "relative/.ssh"));
	cr_assert_not(supervise_in_paths(hidden, 0, "/home/u/.ssh"));
	cr_assert_not(supervise_in_paths(hidden, 3, NULL));
}

static bool names(const char *text, const char *path)
{
	return supervise_error_names(text, strlen(text), path, NULL);
}

Test(supervise_error, names_a_path_or_below_on_an_error_line)
{
	const char *go = "go: writing go env config: open /r/.config/go/env: no such file or directory\n";

	cr_assert(names(go, "/r/.config/go"));
	cr_assert(names(go, "/r/.config/go/env"));
	cr_assert(names("cat: '/r/x/f': No such file or directory", "/r/x"), "quoted");
	cr_assert(names("Couldn't watch /r/.ssh: Permission denied", "/r/.ssh"));
	cr_assert(names("Error: EACCES: permission denied, watch '/r/.ssh'", "/r/.ssh"));
	cr_assert(names("OSError: [Errno 30] Read-only file system: '/r/a'", "/r/a"));
	cr_assert(names("a /r/xy: ENOENT\nthen /r/x/: ENOENT", "/r/x"), "the second one");
	cr_assert(names("cat: ../out/f: No such file or directory", "../out"), "relative");
	cr_assert(names("watch 'src/x.log': EACCES", "src/x.log"), "relative");
	cr_assert_not(names("Matplotlib created a temporary cache directory because the default "
			    "path (/r/.config/matplotlib) is not a writable directory\n"
			    "FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'",
			    "/r/.config/matplotlib"),
		      "a warning, and an error on another line");
	cr_assert_not(names("ls /r/x\nNo such file or directory", "/r/x"), "the next line");
	cr_assert_not(names(go, "/r/.config/g"), "a longer name");
	cr_assert_not(names(go, "r/.config"), "inside another path");
	cr_assert_not(names("open /a/r/x: ENOENT", "/r/x"), "inside another path");
	cr_assert_not(names("open /r/x.d: ENOENT", "/r/x"));
	cr_assert_not(supervise_error_names("open /r/x: ENOENT", 8, "/r/x", NULL), "past len");
	cr_assert_not(names(go, "/"));
	cr_assert_not(names("open x.log: ENOENT", "x.log"), "a bare name");
	cr_assert(names("\x1b[01m\x1b[K/r/x/f.c:\x1b[m\x1b[K fatal error: No such file or directory",
			"/r/x"), "gcc with colour: the name right after ESC[K");
	cr_assert(names("\x1b[1;31m/r/x\x1b[0m: Permission denied", "/r/x"), "coloured, ends in ESC");
	cr_assert_not(names("open K/r/x: ENOENT", "/r/x"), "a letter that ends no escape");
	cr_assert_not(names("open [K/r/x: ENOENT", "/r/x"), "no ESC before the '['");
	cr_assert_not(names("[K/r/x: ENOENT", "/r/x"), "at the text's start");
	cr_assert_not(supervise_error_names(NULL, 0, "/r", NULL));
}

static bool names_bare(const char *text, const char *name)
{
	return supervise_error_names_bare(text, strlen(text), name, NULL);
}

Test(supervise_error_names, bare_names_only_where_a_file_name_stands)
{
	cr_assert(names_bare("mkdir: cannot create directory \xe2\x80\x98newdir\xe2\x80\x99: "
			     "Read-only file system", "newdir"), "coreutils, UTF-8");
	cr_assert(names_bare("mkdir: cannot create directory 'newdir': Permission denied", "newdir"),
		  "coreutils, C locale");
	cr_assert(names_bare("OSError: [Errno 30] Read-only file system: 'newdir'", "newdir"),
		  "Python");
	cr_assert(names_bare("Error: EROFS: read-only file system, mkdir \"newdir\"", "newdir"));
	cr_assert(names_bare("Error: EACCES: permission denied, mkdir 'newdir'", "newdir"), "node");
	cr_assert(names_bare("mkdir newdir: read-only file system", "newdir"), "Go");
	cr_assert(names_bare("cannot open `newdir': No such file or directory", "newdir"));
	cr_assert(names_bare("bash: line 1: newdir/file: No such file or directory", "newdir"),
		  "a path below it");
	cr_assert(names_bare("cd: newdir: No such file or directory", "newdir"));
	cr_assert(names_bare("FileNotFoundError: [Errno 2] No such file or directory: "
			     "'newdir/data.csv'", "newdir"));
	cr_assert_not(names_bare("error: newdir failed: No such file or directory", "newdir"),
		      "a word, not a file name");
	cr_assert_not(names_bare("open x.newdir: ENOENT", "newdir"), "inside another name");
	cr_assert_not(names_bare("open 'newdir2': ENOENT", "newdir"), "a longer name");
	cr_assert_not(names_bare("open 'my-newdir': ENOENT", "newdir"), "inside another name");
	cr_assert_not(names_bare("created 'newdir'\nls: No such file or directory", "newdir"),
		      "the error on another line");
	cr_assert_not(names_bare("warning: 'newdir' is not writable, using /tmp", "newdir"),
		      "no error");
	cr_assert_not(names_bare("open 'a/newdir': ENOENT", "a/newdir"), "a path is not bare");
	cr_assert(names_bare("cd: \x1b[1mnewdir\x1b[0m: No such file or directory", "newdir"),
		  "coloured");
	cr_assert_not(names_bare("open x[0mnewdir: ENOENT", "newdir"), "no ESC: inside another name");
	cr_assert_not(names_bare("open 'x': ENOENT", ""));
	cr_assert_not(supervise_error_names_bare(NULL, 0, "newdir", NULL));
}

/* Issue 31: a tool's own words of failure (no system error text), and the
 * file on a line of its own below an error line ending in ':'. */
Test(supervise_error_names, own_words_and_the_line_above)
{
	cr_assert(names("CMake Error: Unable to (re)create the private pkgRedirects directory:\n"
			"/r/b/CMakeFiles/pkgRedirects", "/r/b"));
	cr_assert(names("CMake Error at CMakeLists.txt:4 (file):\n"
			"  file problem creating directory: /r/d\n", "/r/d"));
	cr_assert(names("Error: unable to open database \"/r/x.db\": unable to open database file",
			"/r/x.db"));
	cr_assert(names("fatal: could not create work tree dir '/r/w'", "/r/w"));
	cr_assert_not(names("WARNING: could not create /r/c, caching disabled", "/r/c"),
		      "a warning");
	cr_assert_not(names("WARNING: The directory:\n/r/c is not writable", "/r/c"),
		      "below a warning");
	cr_assert_not(names("Created the build directory:\n/r/b", "/r/b"), "no error above");
	cr_assert_not(names("error: x\n\n/r/b", "/r/b"), "not right above");
	cr_assert(names("CMake Error at mkdir.cmake:4 (file):\n  file problem creating directory:\n"
			"  /r/long/d\n", "/r/long/d"), "two lines ending in ':' above, the first an error");
	cr_assert_not(names("CMake Error at x.cmake:4 (file):\n  the directory is\n  /r/d\n", "/r/d"),
		      "the line between ends in no ':'");
	cr_assert_not(names("error: x:\na:\nb:\n/r/d", "/r/d"), "three lines above");
}

/* Issue 31: the command's own language's texts of the errors (its C
 * library's translation of EROFS, EACCES, ENOENT, ENOTDIR) count as the
 * English phrases do; none given, a translated line is no error line. */
Test(supervise_error_names, the_commands_own_language)
{
	const struct supervise_local fr = { { "Syst\xc3\xa8me de fichiers accessible en lecture seule",
					      "Permission non accord\xc3\xa9" "e", "", NULL } };
	const char *line = "mkdir: impossible de cr\xc3\xa9" "er le r\xc3\xa9pertoire \xc2\xab /r/kd \xc2\xbb: "
			   "Syst\xc3\xa8me de fichiers accessible en lecture seule";

	cr_assert(supervise_error_names(line, strlen(line), "/r/kd", &fr));
	cr_assert(supervise_error_phrase(line, strlen(line), &fr));
	const char *none = "r\xc3\xa9pertoire \xc2\xab /r/kd \xc2\xbb cr\xc3\xa9\xc3\xa9";
	const char *warn = "warning: Permission non accord\xc3\xa9" "e: /r/kd";

	cr_assert_not(supervise_error_phrase(none, strlen(none), &fr), "no phrase of either language");
	cr_assert_not(supervise_error_phrase(line, strlen(line), NULL), "French, and no French texts");
	cr_assert_not(supervise_error_names(warn, strlen(warn), "/r/kd", &fr), "a warning");
}

Test(supervise_error_names, command_line_and_read_only_words)
{
	cr_assert(supervise_command_names("sqlite3 /r/x.db 'insert into t values(1)'", "/r/x.db"));
	cr_assert(supervise_command_names("sqlite3 app.db 'insert'", "app.db"));
	cr_assert(supervise_command_names("python3 -c \"connect('/r/x.db')\"", "/r/x.db"));
	cr_assert(supervise_command_names("tool --db=/r/x.db;", "/r/x.db"));
	cr_assert_not(supervise_command_names("sqlite3 /r/x.db.bak 'select 1'", "/r/x.db"));
	cr_assert_not(supervise_command_names("sqlite3 /a/r/x.db", "/r/x.db"));
	cr_assert_not(supervise_command_names("sqlite3 x", "x"), "too short");
	cr_assert_not(supervise_command_names(NULL, "/r/x.db"));
	cr_assert(supervise_says_read_only("Error: stepping, attempt to write a readonly database (8)", 56));
	cr_assert(supervise_says_read_only("ok\nsqlite3.OperationalError: unable to open database file", 58));
	cr_assert(supervise_says_read_only("E: The database is Read-Only\n", 29));
	cr_assert_not(supervise_says_read_only("Error: in prepare, no such table: t", 35));
	cr_assert_not(supervise_says_read_only("warning: opening it read-only", 29), "a warning");
	cr_assert_not(supervise_says_read_only("read-only", 4), "past len");
}

Test(supervise_error_names, rust_debug_form)
{
	const char *panic = "thread 'main' panicked at t.rs:1:80:\ncalled `Result::unwrap()` on "
			    "an `Err` value: Os { code: 30, kind: ReadOnlyFilesystem, message: "
			    "\"Read-only file system\" }";

	cr_assert(supervise_error_is_rust_os(panic, strlen(panic), 30));
	cr_assert_not(supervise_error_is_rust_os(panic, strlen(panic), 13), "another errno");
	cr_assert_not(supervise_error_is_rust_os(panic, strlen(panic), 3), "a prefix of 30");
	cr_assert_not(supervise_error_is_rust_os("Os { code: 30, kind: ", 10, 30), "past len");
	cr_assert_not(supervise_error_is_rust_os(NULL, 0, 30));
}

Test(supervise_listed, paths_and_patterns)
{
	const char *const allow[] = { "/run/postgresql/*", "/var/run/docker.sock", "@/tmp/.X11-unix/X0" };

	cr_assert(supervise_socket_listed(allow, 3, "/run/postgresql/.s.PGSQL.5432"));
	cr_assert(supervise_socket_listed(allow, 3, "/var/run/docker.sock"));
	cr_assert(supervise_socket_listed(allow, 3, "@/tmp/.X11-unix/X0"));
	cr_assert_not(supervise_socket_listed(allow, 3, "/run/docker.sock"));
	cr_assert_not(supervise_socket_listed(allow, 3, "/run/postgresql"));
	cr_assert_not(supervise_socket_listed(allow, 3, "/tmp/.X11-unix/X0"),
		      "an abstract entry does not allow the path of the same name");
	cr_assert_not(supervise_socket_listed(allow, 3, "@/run/postgresql/x"),
		      "a path entry does not allow an abstract name");
	cr_assert_not(supervise_socket_listed(allow, 3, "run/postgresql/x"));
	cr_assert_not(supervise_socket_listed(allow, 0, "/var/run/docker.sock"));
}

Test(supervise_listed, star_crosses_slashes)
{
	const char *const allow[] = { "/run/user/*/bus" };

	cr_assert(supervise_socket_listed(allow, 1, "/run/user/1000/bus"));
	cr_assert(supervise_socket_listed(allow, 1, "/run/user/1000/x/bus"));
	cr_assert_not(supervise_socket_listed(allow, 1, "/run/user/1000/bus2"));
}

static int check(const char *p, char *why)
{
	return unix_socket_pattern_check(p, strlen(p), why, 200);
}

Test(supervise_pattern, well_formed_entries)
{
	char why[200];

	cr_assert_eq(check("/run/postgresql/*", why), 0, "%s", why);
	cr_assert_eq(check("/tmp/.X11-unix/X0", why), 0, "%s", why);
	cr_assert_eq(check("@dbus-abc", why), 0, "%s", why);
	cr_assert_eq(check("/a/b/*/c", why), 0, "%s", why);
	cr_assert_eq(check("/a/.hidden", why), 0, "%s", why);
}

Test(supervise_pattern, malformed_entries)
{
	char why[200];

	cr_assert_lt(check("", why), 0);
	cr_assert_lt(check("run/x.sock", why), 0);
	cr_assert(strstr(why, "absolute") != NULL, "%s", why);
	cr_assert_lt(check("/run/../etc/x", why), 0);
	cr_assert(strstr(why, "canonical") != NULL, "%s", why);
	cr_assert_lt(check("/run/./x", why), 0);
	cr_assert_lt(check("/run//x", why), 0);
	cr_assert_lt(check("/run/x/..", why), 0);
	cr_assert_lt(check("/run/x/", why), 0);
	cr_assert_lt(check("/run/x\tz", why), 0);
	char long_entry[POLICY_SOCKET_PATTERN_MAX + 2];
	memset(long_entry, 'a', sizeof(long_entry));
	long_entry[0] = '/';
	long_entry[sizeof(long_entry) - 1] = '\0';
	cr_assert_lt(check(long_entry, why), 0);
	cr_assert(strstr(why, "too long") != NULL, "%s", why);
}

/* ---- the config key ---- */

static struct sbx_config cfg;
static struct sbx_error err;

static int parse(const char *text)
{
	memset(&err, 0, sizeof(err));
	return config_parse_buffer("t.conf", text, strlen(text), &cfg, &err);
}

Test(config_unix_sockets, list_accumulates_and_dedups)
{
	cr_assert_eq(parse("unix_sockets = /run/postgresql/*, /var/run/docker.sock\n"
			   "# another line adds\n"
			   "unix_sockets = @x11 , /run/postgresql/*\n"), 0, "%s", err.message);
	cr_assert_eq(cfg.n_unix_sockets, 3);
	cr_assert_str_eq(cfg.unix_sockets[0], "/run/postgresql/*");
	cr_assert_str_eq(cfg.unix_sockets[1], "/var/run/docker.sock");
	cr_assert_str_eq(cfg.unix_sockets[2], "@x11");
}

Test(config_unix_sockets, errors_name_file_line_key)
{
	cr_assert_lt(parse("mode = read-only\nunix_sockets = run/x.sock\n"), 0);
	cr_assert_str_eq(err.code, "CONFIG");
	cr_assert(strncmp(err.message, "t.conf:2: unix_sockets: ", 24) == 0, "%s", err.message);
	cr_assert_eq(cfg.n_unix_sockets, 0, "a failed parse leaves nothing behind");
	cr_assert_lt(parse("unix_sockets = /a,,/b\n"), 0);
	cr_assert(strstr(err.message, "t.conf:1: unix_sockets: empty socket") != NULL, "%s",
		  err.message);
	cr_assert_lt(parse("unix_sockets = /run/../x\n"), 0);
	cr_assert(strstr(err.message, "unix_sockets") != NULL, "%s", err.message);
}

Test(config_unix_sockets, limit)
{
	char text[8192] = "unix_sockets = ";

	for (int i = 0; i <= POLICY_MAX_UNIX_SOCKETS; i++) {
		char one[32];

		snprintf(one, sizeof(one), "%s/s%d", i ? "," : "", i);
		strcat(text, one);
	}
	strcat(text, "\n");
	cr_assert_lt(parse(text), 0);
	cr_assert(strstr(err.message, "too many sockets") != NULL, "%s", err.message);
}

Test(config_unix_sockets, policy_and_builder_carry_it)
{
	struct sbx_session session = { .root = "/srv/ws" };
	struct sbx_policy pol;
	struct sbx_run *run = sbx_run_new();

	cr_assert_eq(parse("unix_sockets = /run/postgresql/*, @x11\n"), 0, "%s", err.message);
	cr_assert_eq(policy_resolve(&cfg, &session, NULL, &pol, &err), 0, "%s", err.message);
	cr_assert_eq(pol.n_unix_sockets, 2);
	cr_assert_eq(policy_resolve(&cfg, &session, "danger-full-access", &pol, &err), 0);
	cr_assert_eq(pol.n_unix_sockets, 2, "an escalation changes the mode only");
	cr_assert_not_null(run);
	cr_assert_eq(run_apply_policy(run, &pol, &err), 0, "%s", err.message);
	cr_assert_eq(run->n_unix_sockets, 2);
	cr_assert_str_eq(run->unix_sockets[0], "/run/postgresql/*");
	cr_assert_str_eq(run->unix_sockets[1], "@x11");
	cr_assert_eq(sbx_run_add_unix_socket_pattern(run, "relative"), -EINVAL);
	cr_assert_eq(sbx_run_add_unix_socket_pattern(run, NULL), -EINVAL);
	sbx_run_free(run);
}
