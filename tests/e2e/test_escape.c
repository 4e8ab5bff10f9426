/* SPDX-License-Identifier: MIT */
/* A run keeps its processes, and leaves nothing behind, even when the command
 * works against it: it cannot signal sbx (Landlock scoping, ABI 6+), a signal
 * to sbx from outside ends the whole tree, a tree that keeps forking is
 * still ended, and (namespace runner) System V / POSIX IPC objects it makes
 * stay inside the run. Both runners, as the caller and as nobody; every check
 * looks from outside (the process table, the host's IPC tables). */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct rp {
	char runner[16]; /* a copy: Criterion runs each test in a re-exec'd process */
	enum e2e_user who;
};

static struct rp params[] = {
	{ "namespace", AS_CALLER }, { "namespace", AS_NOBODY },
	{ "landlock", AS_CALLER },  { "landlock", AS_NOBODY },
};

#define PARAMS(name)                                                                     \
	ParameterizedTestParameters(escape, name)                                         \
	{                                                                                 \
		return cr_make_param_array(struct rp, params, sizeof(params) / sizeof(params[0])); \
	}

static unsigned seq(void)
{
	static unsigned n;

	return (unsigned)getpid() * 100u + ++n;
}

/* Processes named needle (comm) or whose command line starts with it (so
 * sbx and bash, which carry it inside their arguments, do not count). */
static int count_procs(const char *needle)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[300], buf[4096];
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "/proc/%s/%s", de->d_name, k ? "cmdline" : "comm");
			f = fopen(path, "r");
			if (!f)
				continue;
			size_t len = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			for (size_t i = 0; i < len; i++)
				if (buf[i] == '\0' || buf[i] == '\n')
					buf[i] = ' ';
			buf[len] = '\0';
			while (len > 0 && buf[len - 1] == ' ')
				buf[--len] = '\0';
			if (k ? strncmp(buf, needle, strlen(needle)) == 0 : strcmp(buf, needle) == 0) {
				n++;
				break;
			}
		}
	}
	closedir(d);
	return n;
}

static void kill_procs(const char *name)
{
	char *cmd = e2e_fmt("pkill -9 -f '%s' >/dev/null 2>&1; pkill -9 -x '%s' >/dev/null 2>&1",
			    name, name);
	int rc = system(cmd);

	(void)rc;
	free(cmd);
}

/* The command cannot stop or kill sbx, so its run stays owned: sbx finishes
 * normally and nothing is left. */
/* Landlock's signal scoping came with ABI 6: before it, no runner can keep
 * a command from signalling sbx (README says so). */
static int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1 /* VERSION */);

	return abi > 0 ? (int)abi : 0;
}

/* Only a kernel that truly lacks Landlock signal scoping (ABI < 6) skips. */
#define NEED_SIGNAL_SCOPE()                                                                \
	do {                                                                               \
		if (landlock_abi() < 6)                                                    \
			cr_skip_test("this kernel's Landlock (ABI %d) cannot scope signals",  \
				     landlock_abi());                                      \
	} while (0)
/* The landlock runner's dead-man helper needs that scoping; the namespace
 * runner's is its PID namespace's init, on any kernel. */
#define NEED_DEADMAN(p)                                                                    \
	do {                                                                               \
		if (strcmp((p)->runner, "landlock") == 0)                                  \
			NEED_SIGNAL_SCOPE();                                               \
	} while (0)

