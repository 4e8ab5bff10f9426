/* SPDX-License-Identifier: MIT */
/* Nothing of a serve run outlives its answer, even a process its bash made
 * with clone(CLONE_PARENT) (a sibling: a child of serve's spawner thread,
 * not of the run). Both runners, as the caller and as nobody; checked in
 * the process table. */
#include "serve_client.h"

#include <sys/syscall.h>

/* serve_client.h's helpers this file does not need. */
static void __attribute__((unused)) shared_helpers_unused(void)
{
	(void)users;
	(void)assert_error;
	(void)start_bg;
	(void)wait_settled;
	(void)task_params;
}

struct who_runner {
	enum e2e_user who;
	char runner[16];
};

static struct who_runner combos[] = {
	{ AS_CALLER, "namespace" }, { AS_CALLER, "landlock" },
	{ AS_NOBODY, "namespace" }, { AS_NOBODY, "landlock" },
};

static char *runner_config(const char *runner)
{
	char *text = e2e_fmt("runner = %s\n", runner);
	char *cfg = write_config(text);
	free(text);
	return cfg;
}

/* A test helper, copied where the namespace runner's /tmp does not hide it. */
static char *helper_copy(const char *name)
{
	char *dir = e2e_tmpdir(AS_CALLER), *copy = e2e_fmt("%s/%s", dir, name);
	char *argv[] = { "cp", (char *)e2e_helper(name), copy, NULL };
	struct e2e_out o;

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0 && chmod(copy, 0755) == 0, "cp %s: %s", name, o.err);
	e2e_out_free(&o);
	free(dir);
	return copy;
}

/* Is pid alive and not a zombie? */
static bool alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

ParameterizedTestParameters(clone_parent, clone_parent_outlives_run)
{
	return cr_make_param_array(struct who_runner, combos, 4);
}

/* A run's bash that clone(CLONE_PARENT)s makes a sibling: a child of
 * serve's spawner thread, whose children the end of a run never looked at
 * (they are the runs' own first processes). With nothing else left the run
 * looked clean, the landlock dead-man helper was SIGKILLed instead of
 * triggered, and the sibling lived on after the answer (until serve ended;
 * nobody has no cgroup to kill it), writing the workspace after the
 * protected paths were put back. */
ParameterizedTest(struct who_runner *c, clone_parent, clone_parent_outlives_run, .timeout = 120)
{
	e2e_require_runner(c->who, c->runner);
	char *root = e2e_tmpdir(c->who), *cfg = runner_config(c->runner);
	unsigned seq = marker_seq();
	char *marker = e2e_fmt("31.%u", seq);
	struct srv s;
	srv_start(&s, c->who, cfg);
	const char *sess = open_session(&s, 1, root, "workspace-write");
	char *helper = helper_copy("cloneparent");
	char *cmd = e2e_fmt("exec %s %s", helper, marker);
	json_t *res = run_ok(&s, 2, sess, cmd);
	const char *out = str_at(res, "stdout");
	long pid = 0;
	cr_assert(sscanf(out, "child %ld", &pid) == 1 || strncmp(out, "refused ", 8) == 0,
		  "cloneparent: %s / %s", out, str_at(res, "stderr"));
	/* The run has answered: nothing of it may live on. A survivor that the
	 * end's deferred reaping kills gets a generous while to go. */
	char *needle = e2e_fmt("sleep %s", marker);
	long long deadline = now_ms() + 10000;
	/* By its marker: under the namespace runner pid is the namespace's. */
	while (proc_with(needle)) {
		if (now_ms() >= deadline)
			break;
		usleep(50 * 1000);
	}
	bool survived = proc_with(needle);
	if (survived && strcmp(c->runner, "landlock") == 0 && alive((pid_t)pid))
		kill((pid_t)pid, SIGKILL);
	cr_assert(!survived, "%s/%s: a CLONE_PARENT sibling (pid %ld) outlived its run",
		  e2e_user_name(c->who), c->runner, pid);
	/* serve is still usable */
	res = run_ok(&s, 3, sess, "echo fine");
	cr_assert_str_eq(str_at(res, "stdout"), "fine\n");
	srv_stop(&s);
	e2e_rm_rf(root);
	free(needle);
	free(cmd);
	free(helper);
	free(marker);
	free(cfg);
	free(root);
}
