/* SPDX-License-Identifier: MIT */
/* The labelled corpus (issue 5): realistic commands an agent runs, each run
 * as `nobody` once confined and once with danger-full-access, each time in a
 * FRESH copy of the same fixture, for both runners.
 *
 *   truth     = the confined run failed AND the unconfined run succeeded
 *               (both judged by exit status: non-zero or a signal is failure)
 *   predicted = sbx's "sandbox.denied" for the confined run
 *
 * Per runner the test prints precision and recall and the misclassified
 * commands, and asserts precision == 1 and recall >= 0.95. Each entry also
 * carries the label its author expected (denial or not); a label that the
 * runs contradict means the fixture or the sandbox changed, and is reported
 * as a corpus error (it is never silently re-labelled).
 *
 * Fixture (a template built once per test process, copied with `cp -a` for
 * every single run): B/ws is the workspace root, B/outside a directory next
 * to it; both owned by nobody except the two root-owned files below.
 *   ws/        git repo (one commit), Makefile, hello.c, tool.py (writes
 *              out.txt), script.sh (mode 0644: not executable), notes.md,
 *              build.log (a deploy log quoting errors), src.tar (./a.txt,
 *              ./sub/b.txt), mypkg-1.0-py3-none-any.whl, npkg/ (a node
 *              package), ro.txt (root, 0444), secret.txt (root, 000)
 *   outside/   f.txt ("orig"), d/, proj/ (git repo, one commit)
 * In the commands, @W@ is the workspace and @O@ the outside directory. */
#include "common.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { WS = 0, RO = 1 }; /* confined mode of an entry */
enum { NOT = 0, DENIAL = 1 };

/* A tool the entry needs ("" = only bash and coreutils). Entries whose tool
 * is not installed are skipped (and counted as skipped), never faked. */
struct entry {
	const char *label;
	int mode;   /* WS: workspace-write, RO: read-only */
	int expect; /* the author's label: DENIAL or NOT */
	const char *tool;
	const char *cmd;
};

#define GITID "-c user.name=agent -c user.email=agent@example.com"
#define NOISE                                                                            \
	"for i in $(seq 4000); do echo \"src/mod$i.c:12:5: warning: unused variable 'tmp' "    \
	"[-Wunused-variable]\"; done >&2"