PARAMS(cannot_signal_sbx)
ParameterizedTest(struct rp *p, escape, cannot_signal_sbx, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	NEED_SIGNAL_SCOPE();
	char *root = e2e_tmpdir(p->who);
	char *mark = e2e_fmt("sleep 35.%u", seq());
	char *cmd = e2e_fmt("(setsid %s &); kill -STOP $PPID; echo stop=$?; kill -9 $PPID; "
			    "echo kill=$?", mark);
	struct e2e_out o;
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--root", root, "--", cmd, NULL);

	cr_expect_eq(rc, 0, "[%s %s] exit %d, stderr: %s", p->runner, e2e_user_name(p->who), rc,
		     o.err);
	cr_expect(strstr(o.out, "stop=1") && strstr(o.out, "kill=1"),
		  "[%s %s] the command signalled sbx: %s", p->runner, e2e_user_name(p->who), o.out);
	cr_expect_eq(count_procs(mark), 0, "[%s %s] '%s' outlived the run", p->runner,
		     e2e_user_name(p->who), mark);
	kill_procs(mark);
	e2e_out_free(&o);
	free(cmd);
	free(mark);
	free(root);
}

/* Start a run whose tree has a setsid'd part and a part ignoring SIGTERM,
 * send sig to sbx from outside, and check from the process table that the
 * whole tree is gone shortly after. Returns sbx's wait status. */
static int signal_sbx_and_check(const struct rp *p, int sig, unsigned first_mark)
{
	char *root = e2e_tmpdir(p->who);
	unsigned n = seq();
	char *mark = e2e_fmt("sleep %u.%u", first_mark, n);
	char *mark2 = e2e_fmt("sleep %u.%u", first_mark + 1, n);
	char *cmd = e2e_fmt("(setsid %s &); trap '' TERM; %s", mark, mark2);
	char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)p->runner, "--root", root,
			 "--", cmd, NULL };
	pid_t pid = e2e_spawn(p->who, "/", argv);
	int st = 0;

	for (int i = 0; i < 200 && (count_procs(mark) == 0 || count_procs(mark2) == 0); i++)
		usleep(20 * 1000);
	cr_assert(count_procs(mark) > 0 && count_procs(mark2) > 0, "the command did not start");
	kill(pid, sig);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	for (int i = 0; i < 100 && (count_procs(mark) || count_procs(mark2)); i++)
		usleep(20 * 1000);
	cr_expect_eq(count_procs(mark), 0, "[%s %s] '%s' (setsid) outlived sbx after signal %d",
		     p->runner, e2e_user_name(p->who), mark, sig);
	cr_expect_eq(count_procs(mark2), 0, "[%s %s] '%s' (TERM ignored) outlived sbx after "
		     "signal %d", p->runner, e2e_user_name(p->who), mark2, sig);
	kill_procs(mark);
	kill_procs(mark2);
	free(cmd);
	free(mark);
	free(mark2);
	free(root);
	return st;
}

/* SIGTERM to sbx from outside (a harness cancelling) ends the whole tree,
 * setsid'd parts included, and sbx reports 128+15. */
PARAMS(sigterm_to_sbx_ends_the_tree)
ParameterizedTest(struct rp *p, escape, sigterm_to_sbx_ends_the_tree, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	int st = signal_sbx_and_check(p, SIGTERM, 36);

	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 143, "[%s %s] sbx ended with status %#x",
		  p->runner, e2e_user_name(p->who), st);
}

/* Processes that fork and exit in a tight loop move faster than a walk of
 * /proc; they are ended all the same. */
PARAMS(forking_tree_is_ended)
ParameterizedTest(struct rp *p, escape, forking_tree_is_ended, .timeout = 90)
{
	e2e_require_runner(p->who, p->runner);
	/* The dead-man switch ends such a tree. */
	NEED_DEADMAN(p);
	char *root = e2e_tmpdir(p->who);
	char *name = e2e_fmt("hop%u", seq() % 100000);
	/* Each hop also calls setsid (no process group holds them), and they
	 * hop for longer than sbx's walk of the tree would try (5 s). */
	char *cmd = e2e_fmt("for i in $(seq 16); do %s 7 %s setsid >/dev/null 2>&1 & done; "
			    "echo started",
			    e2e_helper("hopper"), name);
	struct e2e_out o;
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--root", root, "--", cmd, NULL);

	cr_expect_eq(rc, 0, "[%s %s] exit %d, stderr: %s", p->runner, e2e_user_name(p->who), rc,
		     o.err);
	/* Past the hoppers' own 7 s: a survivor would be sleeping under its name. */
	sleep(8);
	cr_expect_eq(count_procs(name), 0, "[%s %s] %d forking processes outlived the run",
		     p->runner, e2e_user_name(p->who), count_procs(name));
	kill_procs(name);
	e2e_out_free(&o);
	free(cmd);
	free(name);
	free(root);
}

