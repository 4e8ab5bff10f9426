/* SPDX-License-Identifier: MIT */
/* Per-run resource limits: the size syntax, the config keys, the defaults,
 * which limit a run hit, and the cgroup detection on a fake cgroupfs. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "policy.h"
#include "run_limits.h"

/* ---- sizes ---- */

Test(limits, parse_bytes)
{
	uint64_t v = 0;

	cr_assert_eq(policy_parse_bytes("1048576", UINT64_MAX, &v), 0);
	cr_assert_eq(v, 1048576);
	cr_assert_eq(policy_parse_bytes("64M", UINT64_MAX, &v), 0);
	cr_assert_eq(v, 64ULL << 20);
	cr_assert_eq(policy_parse_bytes("2g", UINT64_MAX, &v), 0);
	cr_assert_eq(v, 2ULL << 30);
	cr_assert_eq(policy_parse_bytes("3k", UINT64_MAX, &v), 0);
	cr_assert_eq(v, 3072);
	cr_assert_eq(policy_parse_bytes("1T", UINT64_MAX, &v), 0);
	cr_assert_eq(v, 1ULL << 40);
	const char *junk[] = { "", "M", "-1", "+1", " 1", "1 ", "1.5G", "1MB", "0x10", "1e3", NULL };
	for (size_t i = 0; junk[i]; i++)
		cr_assert_eq(policy_parse_bytes(junk[i], UINT64_MAX, &v), -EINVAL, "%s", junk[i]);
	cr_assert_eq(policy_parse_bytes("2K", 2047, &v), -ERANGE);
	cr_assert_eq(policy_parse_bytes("99999999999999999999", UINT64_MAX, &v), -ERANGE);
	cr_assert_eq(policy_parse_bytes("16777216T", UINT64_MAX, &v), -ERANGE);
}

/* ---- config ---- */

static struct sbx_config cfg;
static struct sbx_error err;

static int parse(const char *text)
{
	memset(&err, 0, sizeof(err));
	return config_parse_buffer("t.conf", text, strlen(text), &cfg, &err);
}

static void expect_error(const char *text, const char *message)
{
	cr_assert_lt(parse(text), 0, "accepted: %s", text);
	cr_assert_str_eq(err.code, "CONFIG");
	cr_assert_str_eq(err.message, message);
}

Test(limits, config_keys)
{
	cr_assert_eq(parse("max_processes = 500\nmemory_limit = 2G\nfile_size_limit = 100M\n"
			   "tmp_size = 256m\n"), 0, "%s", err.message);
	cr_assert(cfg.has_max_processes && cfg.max_processes == 500);
	cr_assert(cfg.has_memory_limit && cfg.memory_limit == 2ULL << 30);
	cr_assert(cfg.has_file_size_limit && cfg.file_size_limit == 100ULL << 20);
	cr_assert(cfg.has_tmp_size && cfg.tmp_size == 256ULL << 20);

	cr_assert_eq(parse("memory_limit = off\nfile_size_limit = off\n"), 0, "%s", err.message);
	cr_assert_eq(cfg.memory_limit, POLICY_LIMIT_OFF);
	cr_assert_eq(cfg.file_size_limit, POLICY_LIMIT_OFF);

	cr_assert_eq(parse(""), 0);
	cr_assert_not(cfg.has_max_processes || cfg.has_memory_limit || cfg.has_file_size_limit ||
		      cfg.has_tmp_size);
}

/* The messages come from the config key table: file, line, key, and what the
 * key allows (every key's full set of cases is in test_config.c). */