static const struct entry corpus[] = {
	/* ---- writes outside the workspace: denials ---- */
	{ "bash > overwrite outside", WS, DENIAL, "", "echo hello > @O@/f.txt" },
	{ "bash >> append new file outside", WS, DENIAL, "", "echo line >> @O@/new.log" },
	{ "touch outside", WS, DENIAL, "touch", "touch @O@/stamp" },
	{ "mkdir -p outside", WS, DENIAL, "mkdir", "mkdir -p @O@/build/obj" },
	{ "rm outside file", WS, DENIAL, "rm", "rm @O@/f.txt" },
	{ "rm -rf outside dir", WS, DENIAL, "rm", "rm -rf @O@/d" },
	{ "cp into outside", WS, DENIAL, "cp", "cp hello.c @O@/hello.c" },
	{ "cp -r workspace to outside", WS, DENIAL, "cp", "cp -r src.tar notes.md @O@/d/" },
	{ "mv workspace file to outside", WS, DENIAL, "mv", "mv notes.md @O@/" },
	{ "ln -s into outside", WS, DENIAL, "ln", "ln -s @W@/hello.c @O@/link.c" },
	{ "ln hard link into outside", WS, DENIAL, "ln", "ln hello.c @O@/hard.c" },
	{ "tee outside", WS, DENIAL, "tee", "echo data | tee @O@/tee.txt" },
	{ "truncate outside", WS, DENIAL, "truncate", "truncate -s 0 @O@/f.txt" },
	{ "sed -i outside", WS, DENIAL, "sed", "sed -i s/orig/new/ @O@/f.txt" },
	{ "install into outside", WS, DENIAL, "install", "install -m 644 hello.c @O@/inst.c" },
	{ "python3 open() outside", WS, DENIAL, "python3",
	  "python3 -c \"open('@O@/py.txt', 'w').write('x')\"" },
	{ "python3 os.makedirs outside", WS, DENIAL, "python3",
	  "python3 -c \"import os; os.makedirs('@O@/pkg/sub')\"" },
	{ "git init outside", WS, DENIAL, "git", "git init -q @O@/newrepo" },
	{ "git commit in outside repo", WS, DENIAL, "git",
	  "git -C @O@/proj " GITID " commit -q --allow-empty -m wip" },
	{ "git config in outside repo", WS, DENIAL, "git",
	  "git -C @O@/proj config core.autocrlf false" },
	{ "gcc -o outside", WS, DENIAL, "gcc", "gcc -O2 -o @O@/hello hello.c" },
	{ "make with an outside target", WS, DENIAL, "make", "make -s OUT=@O@ @O@/stamp" },
	{ "tar -x -C outside", WS, DENIAL, "tar", "tar -xf src.tar -C @O@" },
	{ "pip install --target outside", WS, DENIAL, "python3 -m pip",
	  "python3 -m pip install -q --no-index --no-deps --target @O@/site "
	  "mypkg-1.0-py3-none-any.whl" },
	{ "npm install --prefix outside", WS, DENIAL, "npm",
	  "npm install --offline --no-audit --no-fund --cache /tmp/npm-cache-$$ --prefix @O@ ./npkg; "
	  "s=$?; rm -rf /tmp/npm-cache-$$; exit $s" },
	{ "node fs.writeFileSync outside", WS, DENIAL, "node",
	  "node -e \"require('fs').writeFileSync('@O@/n.txt', 'x')\"" },
	{ "cd outside then relative touch", WS, DENIAL, "touch", "cd @O@ && touch relative.txt" },
	{ "denial, then 200 KB of stderr, then exit 1", WS, DENIAL, "seq",
	  "touch @O@/late.txt || { " NOISE "; exit 1; }" },
	/* ---- read-only mode: writes in the workspace are denials ---- */
	{ "read-only: touch in workspace", RO, DENIAL, "touch", "touch newfile.txt" },
	{ "read-only: bash > new file in workspace", RO, DENIAL, "", "echo 'int x;' > gen.c" },
	{ "read-only: rm workspace file", RO, DENIAL, "rm", "rm notes.md" },
	{ "read-only: sed -i workspace file", RO, DENIAL, "sed", "sed -i s/hi/hello/ hello.c" },
	{ "read-only: git commit in workspace", RO, DENIAL, "git",
	  "git " GITID " commit -q --allow-empty -m wip" },
	{ "read-only: make", RO, DENIAL, "make", "make -s" },
	{ "read-only: python script writing out.txt", RO, DENIAL, "python3", "python3 tool.py" },
	{ "read-only: mkdir in workspace", RO, DENIAL, "mkdir", "mkdir build" },

	/* ---- allowed work: not denials ---- */
	{ "make in workspace", WS, NOT, "make", "make -s && ./hello" },
	{ "gcc in workspace and run", WS, NOT, "gcc", "gcc -Wall -o hello hello.c && ./hello" },
	{ "git add + commit in workspace", WS, NOT, "git",
	  "git add hello.c && git " GITID " commit -q --allow-empty -m wip" },
	{ "python script writing out.txt", WS, NOT, "python3", "python3 tool.py" },
	{ "sed -i in workspace", WS, NOT, "sed", "sed -i s/hi/hello/ hello.c" },
	{ "write and remove in /tmp", WS, NOT, "",
	  "echo tmp > /tmp/corpus-$$.txt && cat /tmp/corpus-$$.txt && rm /tmp/corpus-$$.txt" },
	{ "read outside", WS, NOT, "cat", "ls @O@ && cat @O@/f.txt" },
	{ "tar -x into workspace", WS, NOT, "tar", "mkdir -p unpacked && tar -xf src.tar -C unpacked" },
	{ "read-only: git status", RO, NOT, "git", "git status --short" },
	{ "read-only: grep and wc", RO, NOT, "grep", "grep -n main hello.c && wc -l hello.c" },
	{ "read-only: write to /dev/null", RO, NOT, "", "echo quiet > /dev/null" },

	/* ---- false-alarm traps: failures the sandbox did not cause ---- */
	{ "trap: non-executable script (126)", WS, NOT, "", "./script.sh" },
	{ "trap: read-only: non-executable script (126)", RO, NOT, "", "./script.sh" },
	{ "trap: cat unreadable file", WS, NOT, "cat", "cat secret.txt" },
	{ "trap: read-only: cat unreadable file", RO, NOT, "cat", "cat secret.txt" },
	{ "trap: write root-owned read-only file in workspace", WS, NOT, "",
	  "echo changed > ro.txt" },
	{ "trap: read-only: write root-owned read-only file", RO, NOT, "", "echo changed > ro.txt" },
	{ "trap: sed -i root-owned read-only file", WS, NOT, "sed", "sed -i s/a/b/ ro.txt" },
	{ "trap: ssh-style publickey failure", WS, NOT, "",
	  "echo 'Permission denied (publickey).' >&2; exit 255" },
	{ "trap: log with Read-only file system printed, exit 1", WS, NOT, "cat",
	  "cat build.log >&2; exit 1" },
	{ "trap: read-only: log printed, exit 1", RO, NOT, "cat", "cat build.log >&2; exit 1" },
	{ "trap: denial || true (exit 0)", WS, NOT, "touch", "touch @O@/f.txt || true" },
	{ "trap: false", WS, NOT, "", "false" },
	{ "trap: grep finds nothing", WS, NOT, "grep", "grep nothing /etc/hostname" },
	{ "trap: ls /root", WS, NOT, "ls", "ls /root" },
	{ "trap: touch /etc/passwd", WS, NOT, "touch", "touch /etc/passwd" },
	{ "trap: mkdir under /usr", WS, NOT, "mkdir", "mkdir /usr/local/sbx-corpus" },
	{ "trap: python3 open /etc/shadow", WS, NOT, "python3",
	  "python3 -c \"open('/etc/shadow').read()\"" },
	{ "trap: git add -A with unreadable file", WS, NOT, "git", "git add -A" },
	{ "trap: tar of workspace with unreadable file", WS, NOT, "tar",
	  "tar -czf /tmp/ws-$$.tgz . ; s=$?; rm -f /tmp/ws-$$.tgz; exit $s" },
	{ "trap: command not found (127)", WS, NOT, "", "no-such-tool --version" },
	{ "trap: compile error", WS, NOT, "gcc", "gcc -c missing.c" },
	{ "trap: pip package not found offline", WS, NOT, "python3 -m pip",
	  "python3 -m pip install -q --no-index --target /tmp/site-$$ no-such-package; "
	  "s=$?; rm -rf /tmp/site-$$; exit $s" },
	{ "trap: node exits 3", WS, NOT, "node", "node -e 'process.exit(3)'" },
};
#define N_CORPUS (sizeof corpus / sizeof corpus[0])