/* The end of the run's own walk of the tree, layer by layer: under the
 * landlock runner below ABI 6 there is no dead-man helper (it needs the
 * signal scope), so sbx's kill of its children and of their descendants is
 * what ends a setsid'd leftover, and one with a child of its own. */
static struct rp landlock_params[] = { { "landlock", AS_CALLER }, { "landlock", AS_NOBODY } };
ParameterizedTestParameters(escape, tree_ended_without_deadman)
{
	return cr_make_param_array(struct rp, landlock_params,
				   sizeof landlock_params / sizeof landlock_params[0]);
}
ParameterizedTest(struct rp *p, escape, tree_ended_without_deadman, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *root = e2e_tmpdir(p->who);
	unsigned n = seq() % 100000;
	char *alone = e2e_fmt("sleep 41.%u", n), *below = e2e_fmt("sleep 42.%u", n);
	char *cmd = e2e_fmt("(setsid %s >/dev/null 2>&1 &); "
			    "(setsid sh -c '%s; :' >/dev/null 2>&1 &); sleep 0.3; echo started",
			    alone, below);
	struct e2e_out o;
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--landlock-abi=5", "--root", root,
			     "--", cmd, NULL);

	cr_expect_eq(rc, 0, "[%s %s] exit %d, stderr: %s", p->runner, e2e_user_name(p->who), rc,
		     o.err);
	int left = 0;
	for (int i = 0; i < 50 && (left = count_procs(alone) + count_procs(below)) > 0; i++)
		usleep(100000);
	cr_expect_eq(left, 0, "[%s %s] %d leftovers outlived the run (%s, %s)", p->runner,
		     e2e_user_name(p->who), left, alone, below);
	kill_procs(alone);
	kill_procs(below);
	e2e_out_free(&o);
}

/* The namespace runner gives the run an IPC namespace of its own: a shared
 * memory segment the command makes is not in the host's table afterwards. */
static struct rp ns_params[] = { { "namespace", AS_CALLER }, { "namespace", AS_NOBODY } };

ParameterizedTestParameters(escape, ipc_stays_inside)
{
	return cr_make_param_array(struct rp, ns_params, 2);
}

/* Segments of 4096 bytes owned by uid in the host's table. */
static int host_segments(uid_t uid)
{
	struct shmid_ds ds;
	int max = shmctl(0, SHM_INFO, &ds), n = 0;

	for (int i = 0; i <= max; i++) {
		struct shmid_ds seg;

		if (shmctl(i, SHM_STAT, &seg) >= 0 && seg.shm_segsz == 4096 &&
		    seg.shm_perm.uid == uid)
			n++;
	}
	return n;
}

ParameterizedTest(struct rp *p, escape, ipc_stays_inside, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *root = e2e_tmpdir(p->who);
	int before = host_segments(e2e_uid(p->who));
	struct e2e_out o;
	int rc = e2e_sbx_run(p->who, &o, "--runner", "namespace", "--root", root, "--",
			     "ipcmk -M 4096", NULL);

	cr_expect_eq(rc, 0, "[%s] exit %d, stderr: %s", e2e_user_name(p->who), rc, o.err);
	cr_expect(strstr(o.out, "Shared memory id:") != NULL, "no segment made inside: %s", o.out);
	int after = host_segments(e2e_uid(p->who));

	cr_expect_eq(after, before, "[%s] the host's table went from %d to %d segments",
		     e2e_user_name(p->who), before, after);
	e2e_out_free(&o);
	free(root);
}

