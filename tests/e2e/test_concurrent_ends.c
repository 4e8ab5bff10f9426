/* SPDX-License-Identifier: MIT */
/* The end of one run of a serve never kills what belongs to another run of
 * it: a run's end walks sbx's children, and another run's dead-man helper,
 * orphaned to sbx at that moment, must not be taken for a leftover (nor its
 * pid, later reused, killed). Landlock runner, as the caller and as nobody;
 * checked in the process table. */
#include "serve_client.h"

#include <linux/sched.h>
#include <stdint.h>
#include <sys/syscall.h>

/* serve_client.h's helpers this file does not need. */
static void __attribute__((unused)) shared_helpers_unused(void)
{
	(void)assert_error;
	(void)run_ok;
	(void)wait_proc;
	(void)proc_with;
	(void)count_entries;
	(void)marker_seq;
	(void)users;
	(void)task_params;
}

static char *runner_config(const char *runner)
{
	char *text = e2e_fmt("runner = %s\n", runner);
	char *cfg = write_config(text);
	free(text);
	return cfg;
}

static long read_pid_file(const char *path)
{
	long long deadline = now_ms() + 20000;
	long pid = 0;

	for (;;) {
		FILE *f = fopen(path, "re");
		if (f) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (pid > 0)
			break;
		cr_assert(now_ms() < deadline, "no pid in %s", path);
		usleep(10 * 1000);
	}
	return pid;
}

/* The child of parent named comm (its /proc/PID/stat), 0: none. */
/* A process's name and parent from /proc/PID/stat; false if it is gone. */
static bool stat_of(pid_t pid, char *name, size_t size, pid_t *ppid)
{
	char path[64], buf[512];
	int fd, parent = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
	if (!open_p || !close_p || (size_t)(close_p - open_p - 1) >= size ||
	    sscanf(close_p + 2, "%*c %d", &parent) != 1)
		return false;
	memcpy(name, open_p + 1, (size_t)(close_p - open_p - 1));
	name[close_p - open_p - 1] = '\0';
	*ppid = (pid_t)parent;
	return true;
}

static pid_t parent_of(pid_t pid)
{
	char name[64];
	pid_t ppid;

	return stat_of(pid, name, sizeof(name), &ppid) ? ppid : 0;
}

/* The child of parent named comm with the lowest pid above after (0: the
 * first found). */
static pid_t child_named(pid_t parent, const char *comm, pid_t after)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	cr_assert_not_null(d);
	while ((!found || after) && (e = readdir(d))) {
		char name[64];
		pid_t pid, ppid;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		pid = (pid_t)atoi(e->d_name);
		if (stat_of(pid, name, sizeof(name), &ppid) && ppid == parent &&
		    strcmp(name, comm) == 0 && pid > after && (!found || pid < found))
			found = pid;
	}
	closedir(d);
	return found;
}

/* A process of ours, as uid, given exactly pid (clone3 set_tid: root may
 * choose; on a busy host a freed pid comes back by itself, pid_max is 32768
 * here). It waits to be killed. */
static pid_t victim_at(pid_t pid, uid_t uid)
{
	pid_t tid[1] = { pid };
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uint64_t)(uintptr_t)tid,
		.set_tid_size = 1,
	};
	long rc = syscall(SYS_clone3, &args, sizeof(args));

	if (rc == 0) {
		if (uid && (syscall(SYS_setresgid, uid, uid, uid) || syscall(SYS_setresuid, uid, uid, uid)))
			_exit(3);
		for (;;)
			pause();
	}
	return rc < 0 ? 0 : (pid_t)rc;
}

static struct { enum e2e_user who; } landlock_users[] = { { AS_CALLER }, { AS_NOBODY } };

ParameterizedTestParameters(concurrent_ends, deadman_taken_by_other_run)
{
	return cr_make_param_array(__typeof__(landlock_users[0]), landlock_users, 2);
}

/* Landlock runner, two runs of one serve. Run B's bash exits while run A's
 * end walks sbx's children (A left orphans: B watches one of them vanish),
 * before the loop has seen B's exit. B's dead-man helper, orphaned to sbx
 * by then, was not listed as live (only bash was, until its exit was
 * seen): A's walk SIGKILLed and reaped it. B's end later killed the helper
 * by its pid, by then free for any process to take: the wrong process was
 * killed (and, with a pidfd on it, watched forever as B's helper). Here the
 * pid's next holder is a process of the test's; a command can fork into
 * it just as well. */