static const char *const runner_names[] = { "namespace", "landlock" };

/* s with every "@W@" and "@O@" replaced. */
static char *expand(const char *s, const char *ws, const char *out)
{
	char *r = strdup("");

	cr_assert_not_null(r);
	while (*s) {
		const char *sub = NULL;
		if (strncmp(s, "@W@", 3) == 0)
			sub = ws;
		else if (strncmp(s, "@O@", 3) == 0)
			sub = out;
		char *n = sub ? e2e_fmt("%s%s", r, sub) : e2e_fmt("%s%c", r, *s);
		free(r);
		r = n;
		s += sub ? 3 : 1;
	}
	return r;
}

/* ---- the fixture ---- */

static const char *const setup_script =
	"set -e\n"
	"cd \"$1/ws\"\n"
	"git init -q .\n"
	"cat > Makefile <<'EOF'\n"
	"CFLAGS = -O2 -Wall\n"
	"all: hello\n"
	"hello: hello.c\n"
	"\t$(CC) $(CFLAGS) -o $@ $<\n"
	"$(OUT)/stamp:\n"
	"\techo built > $@\n"
	"EOF\n"
	"printf '#include <stdio.h>\\nint main(void)\\n{\\n\\tputs(\"hi\");\\n\\treturn 0;\\n}\\n' > hello.c\n"
	"printf 'with open(\"out.txt\", \"w\") as f:\\n    f.write(\"result\\\\n\")\\nprint(\"done\")\\n' > tool.py\n"
	"printf '#!/bin/sh\\necho should not run\\n' > script.sh\n"
	"chmod 0644 script.sh\n"
	"printf '# notes\\n' > notes.md\n"
	/* a deploy log quoting other machines' errors (absolute system paths) */
	"cat > build.log <<'EOF'\n"
	"[2024-05-01 10:00:01] deploy: starting\n"
	"[2024-05-01 10:00:02] rsync: [receiver] mkstemp \"/srv/www/.index.html.Xa1\" failed: Read-only file system (30)\n"
	"[2024-05-01 10:00:02] cp: cannot create regular file '/mnt/backup/db.sql': Read-only file system\n"
	"[2024-05-01 10:00:03] error: write /var/lib/app/state.db: read-only file system\n"
	"[2024-05-01 10:00:03] PermissionError: [Errno 13] Permission denied: '/var/log/app/app.log'\n"
	"[2024-05-01 10:00:04] deploy: FAILED\n"
	"EOF\n"
	"mkdir -p data/sub && echo a > data/a.txt && echo b > data/sub/b.txt\n"
	"tar -cf src.tar -C data . && rm -r data\n"
	"if command -v python3 >/dev/null; then python3 - <<'EOF'\n"
	"import zipfile\n"
	"z = zipfile.ZipFile('mypkg-1.0-py3-none-any.whl', 'w')\n"
	"z.writestr('mypkg/__init__.py', 'X = 1\\n')\n"
	"z.writestr('mypkg-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: mypkg\\nVersion: 1.0\\n')\n"
	"z.writestr('mypkg-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: corpus\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n"
	"z.writestr('mypkg-1.0.dist-info/RECORD', 'mypkg/__init__.py,,\\nmypkg-1.0.dist-info/METADATA,,\\nmypkg-1.0.dist-info/WHEEL,,\\nmypkg-1.0.dist-info/RECORD,,\\n')\n"
	"z.close()\n"
	"EOF\n"
	"fi\n"
	"mkdir npkg\n"
	"printf '{\"name\": \"npkg\", \"version\": \"1.0.0\"}\\n' > npkg/package.json\n"
	"echo 'module.exports = 1;' > npkg/index.js\n"
	"printf 'hello.c\\nhello\\nout.txt\\nro.txt\\nsecret.txt\\n' > .git/info/exclude\n"
	"git add -A\n"
	"git " GITID " commit -q -m init\n"
	"cd \"$1/outside\"\n"
	"echo orig > f.txt\n"
	"mkdir d\n"
	"git init -q proj\n"
	"git -C proj " GITID " commit -q --allow-empty -m init\n";