/* Spill files are written by sbx itself, unconfined: a spill directory the
 * command could swap for a symlink (inside its root) is refused before the
 * command runs, and nothing lands where such a symlink would point. */
PARAMS(spill_dir_inside_root_refused)
ParameterizedTest(struct rp *p, escape, spill_dir_inside_root_refused, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *root = e2e_fmt("%s/ws", base), *spill = e2e_fmt("%s/ws/spill", base);
	char *victim = e2e_fmt("%s/victim", base);

	cr_assert_eq(e2e_mkdir(p->who, root), 0);
	cr_assert_eq(e2e_mkdir(p->who, spill), 0);
	cr_assert_eq(e2e_mkdir(p->who, victim), 0);
	char *cmd = e2e_fmt("rm -rf spill && ln -s %s spill && printf '%%0200d\\n' 0", victim);
	struct e2e_out o;
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write",
			     "--root", root, "--spill-dir", spill, "--output-limit", "100", "--json",
			     "--", cmd, NULL);

	cr_expect_eq(rc, 125, "[%s %s] exit %d: %s", p->runner, e2e_user_name(p->who), rc, o.out);
	cr_expect(strstr(o.err, "sbx: USAGE") != NULL, "stderr: %s", o.err);
	char *probe = e2e_fmt("ls -A %s | wc -l", victim);
	FILE *f = popen(probe, "r");
	int n = -1;

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%d", &n), 1);
	pclose(f);
	cr_expect_eq(n, 0, "[%s %s] something was written into %s", p->runner,
		     e2e_user_name(p->who), victim);
	e2e_out_free(&o);
	free(probe);
	free(cmd);
	free(victim);
	free(spill);
	free(root);
	free(base);
}

/* The root itself, /tmp or /dev/shm as the spill directory (new-user pass,
 * issue 32): accepted where only a directory below them was refused, and
 * the command rewrote its own spill file before sbx handed its name over. */
PARAMS(spill_dir_that_is_the_root_or_tmp_refused)
ParameterizedTest(struct rp *p, escape, spill_dir_that_is_the_root_or_tmp_refused, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *root = e2e_fmt("%s/ws", base);
	const char *dirs[] = { root, "/tmp", "/dev/shm" };

	cr_assert_eq(e2e_mkdir(p->who, root), 0);
	for (size_t i = 0; i < 3; i++) {
		struct e2e_out o;
		int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write",
				     "--root", root, "--spill-dir", dirs[i], "--output-limit", "16",
				     "--json", "--", "seq 1 1000; touch ran", NULL);

		cr_expect_eq(rc, 125, "[%s %s] --spill-dir %s: exit %d: %s", p->runner,
			     e2e_user_name(p->who), dirs[i], rc, o.out);
		cr_expect(strstr(o.out, "lies inside what the command may write"),
			  "[%s %s] --spill-dir %s: %s", p->runner, e2e_user_name(p->who), dirs[i],
			  o.out);
		cr_expect(!e2e_exists(e2e_fmt("%s/ran", root)), "[%s %s] --spill-dir %s: the command "
			  "ran", p->runner, e2e_user_name(p->who), dirs[i]);
		e2e_out_free(&o);
	}
}

/* The root by another name as the spill directory's way (adversarial pass
 * 9, finding 13): with the root bind-mounted at ALIAS, --spill-dir
 * ALIAS/spill was taken; run 1 replaced spill with a symlink to VICTIM, and
 * run 2's spill file was written there by sbx, unconfined. Refused by the
 * directory's identity, before anything runs. */
