/* SPDX-License-Identifier: MIT */
/* The record of confined runs' windows (launcher/protect/protect_runs.c,
 * protect_runs_archive.c): a run's window counts for its own root, those
 * above it and below it, never for an unrelated one; past the recent
 * list's bound, the oldest records move to the archive, kept by root, so
 * no time is ever dropped and no record widens to roots its run was not
 * on; an open record counts on and on (a live run, or an sbx that died); a
 * list or archive file that fails its checks counts as all time before
 * now. Built in a private directory. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protect_int.h"
#include "protect_runs_list.h"

static char dir[] = "/tmp/sbx-unit-runs-XXXXXX";

static void setup(void)
{
	cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert(system(cmd) == 0);
}

TestSuite(protect_runs, .init = setup, .fini = teardown);

static void state(struct protect_state *ps, long since_s)
{
	memset(ps, 0, sizeof(*ps));
	ps->runs_lock = -1;
	ps->runs_dir[0] = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert(ps->runs_dir[0] >= 0);
	ps->n_runs_dir = 1;
	ps->runs_own = true;
	ps->since = (struct timespec){ since_s, 0 };
}

static void done(struct protect_state *ps)
{
	close(ps->runs_dir[0]);
}

/* One whole run on root, from since_s (seconds) to now. */
static void one_run(const char *root, long since_s, bool landlock)
{
	struct protect_state ps;

	state(&ps, since_s);
	cr_assert(protect_runs_open(&ps, root) == 0);
	ps.host_tmp = landlock;
	protect_runs_close(&ps, root);
	done(&ps);
}

/* Does a change at t_s (seconds) count as a run's for root? (This run
 * itself started far in the future.) */
static bool counts(const char *root, long t_s)
{
	struct protect_state ps;
	struct protect_when w;
	bool c;

	state(&ps, 4000000000L);
	cr_assert(protect_runs_when(&ps, root, ps.since, &w) == 0);
	c = protect_when_changed(&w, &(struct timespec){ t_s, 1 });
	protect_when_free(&w);
	done(&ps);
	return c;
}

Test(protect_runs, roots_that_overlap)
{
	one_run("/w/proj", 1000, false);
	cr_assert(counts("/w/proj", 2000), "its own root");
	cr_assert(counts("/w", 2000), "a root above it");
	cr_assert(counts("/w/proj/sub", 2000), "a root below it");
	cr_assert(!counts("/w/other", 2000), "an unrelated root");
	cr_assert(!counts("/w/proj", 999), "before the run");
	cr_assert(!counts("/tmp/x", 2000), "a namespace run could not write the host's /tmp");
	one_run("/home/u/p", 3000, true);
	cr_assert(counts("/tmp/x", 3001), "a landlock run could write the host's /tmp");
	cr_assert(counts("/dev/shm/x", 3001));
	cr_assert(!counts("/tmp/x", 2999));
}

/* 300 runs on 300 roots: the list stays bounded, every window still
 * counts for its root, and none for a root elsewhere. */
Test(protect_runs, bounded_and_nothing_dropped, .timeout = 60)
{
	struct stat st;
	char path[256];

	for (int i = 0; i < 300; i++) {
		char root[64];

		snprintf(root, sizeof(root), "/w/r%03d-a-root-with-a-longer-name", i);
		one_run(root, 100000 + i * 10, false);
	}
	snprintf(path, sizeof(path), "%s/runs", dir);
	cr_assert(stat(path, &st) == 0);
	cr_assert_lt(st.st_size, 256 * (32 + 40) + 64, "the list grew to %lld bytes",
		     (long long)st.st_size);
	for (int i = 0; i < 300; i++) {
		char root[64];

		snprintf(root, sizeof(root), "/w/r%03d-a-root-with-a-longer-name", i);
		cr_assert(counts(root, 100000 + i * 10), "run %d's window was dropped", i);
	}
	cr_assert(!counts("/elsewhere", 100005), "merged into a record for /");
}

/* A run whose sbx died (its record open, no one holding its byte): its
 * window counts up to now, and the next write closes it. */