struct fixture {
	char *tpl; /* template base: tpl/ws, tpl/outside */
};

static void root_file(const char *path, const char *content, mode_t mode)
{
	cr_assert(e2e_write_file(AS_CALLER, path, content) == 0, "fixture: write %s", path);
	cr_assert(chown(path, 0, 0) == 0 && chmod(path, mode) == 0, "fixture: chown/chmod %s: %s",
		  path, strerror(errno));
}

static void fixture_template(struct fixture *fx)
{
	struct e2e_out o;

	fx->tpl = e2e_tmpdir(AS_NOBODY);
	char *ws = e2e_fmt("%s/ws", fx->tpl), *out = e2e_fmt("%s/outside", fx->tpl);
	cr_assert(e2e_mkdir(AS_NOBODY, ws) == 0 && e2e_mkdir(AS_NOBODY, out) == 0);
	char *argv[] = { "bash", "-c", (char *)setup_script, "setup", fx->tpl, NULL };
	e2e_run(AS_NOBODY, argv, NULL, &o);
	cr_assert(o.status == 0, "fixture: setup script failed (%d):\n%s", o.status, o.err);
	e2e_out_free(&o);
	char *ro = e2e_fmt("%s/ro.txt", ws), *secret = e2e_fmt("%s/secret.txt", ws);
	root_file(ro, "a read-only file owned by root\n", 0444);
	root_file(secret, "root's secret\n", 0000);
	free(ro);
	free(secret);
	free(ws);
	free(out);
}