PARAMS(spill_dir_through_a_bind_of_the_root_refused)
ParameterizedTest(struct rp *p, escape, spill_dir_through_a_bind_of_the_root_refused,
		  .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *root = e2e_fmt("%s/ws", base), *alias = e2e_fmt("%s/alias", base);
	char *victim = e2e_fmt("%s/victim", base);

	cr_assert_eq(e2e_mkdir(p->who, root), 0);
	cr_assert_eq(e2e_mkdir(p->who, e2e_fmt("%s/spill", root)), 0);
	cr_assert_eq(e2e_mkdir(p->who, alias), 0);
	cr_assert_eq(e2e_mkdir(p->who, victim), 0);
	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	cr_assert(mount(root, alias, NULL, MS_BIND, NULL) == 0, "bind: %s", strerror(errno));
	const char *cmds[] = { e2e_fmt("rm -rf spill && ln -s %s spill", victim), "seq 1 1000" };

	for (size_t i = 0; i < 2; i++) {
		struct e2e_out o;
		int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write",
				     "--root", root, "--spill-dir", e2e_fmt("%s/spill", alias),
				     "--output-limit", "16", "--json", "--", cmds[i], NULL);

		cr_expect_eq(rc, 125, "[%s %s] run %zu: exit %d: %s", p->runner, e2e_user_name(p->who),
			     i + 1, rc, o.out);
		cr_expect(strstr(o.out, "lies inside what the command may write"), "[%s %s] %s",
			  p->runner, e2e_user_name(p->who), o.out);
		e2e_out_free(&o);
	}
	/* As if run 1 had been let through: its link in place. */
	cr_assert(system(e2e_fmt("rmdir %s/spill && ln -s %s %s/spill", root, victim, root)) == 0);
	struct e2e_out o;
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write", "--root",
			     root, "--spill-dir", e2e_fmt("%s/spill", alias), "--output-limit", "16",
			     "--json", "--", "seq 1 1000", NULL);

	cr_expect_eq(rc, 125, "[%s %s] through the link: exit %d: %s", p->runner,
		     e2e_user_name(p->who), rc, o.out);
	e2e_out_free(&o);
	cr_expect(system(e2e_fmt("test -z \"$(ls -A %s)\"", victim)) == 0,
		  "[%s %s] sbx wrote a spill file where the root's link led", p->runner,
		  e2e_user_name(p->who));
}

/* sbx's config where a workspace-write command may write (its root, the
 * host's /tmp): the command rewrote it (deny_read = none, a wider mode) for
 * every later run (adversarial pass 7, finding 08). Refused before the
 * command runs, naming the config; a read-only run reads it as before. */
PARAMS(config_the_run_may_write_refused)
ParameterizedTest(struct rp *p, escape, config_the_run_may_write_refused, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *root = e2e_fmt("%s/ws", base);
	char *in_tmp = e2e_fmt("/tmp/sbx-e2e-conf-%d-%s-%s", (int)getpid(), p->runner,
			       e2e_user_name(p->who));
	const char *confs[] = { e2e_fmt("%s/sbx.conf", root), in_tmp };
	const char *text = "timeout = 60\n";

	cr_assert_eq(e2e_mkdir(p->who, root), 0);
	for (size_t i = 0; i < 2; i++) {
		struct e2e_out o;

		cr_assert_eq(e2e_write_file(p->who, confs[i], text), 0);
		int rc = e2e_sbx_run(p->who, &o, "--config", confs[i], "--runner", p->runner,
				     "--mode", "workspace-write", "--root", root, "--",
				     e2e_fmt("echo 'deny_read = none' >> %s; touch ran", confs[i]),
				     NULL);
		char *now = e2e_read_file(confs[i]);

		cr_expect_eq(rc, 125, "[%s %s] config %s: exit %d: %s", p->runner,
			     e2e_user_name(p->who), confs[i], rc, o.err);
		cr_expect(strstr(o.err, "sbx: USAGE") && strstr(o.err, confs[i]),
			  "[%s %s] stderr does not name the config: %s", p->runner,
			  e2e_user_name(p->who), o.err);
		cr_expect(now && strcmp(now, text) == 0, "[%s %s] the config was rewritten: %s",
			  p->runner, e2e_user_name(p->who), now);
		cr_expect(!e2e_exists(e2e_fmt("%s/ran", root)), "[%s %s] the command ran",
			  p->runner, e2e_user_name(p->who));
		e2e_out_free(&o);
		free(now);
		rc = e2e_sbx_run(p->who, &o, "--config", confs[i], "--runner", p->runner, "--root",
				 root, "--", "echo read-only", NULL);
		cr_expect(rc == 0 && strstr(o.out, "read-only"), "[%s %s] read-only run: %d %s",
			  p->runner, e2e_user_name(p->who), rc, o.err);
		e2e_out_free(&o);
	}
	unlink(in_tmp);
}