#define MEM "16M to 1048576T bytes (suffix k, m, g or t: powers of 1024), or off"
Test(limits, config_errors)
{
	expect_error("max_processes = 0\n",
		     "t.conf:1: max_processes: bad value '0' (expected 1 to 4194304 processes)");
	expect_error("max_processes = lots\n",
		     "t.conf:1: max_processes: bad value 'lots' (expected 1 to 4194304 processes)");
	expect_error("max_processes = 4194305\n",
		     "t.conf:1: max_processes: bad value '4194305' (expected 1 to 4194304 processes)");
	expect_error("\nmemory_limit = 1M\n", "t.conf:2: memory_limit: bad value '1M' (expected " MEM ")");
	expect_error("memory_limit = 2GB\n", "t.conf:1: memory_limit: bad value '2GB' (expected " MEM ")");
	expect_error("file_size_limit = 0\n",
		     "t.conf:1: file_size_limit: bad value '0' (expected 1 to 1048576T bytes (suffix k, "
		     "m, g or t: powers of 1024), or off)");
	expect_error("tmp_size = off\n",
		     "t.conf:1: tmp_size: bad value 'off' (expected 1M to 1048576T bytes (suffix k, m, "
		     "g or t: powers of 1024))");
	expect_error("tmp_size = 2000000T\n",
		     "t.conf:1: tmp_size: bad value '2000000T' (expected 1M to 1048576T bytes (suffix k, "
		     "m, g or t: powers of 1024))");
	expect_error("max_processes = 5\nmax_processes = 6\n",
		     "t.conf:2: duplicate key 'max_processes' (first set on line 1)");
}

Test(limits, policy_carries_limits)
{
	struct sbx_session s = { .root = "/w" };
	struct sbx_policy pol;

	cr_assert_eq(parse("max_processes = 77\nmemory_limit = off\ntmp_size = 8M\n"), 0);
	cr_assert_eq(policy_resolve(&cfg, &s, NULL, &pol, &err), 0);
	cr_assert_eq(pol.max_processes, 77);
	cr_assert_eq(pol.memory_limit, POLICY_LIMIT_OFF);
	cr_assert_eq(pol.file_size_limit, 0, "unset: sbx's default");
	cr_assert_eq(pol.tmp_size, 8ULL << 20);
	cr_assert_eq(policy_resolve(NULL, &s, NULL, &pol, &err), 0);
	cr_assert(pol.max_processes == 0 && pol.memory_limit == 0 && pol.tmp_size == 0);
}

/* ---- defaults ---- */

Test(limits, defaults)
{
	/* This machine's kind: pid_max 32768, 17 runs at once. */
	cr_assert_eq(limits_default_processes(32768, 17), 963);
	cr_assert_eq(limits_default_processes(4194304, 17), LIMITS_PROCESSES_MAX);
	cr_assert_eq(limits_default_processes(4096, 17), LIMITS_PROCESSES_MIN);
	cr_assert_eq(limits_default_processes(32768, 0), LIMITS_PROCESSES_MAX);
	cr_assert_eq(limits_default_tmp_size(24ULL << 30, 17), (24ULL << 30) / 34);
	cr_assert_eq(limits_default_tmp_size(256ULL << 30, 17), LIMITS_TMP_MAX);
	cr_assert_eq(limits_default_tmp_size(1ULL << 30, 17), LIMITS_TMP_MIN);
	cr_assert_eq(limits_default_cgroup_memory(16ULL << 30), 12ULL << 30);
}

/* One inode per 16 KiB of tmp_size, never fewer than 1,024 (docs/limits.md). */
Test(limits, tmpfs_inodes_follow_tmp_size)
{
	cr_assert_eq(limits_tmp_inodes(64ULL << 20), 4096);
	cr_assert_eq(limits_tmp_inodes(1ULL << 30), 65536);
	cr_assert_eq(limits_tmp_inodes(1ULL << 20), 1024);
	cr_assert_eq(limits_tmp_inodes(0), 1024);
}

/* ---- which limit a run hit ---- */

static const char *hit(const struct limits_report *r, bool exited, int code, int sig, bool pids,
		       bool oom, const char *text)
{
	return limit_hit(r, exited, code, sig, pids, oom, text, strlen(text));
}