/* A fresh copy of the template: returns the new base (base/ws, base/outside). */
static char *fixture_copy(const struct fixture *fx)
{
	struct e2e_out o;
	char *base = e2e_tmpdir(AS_NOBODY);
	char *src = e2e_fmt("%s/.", fx->tpl);
	char *argv[] = { "cp", "-a", src, base, NULL };

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0, "fixture: cp -a %s %s failed:\n%s", src, base, o.err);
	e2e_out_free(&o);
	free(src);
	return base;
}

/* Is the entry's tool runnable here, as nobody? */
static bool tool_present(const char *tool)
{
	struct e2e_out o;

	if (!tool || !*tool)
		return true;
	char *check = strncmp(tool, "python3 -m ", 11) == 0
			      ? e2e_fmt("python3 -m %s --version >/dev/null 2>&1", tool + 11)
			      : e2e_fmt("command -v %s >/dev/null 2>&1", tool);
	char *argv[] = { "bash", "-c", check, NULL };
	e2e_run(AS_NOBODY, argv, NULL, &o);
	bool ok = o.status == 0;
	e2e_out_free(&o);
	free(check);
	return ok;
}

/* ---- one run ---- */

struct outcome {
	bool failed;    /* non-zero exit or a signal */
	bool denied;    /* sandbox.denied */
	int status;     /* sbx's exit status */
	char *json;     /* sbx's stdout (the result object) */
	char *err;      /* sbx's stderr */
};

static void run_once(const struct fixture *fx, const char *runner, const char *mode,
		     const struct entry *e, struct outcome *oc)
{
	struct e2e_out o;
	char *base = fixture_copy(fx);
	char *ws = e2e_fmt("%s/ws", base), *out = e2e_fmt("%s/outside", base);
	char *cmd = expand(e->cmd, ws, out);
	char *argv[] = { (char *)e2e_sbx(), "run", "--json", "--runner", (char *)runner, "--mode",
			 (char *)mode, "--root", ws, "--", cmd, NULL };

	e2e_run_in(AS_NOBODY, ws, argv, NULL, &o);
	json_error_t jerr;
	json_t *res = json_loads(o.out, 0, &jerr);
	cr_assert(res != NULL && json_object_get(res, "error") == NULL,
		  "[%s %s] `%s`: sbx gave no result object (status %d)\nstdout:\n%s\nstderr:\n%s",
		  runner, mode, e->label, o.status, o.out, o.err);
	json_t *code = json_object_get(res, "exit_code");
	json_t *sig = json_object_get(res, "signal");
	json_t *sb = json_object_get(res, "sandbox");
	json_t *den = sb ? json_object_get(sb, "denied") : NULL;
	cr_assert(json_is_boolean(den), "[%s %s] `%s`: no sandbox.denied in\n%s", runner, mode,
		  e->label, o.out);
	oc->failed = !json_is_integer(code) || json_integer_value(code) != 0 ||
		     (sig && !json_is_null(sig));
	oc->denied = json_is_true(den);
	oc->status = o.status;
	oc->json = o.out;
	oc->err = o.err;
	json_decref(res);
	free(cmd);
	free(ws);
	free(out);
	/* the copy is large-ish (git repos): drop it now, not at exit */
	e2e_rm_rf(base);
	free(base);
}