/* The same config by a hard link (adversarial pass 9, finding 03): given
 * as OUT/sbx.conf, a name of the same file in the root let the command
 * rewrite it (deny_read = none) for every later run. Refused by its link
 * count, before the command runs. */
PARAMS(config_with_a_hard_link_refused)
ParameterizedTest(struct rp *p, escape, config_with_a_hard_link_refused, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *root = e2e_fmt("%s/ws", base), *out = e2e_fmt("%s/etc", base);
	char *conf = e2e_fmt("%s/sbx.conf", out), *inside = e2e_fmt("%s/sbx.conf", root);
	const char *text = "timeout = 60\n";
	struct e2e_out o;

	cr_assert_eq(e2e_mkdir(p->who, root), 0);
	cr_assert_eq(e2e_mkdir(p->who, out), 0);
	cr_assert_eq(e2e_write_file(p->who, conf, text), 0);
	cr_assert(link(conf, inside) == 0, "link: %s", strerror(errno));
	int rc = e2e_sbx_run(p->who, &o, "--config", conf, "--runner", p->runner, "--mode",
			     "workspace-write", "--root", root, "--",
			     "echo 'deny_read = none' >> sbx.conf; touch ran", NULL);
	char *now = e2e_read_file(conf);

	cr_expect_eq(rc, 125, "[%s %s] exit %d: %s", p->runner, e2e_user_name(p->who), rc, o.err);
	cr_expect(strstr(o.err, "hard links"), "[%s %s] stderr: %s", p->runner,
		  e2e_user_name(p->who), o.err);
	cr_expect(now && strcmp(now, text) == 0, "[%s %s] the config was rewritten: %s", p->runner,
		  e2e_user_name(p->who), now);
	cr_expect(!e2e_exists(e2e_fmt("%s/ran", root)), "[%s %s] the command ran", p->runner,
		  e2e_user_name(p->who));
	e2e_out_free(&o);
	free(now);
}

/* A symlink a run left in its own workspace, pointing outside it, and a
 * later root opened through it (adversarial pass 3, finding 07): that run
 * would get the outside directory as its writable root (a stand-in for
 * $HOME, where it wrote .local/bin/git). Refused before the command runs;
 * a symlink the user made between runs still leads to its root. */