Test(limits, hit_needs_a_failed_run_and_an_enforced_limit)
{
	struct limits_report all = { .processes = 10, .memory = 1 << 26, .file_size = 1 << 20 };
	struct limits_report none = { 0 };

	cr_assert_null(hit(&all, true, 0, 0, true, true, "MemoryError"));
	cr_assert_null(hit(&none, true, 1, 0, true, true, "MemoryError\nFile too large"));
	cr_assert_null(hit(&none, false, 0, SIGXFSZ, false, false, ""));
	cr_assert_null(hit(&all, true, 1, 0, false, false, "ls: cannot access 'x'"));
	/* EAGAIN without a word about processes is not a fork. */
	cr_assert_null(hit(&all, true, 1, 0, false, false,
			   "read: Resource temporarily unavailable"));
}

Test(limits, hit_kinds)
{
	struct limits_report r = { .processes = 10, .memory = 1 << 26, .file_size = 1 << 20 };

	cr_assert_str_eq(hit(&r, false, 0, SIGKILL, false, true, ""), "memory");
	cr_assert_str_eq(hit(&r, true, 1, 0, true, false, ""), "processes");
	cr_assert_str_eq(hit(&r, false, 0, SIGXFSZ, false, false, ""), "file_size");
	cr_assert_str_eq(hit(&r, true, 153, 0, false, false,
			     "bash: line 1: 12 File size limit exceeded head -c 9 /dev/zero > f\n"),
			 "file_size");
	cr_assert_str_eq(hit(&r, true, 1, 0, false, false, "OSError: [Errno 27] File too large"),
			 "file_size");
	cr_assert_str_eq(hit(&r, true, 254, 0, false, false,
			     "bash: fork: retry: Resource temporarily unavailable\n"), "processes");
	cr_assert_str_eq(hit(&r, true, 1, 0, false, false,
			     "BlockingIOError: [Errno 11] Resource temporarily unavailable\n"),
			 "processes");
	cr_assert_str_eq(hit(&r, true, 1, 0, false, false,
			     "java.lang.OutOfMemoryError: unable to create native thread"),
			 "processes");
	cr_assert_str_eq(hit(&r, true, 1, 0, false, false, "MemoryError\n"), "memory");
	cr_assert_str_eq(hit(&r, true, 2, 0, false, false,
			     "bash: xmalloc: cannot allocate 4096 bytes\n"), "memory");
	cr_assert_str_eq(hit(&r, false, 0, SIGABRT, false, false,
			     "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap "
			     "out of memory\n"), "memory");
}