Test(protect_runs, open_record_of_a_dead_run)
{
	pid_t pid = fork();
	int st;

	cr_assert(pid >= 0);
	if (pid == 0) {
		struct protect_state ps;

		state(&ps, 5000);
		_exit(protect_runs_open(&ps, "/w/dead") == 0 ? 0 : 1);
	}
	cr_assert(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	cr_assert(counts("/w/dead", 6000));
	cr_assert(counts("/w/dead", (long)time(NULL) - 1));
	one_run("/w/other", 7000, false);
	cr_assert(counts("/w/dead", (long)time(NULL) - 1), "closed before now");
}

/* A list that fails its checks: all time before now counts, everywhere. */
Test(protect_runs, corrupt_list_counts_all)
{
	char path[256];
	int fd;

	one_run("/w/a", 1000, false);
	snprintf(path, sizeof(path), "%s/runs", dir);
	fd = open(path, O_WRONLY);
	cr_assert(fd >= 0);
	cr_assert(pwrite(fd, "X", 1, 20) == 1);
	close(fd);
	cr_assert(counts("/anywhere", 10));
	cr_assert(counts("/w/a", 10));
	/* Written afresh with that window: still all before now. */
	one_run("/w/b", 2000, false);
	cr_assert(counts("/anywhere", 10));
}

/* Runs on 300 roots in two places (a workspace per task): each archived
 * window counts for its root, those above it and below it, and for no
 * other: the list used to merge two records into one for their roots'
 * common ancestor, "/" here, and then every root counted them. */
Test(protect_runs, archived_windows_stay_on_their_roots, .timeout = 60)
{
	for (int i = 0; i < 300; i++) {
		char root[64];

		snprintf(root, sizeof(root), i % 2 ? "/v/task-%03d" : "/w/task-%03d", i);
		one_run(root, 100000 + i * 10, false);
	}
	cr_assert(counts("/w/task-000", 100000), "the first window was dropped");
	cr_assert(counts("/w/task-000/sub", 100000), "a root below it");
	cr_assert(counts("/w", 100000), "a root above it");
	cr_assert(counts("/", 100000), "a root above it");
	cr_assert(counts("/v/task-001", 100010));
	cr_assert(!counts("/w/task-000", 99999), "before the run");
	cr_assert(!counts("/elsewhere", 100005), "an archived window counts for a root elsewhere");
	cr_assert(!counts("/w/mine", 100005), "an archived window counts for a sibling root");
	cr_assert(!counts("/w/task-0000", 100000), "a root that only begins with its name");
}

/* An archived run on a root counts for every root below it (what it left
 * there a later run on a part of it could move in). */
Test(protect_runs, archived_root_counts_below, .timeout = 60)
{
	one_run("/anc", 50000, false);
	for (int i = 0; i < 300; i++) {
		char root[64];

		snprintf(root, sizeof(root), "/x/filler-%03d", i);
		one_run(root, 100000 + i, false);
	}
	cr_assert(counts("/anc/sub/deep", 50001), "a root below an archived run's");
	cr_assert(!counts("/ancestor", 50001), "a root that only begins with its name");
	cr_assert(!counts("/x/filler-000", 50001));
}

/* An archived landlock run could write the host's /tmp and /dev/shm. */
Test(protect_runs, archived_landlock_run_counts_in_tmp, .timeout = 60)
{
	one_run("/home/u/ll", 60000, true);
	for (int i = 0; i < 300; i++) {
		char root[64];

		snprintf(root, sizeof(root), "/x/filler-%03d", i);
		one_run(root, 100000 + i, false);
	}
	cr_assert(counts("/tmp/x", 60001));
	cr_assert(counts("/dev/shm/y/z", 60001));
	cr_assert(!counts("/tmp/x", 59999));
	cr_assert(!counts("/srv/x", 60001));
}

/* Runs on one root past the archive file's bound: it stays bounded, each
 * window still counts. */
Test(protect_runs, archive_bounded_per_root, .timeout = 120)
{
	char path[512], name[17];
	struct stat st;

	for (int i = 0; i < 600; i++)
		one_run("/same/root", 100000 + i * 10, false);
	snprintf(name, sizeof(name), "%016llx",
		 (unsigned long long)runs_hash((const unsigned char *)"/same/root", 10));
	snprintf(path, sizeof(path), "%s/runs.d/%s", dir, name);
	cr_assert(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	cr_assert_lt(st.st_size, 64 * (32 + 10) + 64, "the root's file grew to %lld bytes",
		     (long long)st.st_size);
	cr_assert(counts("/same/root", 100000));
	cr_assert(counts("/same/root", 100000 + 599 * 10));
}

/* An archive file that fails its checks: all time before now counts, for
 * every root it could be about. */
Test(protect_runs, corrupt_archive_counts_all, .timeout = 60)
{
	char path[512], name[17];
	int fd;

	for (int i = 0; i < 300; i++) {
		char root[64];

		snprintf(root, sizeof(root), "/x/filler-%03d", i);
		one_run(root, 100000 + i, false);
	}
	cr_assert(!counts("/y/anywhere", 10));
	snprintf(name, sizeof(name), "%016llx", (unsigned long long)runs_hash((const unsigned char *)"/", 1));
	snprintf(path, sizeof(path), "%s/runs.d/%s", dir, name);
	fd = open(path, O_WRONLY);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert(pwrite(fd, "X", 1, 20) == 1);
	close(fd);
	cr_assert(counts("/y/anywhere", 10));
}