PARAMS(root_through_a_symlink_a_run_made_refused)
ParameterizedTest(struct rp *p, escape, root_through_a_symlink_a_run_made_refused, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *ws = e2e_fmt("%s/ws", base), *outside = e2e_fmt("%s/outside", base);
	char *mine = e2e_fmt("%s/mine", base);
	struct e2e_out o;

	cr_assert_eq(e2e_mkdir(p->who, ws), 0);
	cr_assert_eq(e2e_mkdir(p->who, e2e_fmt("%s/sub", ws)), 0);
	cr_assert_eq(e2e_mkdir(p->who, outside), 0);
	cr_assert_eq(e2e_mkdir(p->who, mine), 0);
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write",
			     "--root", ws, "--", e2e_fmt("rmdir sub && ln -s %s sub", outside), NULL);

	cr_assert_eq(rc, 0, "[%s %s] the first run failed: %s%s", p->runner,
		     e2e_user_name(p->who), o.out, o.err);
	e2e_out_free(&o);
	usleep(100000);
	rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write", "--root",
			 e2e_fmt("%s/sub", ws), "--", "echo planted > planted", NULL);
	cr_expect_eq(rc, 125, "[%s %s] exit %d: %s%s", p->runner, e2e_user_name(p->who), rc, o.out,
		     o.err);
	cr_expect(strstr(o.err, "a confined run made"), "[%s %s] stderr: %s", p->runner,
		  e2e_user_name(p->who), o.err);
	cr_expect(!e2e_exists(e2e_fmt("%s/planted", outside)),
		  "[%s %s] the run wrote in the directory its workspace's symlink named", p->runner,
		  e2e_user_name(p->who));
	e2e_out_free(&o);
	/* The user's own symlink, made after the run: it still leads. */
	cr_assert(symlink(mine, e2e_fmt("%s/link", ws)) == 0);
	rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write", "--root",
			 e2e_fmt("%s/link", ws), "--", "echo ok > ok", NULL);
	cr_expect_eq(rc, 0, "[%s %s] a symlink the user made was refused: %s%s", p->runner,
		     e2e_user_name(p->who), o.out, o.err);
	cr_expect(e2e_exists(e2e_fmt("%s/ok", mine)), "[%s %s] nothing written through the "
		  "user's symlink", p->runner, e2e_user_name(p->who));
	e2e_out_free(&o);
}

/* The same with the first run's record archived (256 runs on other roots
 * since, a private $HOME: the record is this test's): the archive keeps it
 * by root, and the root's pin still asks it (protect_runs_archive.c). */
PARAMS(root_through_a_symlink_an_archived_run_made_refused)
ParameterizedTest(struct rp *p, escape, root_through_a_symlink_an_archived_run_made_refused,
		  .timeout = 300)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *ws = e2e_fmt("%s/ws", base), *outside = e2e_fmt("%s/outside", base);
	char *home = e2e_fmt("%s/home", base);
	char *env[] = { e2e_fmt("HOME=%s", home), NULL };
	struct e2e_out o;

	cr_assert_eq(e2e_mkdir(p->who, ws), 0);
	cr_assert_eq(e2e_mkdir(p->who, home), 0);
	cr_assert_eq(e2e_mkdir(p->who, e2e_fmt("%s/sub", ws)), 0);
	cr_assert_eq(e2e_mkdir(p->who, outside), 0);
	char *plant[] = { (char *)e2e_sbx(), "run", "--runner", (char *)p->runner, "--mode",
			  "workspace-write", "--root", ws, "--",
			  e2e_fmt("rmdir sub && ln -s %s sub", outside), NULL };

	cr_assert_eq(e2e_run(p->who, plant, env, &o), 0, "[%s %s] the first run failed: %s%s",
		     p->runner, e2e_user_name(p->who), o.out, o.err);
	e2e_out_free(&o);
	for (int i = 0; i < 256; i++) {
		char *root = e2e_fmt("%s/more-%03d", base, i);
		char *more[] = { (char *)e2e_sbx(), "run", "--runner", (char *)p->runner, "--mode",
				 "workspace-write", "--root", root, "--", "true", NULL };

		cr_assert_eq(e2e_mkdir(p->who, root), 0);
		cr_assert_eq(e2e_run(p->who, more, env, &o), 0, "[%s %s] run %d: %s%s", p->runner,
			     e2e_user_name(p->who), i, o.out, o.err);
		e2e_out_free(&o);
	}
	char *use[] = { (char *)e2e_sbx(), "run", "--runner", (char *)p->runner, "--mode",
			"workspace-write", "--root", e2e_fmt("%s/sub", ws), "--",
			"echo planted > planted", NULL };
	int rc = e2e_run(p->who, use, env, &o);

	cr_expect_eq(rc, 125, "[%s %s] exit %d: %s%s", p->runner, e2e_user_name(p->who), rc, o.out,
		     o.err);
	cr_expect(!e2e_exists(e2e_fmt("%s/planted", outside)),
		  "[%s %s] the run wrote in the directory an archived run's symlink named",
		  p->runner, e2e_user_name(p->who));
	e2e_out_free(&o);
}