ParameterizedTest(__typeof__(landlock_users[0]) *c, concurrent_ends, deadman_taken_by_other_run,
		  .timeout = 240)
{
	e2e_require_runner(c->who, "landlock");
	char *root = e2e_tmpdir(c->who), *cfg = runner_config("landlock");
	uid_t uid = c->who == AS_NOBODY ? NOBODY_ID : 0;
	struct srv s;
	long long id = 2;
	int hits = 0;

	srv_start(&s, c->who, cfg);
	const char *sess = open_session(&s, 1, root, "workspace-write");
	for (int attempt = 0; attempt < 6 && hits < 2; attempt++) {
		char *bpid_f = e2e_fmt("%s/b%d.pid", root, attempt);
		/* B: waits for A's end, then exits the moment A's first orphan
		 * is gone (reaped by A's walk, which goes on with the rest). */
		char *bcmd = e2e_fmt("echo $$ > b%d.pid; while [ ! -e go%d ]; do sleep 0.01; done; "
				     "a=$(cat a%d.pid); while [ -e /proc/$a ]; do :; done; exit 0",
				     attempt, attempt, attempt);
		/* A: many orphans, so its end walk takes a while. */
		char *acmd = e2e_fmt("sleep 1000 & echo $! > a%d.pid; "
				     "for i in $(seq 300); do sleep 1000 & done; touch go%d; exit 0",
				     attempt, attempt);
		const char *btask = start_bg(&s, id++, sess, bcmd);
		pid_t bpid = (pid_t)read_pid_file(bpid_f);
		pid_t helper = 0;
		long long deadline = now_ms() + 20000;
		/* B's helper is serve's child (made by B's process just before
		 * it became bash, so the next pid up from it), not bash's. */
		while (!(helper = child_named(parent_of(bpid), "sbx-deadman", bpid))) {
			cr_assert(now_ms() < deadline, "no dead-man helper beside B's bash %d", (int)bpid);
			usleep(10 * 1000);
		}
		/* Held from outside, B's stdout keeps B's end waiting its drain
		 * after its exit: the time in which its helper's pid is free. */
		char *fd1 = e2e_fmt("/proc/%d/fd/1", (int)bpid);
		int hold = open(fd1, O_WRONLY | O_CLOEXEC);
		cr_assert(hold >= 0, "open %s: %s", fd1, strerror(errno));
		char hpath[64];
		snprintf(hpath, sizeof(hpath), "/proc/%d", (int)helper);

		const char *atask = start_bg(&s, id++, sess, acmd);
		pid_t victim = 0;
		bool b_settled = false;
		deadline = now_ms() + ANSWER_TIMEOUT_MS;
		while (!b_settled) {
			size_t i;
			json_t *a;
			struct stat st;
			/* The helper's pid went free before B's end: take it. */
			if (!victim && stat(hpath, &st) < 0)
				victim = victim_at(helper, uid);
			json_array_foreach(s.answers, i, a) {
				json_t *p = json_object_get(a, "params");
				if (!s.taken[i] && str_at(a, "method") &&
				    strcmp(str_at(a, "method"), "task/settled") == 0 &&
				    str_at(p, "task") && strcmp(str_at(p, "task"), btask) == 0)
					b_settled = true;
			}
			cr_assert(now_ms() < deadline, "B never settled");
			srv_pump(&s, victim ? 50 : 1, false);
		}
		close(hold);
		wait_settled(&s, btask);
		wait_settled(&s, atask);
		if (victim) {
			int st = 0;
			hits++;
			/* Any kill of B's end is done by now (B has settled). */
			pid_t w = waitpid(victim, &st, WNOHANG);
			if (w == 0) {
				kill(victim, SIGKILL);
				waitpid(victim, &st, 0);
			}
			cr_assert(w == 0, "%s: attempt %d: B's end killed pid %d, its dead-man "
				  "helper's once, a process outside every run (status %#x)",
				  e2e_user_name(c->who), attempt, (int)helper, st);
		}
		free(fd1);
		free(acmd);
		free(bcmd);
		free(bpid_f);
	}
	cr_log_info("%s: %d attempts placed a process at the helper's freed pid before B settled",
		    e2e_user_name(c->who), hits);
	srv_stop(&s);
	e2e_rm_rf(root);
	free(cfg);
	free(root);
}