/* The JSON result cut to its interesting part for a report. */
static const char *tail(const char *s, size_t keep)
{
	size_t n = strlen(s);
	return n > keep ? s + n - keep : s;
}

static void run_corpus(int runner_idx)
{
	const char *runner = runner_names[runner_idx];
	struct fixture fx;
	int tp = 0, fp = 0, fn = 0, tn = 0, skipped = 0, label_errors = 0;
	char *report = strdup("");

	fixture_template(&fx);
	for (size_t i = 0; i < N_CORPUS; i++) {
		const struct entry *e = &corpus[i];
		const char *mode = e->mode == RO ? "read-only" : "workspace-write";
		struct outcome conf, unconf;

		if (!tool_present(e->tool)) {
			skipped++;
			fprintf(stderr, "corpus %s: skip (no %s here): %s\n", runner, e->tool,
				e->label);
			continue;
		}
		run_once(&fx, runner, mode, e, &conf);
		run_once(&fx, runner, "danger-full-access", e, &unconf);
		bool truth = conf.failed && !unconf.failed;
		bool pred = conf.denied;
		const char *verdict = NULL;

		if (truth && pred)
			tp++;
		else if (!truth && !pred)
			tn++;
		else if (pred) {
			fp++;
			verdict = "FALSE DENIAL (precision)";
		} else {
			fn++;
			verdict = "MISSED DENIAL (recall)";
		}
		char *add = NULL;
		if (verdict)
			add = e2e_fmt("  %s: [%s, %s] %s\n    command: %s\n    confined: status %d, "
				  "unconfined: status %d\n    sbx result (tail): %s\n",
				  verdict, runner, mode, e->label, e->cmd, conf.status,
				  unconf.status, tail(conf.json, 700));
		else if ((int)truth != e->expect) {
			label_errors++;
			add = e2e_fmt("  LABEL CONTRADICTED: [%s, %s] %s: labelled %s, but confined "
				  "status %d, unconfined status %d\n    command: %s\n    confined "
				  "stderr (tail): %s\n    unconfined stderr (tail): %s\n",
				  runner, mode, e->label, e->expect ? "denial" : "not a denial",
				  conf.status, unconf.status, e->cmd, tail(conf.json, 500),
				  tail(unconf.json, 500));
		}
		if (add) {
			char *n = e2e_fmt("%s%s", report, add);
			free(report);
			free(add);
			report = n;
		}
		e2e_out_free(&(struct e2e_out){ .out = conf.json, .err = conf.err });
		e2e_out_free(&(struct e2e_out){ .out = unconf.json, .err = unconf.err });
	}
	int denials = tp + fn, total = tp + fp + fn + tn;
	double precision = tp + fp ? (double)tp / (tp + fp) : 1.0;
	double recall = denials ? (double)tp / denials : 1.0;
	fprintf(stderr,
		"corpus %s: precision %.3f recall %.3f (%d denials of %d; tp %d fp %d fn %d tn "
		"%d; %d skipped)\n",
		runner, precision, recall, denials, total, tp, fp, fn, tn, skipped);
	if (*report)
		fprintf(stderr, "corpus %s: misclassified or mislabelled:\n%s", runner, report);
	cr_expect(total >= 40, "corpus %s: only %d commands ran (need at least 40)", runner, total);
	cr_expect(fp == 0, "corpus %s: precision %.3f < 1 (%d false denials):\n%s", runner,
		  precision, fp, report);
	cr_expect(recall >= 0.95, "corpus %s: recall %.3f < 0.95 (%d missed of %d):\n%s", runner,
		  recall, fn, denials, report);
	cr_expect(label_errors == 0, "corpus %s: %d entries contradicted their label:\n%s", runner,
		  label_errors, report);
	free(report);
}

Test(corpus, namespace, .timeout = 900)
{
	run_corpus(0);
}

Test(corpus, landlock, .timeout = 900)
{
	run_corpus(1);
}