/* Even SIGKILL to sbx (no handler can run) leaves nothing: the kernel closes
 * sbx's end of the dead-man pipe and the helper ends the run. */
PARAMS(sigkill_to_sbx_ends_the_tree)
ParameterizedTest(struct rp *p, escape, sigkill_to_sbx_ends_the_tree, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	NEED_DEADMAN(p);
	signal_sbx_and_check(p, SIGKILL, 38);
}

/* The dead-man switch holds no capability (a root launcher's would otherwise
 * keep all of them for the run's lifetime): the Landlock helper, or the
 * init of the namespace runner's PID namespace (pid 1 there). Read from
 * inside the run. */
PARAMS(deadman_holds_nothing)
ParameterizedTest(struct rp *p, escape, deadman_holds_nothing, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	bool ns = strcmp(p->runner, "namespace") == 0;

	if (!ns)
		NEED_SIGNAL_SCOPE();
	char *root = e2e_tmpdir(p->who);
	struct e2e_out o;
	/* it takes its name a moment after it starts (after the drop) */
	const char *find = ns ? "for i in $(seq 100); do [ \"$(cat /proc/1/comm)\" = sbx-init ] && "
				"p=1 && break; sleep 0.02; done; "
			      : "for i in $(seq 100); do p=$(pgrep -x -P $PPID sbx-deadman) && break; "
				"sleep 0.02; done; ";
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--root", root, "--",
			     e2e_fmt("%sgrep -E '^Cap(Eff|Prm|Amb)' /proc/$p/status", find), NULL);

	cr_expect_eq(rc, 0, "[%s %s] no helper found? exit %d: %s %s", p->runner,
		     e2e_user_name(p->who), rc, o.out, o.err);
	cr_expect(strstr(o.out, "CapEff:\t0000000000000000") &&
			  strstr(o.out, "CapPrm:\t0000000000000000") &&
			  strstr(o.out, "CapAmb:\t0000000000000000"),
		  "[%s %s] helper capabilities: %s", p->runner, e2e_user_name(p->who), o.out);
	e2e_out_free(&o);
	free(root);
}

/* A --spill-dir among the tool caches (sbx's state, cache/): a
 * workspace-write command writes its own cache there, and swapped a spill
 * file for a link to a hidden key (adversarial pass 6, finding 14). */
PARAMS(spill_dir_in_tool_cache_refused)
ParameterizedTest(struct rp *p, escape, spill_dir_in_tool_cache_refused, .timeout = 60)
{
	e2e_require_runner(p->who, p->runner);
	char *base = e2e_tmpdir(p->who);
	char *root = e2e_fmt("%s/ws", base), *xdg = e2e_fmt("%s/xdg", base);
	char *spill = e2e_fmt("%s/xdg/sbx/cache", base);
	struct e2e_out o;

	cr_assert_eq(e2e_mkdir(p->who, root), 0);
	cr_assert_eq(e2e_mkdir(p->who, xdg), 0);
	setenv("XDG_CACHE_HOME", xdg, 1);
	/* a first run makes sbx's state there */
	e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write", "--root", root,
		    "--", "true", NULL);
	e2e_out_free(&o);
	cr_assert(e2e_exists(spill), "[%s %s] no %s", p->runner, e2e_user_name(p->who), spill);
	int rc = e2e_sbx_run(p->who, &o, "--runner", p->runner, "--mode", "workspace-write",
			     "--root", root, "--spill-dir", spill, "--output-limit", "100", "--json",
			     "--", "printf '%0200d\\n' 0", NULL);

	unsetenv("XDG_CACHE_HOME");
	cr_expect_eq(rc, 125, "[%s %s] exit %d: %s", p->runner, e2e_user_name(p->who), rc, o.out);
	cr_expect(strstr(o.err, "sbx: USAGE") != NULL, "stderr: %s", o.err);
	e2e_out_free(&o);
}