Test(limits, hit_marker)
{
	struct limits_report r = { .processes = 963, .memory = 1 << 26, .file_size = 1 << 20 };
	char buf[160];

	limit_hit_marker(&r, buf, sizeof(buf));
	cr_assert_str_eq(buf, "");
	r.hit = "processes";
	limit_hit_marker(&r, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[sandbox: the run reached its process limit (963 processes)]\n");
	r.hit = "memory";
	limit_hit_marker(&r, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[sandbox: the run reached its memory limit (67108864 bytes)]\n");
	r.hit = "file_size";
	limit_hit_marker(&r, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[sandbox: the run reached its file size limit (1048576 bytes)]\n");
}

/* ---- /proc/self/cgroup, /proc/self/mountinfo ---- */

Test(limits, parse_self_cgroup)
{
	const char *hybrid = "9:name=systemd:/\n8:pids:/a/b\n4:memory:/process_api/x\n0::/u/v\n";
	char out[256];

	cr_assert_eq(cgroup_parse_self(hybrid, NULL, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/u/v");
	cr_assert_eq(cgroup_parse_self(hybrid, "pids", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/a/b");
	cr_assert_eq(cgroup_parse_self("3:cpu,cpuacct:/c\n", "cpuacct", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/c");
	cr_assert_eq(cgroup_parse_self("3:cpu,cpuacct:/c\n", "cpu", out, sizeof(out)), 0);
	cr_assert_eq(cgroup_parse_self("3:cpuacct:/c\n", "cpu", out, sizeof(out)), -ENOENT);
	cr_assert_eq(cgroup_parse_self("8:pids:/a\n", NULL, out, sizeof(out)), -ENOENT);
	cr_assert_eq(cgroup_parse_self("0::/\n", NULL, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/");
}

Test(limits, parse_mountinfo)
{
	const char *mi =
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
		"33 31 0:30 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
		"40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
		"41 23 0:37 /sub /mnt/bound rw - cgroup2 cgroup2 rw\n";
	char out[256];

	cr_assert_eq(cgroup_parse_mount(mi, NULL, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/sys/fs/cgroup/unified");
	cr_assert_eq(cgroup_parse_mount(mi, "pids", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/sys/fs/cgroup/pids");
	cr_assert_eq(cgroup_parse_mount(mi, "cpuacct", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/sys/fs/cgroup/cpu,cpuacct");
	cr_assert_eq(cgroup_parse_mount(mi, "memory", out, sizeof(out)), -ENOENT);
	/* Only a hierarchy's root counts, not a bind of a sub-cgroup. */
	cr_assert_eq(cgroup_parse_mount("41 23 0:37 /sub /mnt rw - cgroup2 cgroup2 rw\n", NULL, out,
					sizeof(out)), -ENOENT);
}

/* ---- a fake cgroupfs ---- */

static char fake[256];

static void put(const char *rel, const char *content)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fake, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

static char *get(const char *rel)
{
	static char buf[512];
	char path[512];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", fake, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static char *sub(const char *rel)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s%s%s", fake, rel[0] ? "/" : "", rel);
	return path;
}

/* A cgroup directory as the kernel shows one: the interface files. */
static void fake_cgroup(const char *rel, const char *controllers, const char *subtree,
			const char *procs)
{
	char f[256];

	if (rel[0])
		cr_assert_eq(mkdir(sub(rel), 0755), 0);
	snprintf(f, sizeof(f), "%s%scgroup.controllers", rel, rel[0] ? "/" : "");
	put(f, controllers);
	snprintf(f, sizeof(f), "%s%scgroup.subtree_control", rel, rel[0] ? "/" : "");
	put(f, subtree);
	snprintf(f, sizeof(f), "%s%scgroup.procs", rel, rel[0] ? "/" : "");
	put(f, procs);
}

static void fake_setup(void)
{
	snprintf(fake, sizeof(fake), "/tmp/sbx-fakecg-XXXXXX");
	cr_assert_not_null(mkdtemp(fake));
	cr_assert_eq(chmod(fake, 0755), 0);
}

static void fake_teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(cgroup_fake, .init = fake_setup, .fini = fake_teardown);

static enum cgroup_plan plan(const char *rel, bool root, char *reason)
{
	return cgroup_v2_plan(sub(rel), root, getpid(), reason, 512);
}

Test(cgroup_fake, controllers_missing)
{
	char reason[512];

	fake_cgroup("", "cpu io hugetlb\n", "", "1\n");
	cr_assert_eq(plan("", true, reason), CGROUP_PLAN_NONE);
	cr_assert(strstr(reason, "pids and memory controllers are not available") &&
		  strstr(reason, "(it has: cpu io hugetlb)"), "%s", reason);
	put("cgroup.controllers", "memory\n");
	cr_assert_eq(plan("", true, reason), CGROUP_PLAN_NONE);
}

Test(cgroup_fake, not_delegated_to_another_user)
{
	fake_cgroup("", "cpu memory pids\n", "", "1\n");
	/* root owns it, 0755/0644: nobody may read but not write. */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char reason[512];

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(plan("", false, reason) == CGROUP_PLAN_NONE &&
		      strstr(reason, "is not delegated to this user") ? 0 : 1);
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}

Test(cgroup_fake, ready_when_it_hands_down_already)
{
	struct cgroup_base base;
	char reason[512];

	fake_cgroup("", "cpu memory pids\n", "memory pids\n", "");
	cr_assert_eq(plan("", false, reason), CGROUP_PLAN_READY);
	cr_assert_eq(cgroup_base_from_v2(sub(""), false, getpid(), &base, reason, sizeof(reason)), 0);
	cr_assert_str_eq(base.dir, fake);
	cr_assert(base.v2 && base.memory);
}

Test(cgroup_fake, hierarchy_root_enables)
{
	struct cgroup_base base;
	char reason[512];

	fake_cgroup("", "cpu memory pids\n", "", "1\n99\n");
	cr_assert_eq(plan("", true, reason), CGROUP_PLAN_ENABLE);
	cr_assert_eq(cgroup_base_from_v2(sub(""), true, getpid(), &base, reason, sizeof(reason)), 0,
		     "%s", reason);
	cr_assert_str_eq(get("cgroup.subtree_control"), "+pids +memory");
	cr_assert_str_eq(base.dir, fake);
}

Test(cgroup_fake, alone_moves_into_its_leaf)
{
	struct cgroup_base base;
	char reason[512], self[32];

	snprintf(self, sizeof(self), "%d\n", (int)getpid());
	fake_cgroup("", "memory pids\n", "", self);
	cr_assert_eq(plan("", false, reason), CGROUP_PLAN_LEAF);
	/* The kernel makes the interface files of a new cgroup: so does the fake. */
	fake_cgroup(CGROUP_SUPERVISOR_LEAF, "memory pids\n", "", "");
	cr_assert_eq(cgroup_base_from_v2(sub(""), false, getpid(), &base, reason, sizeof(reason)), 0,
		     "%s", reason);
	cr_assert_str_eq(get(CGROUP_SUPERVISOR_LEAF "/cgroup.procs"), "0", "moved itself (\"0\")");
	cr_assert_str_eq(get("cgroup.subtree_control"), "+pids +memory");
	cr_assert_str_eq(base.dir, fake, "runs go beside the leaf");
}

Test(cgroup_fake, shared_with_other_processes_is_refused)
{
	char reason[512], procs[64];

	snprintf(procs, sizeof(procs), "%d\n1\n", (int)getpid());
	fake_cgroup("", "memory pids\n", "", procs);
	cr_assert_eq(plan("", false, reason), CGROUP_PLAN_NONE);
	cr_assert(strstr(reason, "other processes share the delegated cgroup"), "%s", reason);
	cr_assert_str_eq(get("cgroup.subtree_control"), "", "nothing was changed");
}

Test(cgroup_fake, from_the_leaf_runs_go_beside_it)
{
	struct cgroup_base base;
	char reason[512];

	fake_cgroup("", "memory pids\n", "memory pids\n", "");
	fake_cgroup(CGROUP_SUPERVISOR_LEAF, "memory pids\n", "", "1\n");
	cr_assert_eq(plan(CGROUP_SUPERVISOR_LEAF, false, reason), CGROUP_PLAN_PARENT);
	cr_assert_eq(cgroup_base_from_v2(sub(CGROUP_SUPERVISOR_LEAF), false, getpid(), &base, reason,
					 sizeof(reason)), 0, "%s", reason);
	cr_assert_str_eq(base.dir, fake);
}

Test(cgroup_fake, stale_run_cgroups_are_removed)
{
	struct cgroup_base base;
	char reason[512], mine[64];
	pid_t dead = fork();

	cr_assert_geq(dead, 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	fake_cgroup("", "memory pids\n", "memory pids\n", "");
	snprintf(mine, sizeof(mine), "sbx-run-%d-0", (int)dead);
	cr_assert_eq(mkdir(sub(mine), 0755), 0);
	snprintf(reason, sizeof(reason), "sbx-run-%d-0", (int)getpid());
	cr_assert_eq(mkdir(sub(reason), 0755), 0);
	cr_assert_eq(cgroup_base_from_v2(sub(""), false, getpid(), &base, reason, sizeof(reason)), 0);
	cr_assert_eq(access(sub(mine), F_OK), -1, "the dead sbx's run cgroup is gone");
	snprintf(mine, sizeof(mine), "sbx-run-%d-0", (int)getpid());
	cr_assert_eq(access(sub(mine), F_OK), 0, "a live sbx's stays");
}
