/* SPDX-License-Identifier: MIT */
/* Shared fixtures for the end-to-end tests (see common.h).
 *
 * Criterion runs every test in its own process, so all per-process state here
 * (the private copy of the binaries, the temporary bases) is tagged with the
 * pid that made it: a forked test process never reuses or deletes its
 * parent's directories, and each process removes only what it made itself. */
#include "common.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define NOBODY_ID 65534
#define RUN_TIMEOUT_MS (120 * 1000)

/* ---- users ---- */

uid_t e2e_uid(enum e2e_user who)
{
	return who == AS_NOBODY ? (uid_t)NOBODY_ID : getuid();
}

gid_t e2e_gid(enum e2e_user who)
{
	return who == AS_NOBODY ? (gid_t)NOBODY_ID : getgid();
}

bool e2e_quick(void)
{
	const char *q = getenv("SBX_E2E_QUICK");

	return q && strcmp(q, "1") == 0;
}

static void swap_entries(char *a, char *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		char t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

size_t e2e_matrix(void *arr, size_t n, size_t size, int (*runner_of)(const void *),
		  int (*who_of)(const void *))
{
	char *a = arr;
	unsigned runners = 0, whos = 0;
	size_t k = 0;

	if (!e2e_quick())
		return n;
	/* First the entries that bring a new runner and a new user, then
	 * those that bring either: each runner and each user at least once. */
	for (int both = 1; both >= 0; both--)
		for (size_t i = k; i < n; i++) {
			unsigned r = 1u << runner_of(a + i * size), w = 1u << who_of(a + i * size);
			bool new_r = !(runners & r), new_w = !(whos & w);

			if (both ? !(new_r && new_w) : !(new_r || new_w))
				continue;
			swap_entries(a + i * size, a + k * size, size);
			k++;
			runners |= r;
			whos |= w;
		}
	return k;
}

const char *e2e_user_name(enum e2e_user who)
{
	return who == AS_NOBODY ? "nobody" : "caller";
}

/* ---- cleanup of everything this process made ---- */

#define MAX_CLEAN 64
static char *clean_paths[MAX_CLEAN];
static size_t clean_count;
static pid_t clean_pid;

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void e2e_rm_rf(const char *path)
{
	nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void clean_at_exit(void)
{
	/* A fork of this process inherits the list; only the maker cleans. */
	if (clean_pid != getpid())
		return;
	for (size_t i = 0; i < clean_count; i++)
		e2e_rm_rf(clean_paths[i]);
}

static void clean_register(const char *path)
{
	if (clean_pid != getpid()) {
		/* first registration in this process: forget the parent's list */
		clean_pid = getpid();
		clean_count = 0;
		atexit(clean_at_exit);
	}
	if (clean_count == MAX_CLEAN)
		cr_assert_fail("e2e fixture: too many temporary bases");
	clean_paths[clean_count] = strdup(path);
	cr_assert_not_null(clean_paths[clean_count]);
	clean_count++;
}

/* ---- binaries: a private copy every user can execute ---- */

static char bin_dir[PATH_MAX];
static pid_t bin_pid;
static char build_dir[PATH_MAX];

static const char *e2e_build_dir(void)
{
	if (build_dir[0])
		return build_dir;
	const char *env = getenv("SBX_BUILD_DIR");
	if (env && *env) {
		cr_assert(realpath(env, build_dir) != NULL,
			  "e2e fixture: SBX_BUILD_DIR=%s: %s", env, strerror(errno));
		return build_dir;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	cr_assert(n > 0, "e2e fixture: readlink /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	/* BUILD/tests/e2e/test_x -> BUILD */
	for (int i = 0; i < 3; i++) {
		char *slash = strrchr(exe, '/');
		cr_assert(slash && slash != exe, "e2e fixture: cannot find the build dir from %s", exe);
		*slash = '\0';
	}
	snprintf(build_dir, sizeof build_dir, "%s", exe);
	return build_dir;
}

static void copy_file_0755(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	cr_assert(in >= 0, "e2e fixture: open %s: %s (is it built?)", src, strerror(errno));
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	cr_assert(out >= 0, "e2e fixture: create %s: %s", dst, strerror(errno));
	char buf[65536];
	for (;;) {
		ssize_t r = read(in, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		cr_assert(r >= 0, "e2e fixture: read %s: %s", src, strerror(errno));
		if (r == 0)
			break;
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));
			if (w < 0 && errno == EINTR)
				continue;
			cr_assert(w > 0, "e2e fixture: write %s: %s", dst, strerror(errno));
			off += w;
		}
	}
	close(in);
	/* owned by root (we are root), never setuid: plain 0755 */
	cr_assert(fchmod(out, 0755) == 0, "e2e fixture: chmod %s: %s", dst, strerror(errno));
	cr_assert(close(out) == 0, "e2e fixture: close %s: %s", dst, strerror(errno));
}

static void ensure_bin_dir(void)
{
	if (bin_dir[0] && bin_pid == getpid())
		return;
	snprintf(bin_dir, sizeof bin_dir, "/tmp/sbx-e2e-bin-XXXXXX");
	cr_assert(mkdtemp(bin_dir) != NULL, "e2e fixture: mkdtemp: %s", strerror(errno));
	cr_assert(chmod(bin_dir, 0755) == 0, "e2e fixture: chmod %s: %s", bin_dir, strerror(errno));
	bin_pid = getpid();
	clean_register(bin_dir);
}

static const char *private_copy(const char *rel, const char *name)
{
	ensure_bin_dir();
	static char path[16][PATH_MAX];
	static size_t used;
	static pid_t used_pid;
	if (used_pid != getpid()) {
		used_pid = getpid();
		used = 0;
	}
	char dst[PATH_MAX];
	cr_assert(snprintf(dst, sizeof dst, "%s/%s", bin_dir, name) < (int)sizeof dst);
	for (size_t i = 0; i < used; i++)
		if (strcmp(path[i], dst) == 0)
			return path[i];
	cr_assert(used < 16, "e2e fixture: too many helper copies");
	char src[PATH_MAX];
	cr_assert(snprintf(src, sizeof src, "%s/%s", e2e_build_dir(), rel) < (int)sizeof src);
	copy_file_0755(src, dst);
	snprintf(path[used], PATH_MAX, "%s", dst);
	return path[used++];
}

const char *e2e_sbx(void)
{
	return private_copy("sbx", "sbx");
}

const char *e2e_helper(const char *name)
{
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "tests/helpers/%s", name);
	return private_copy(rel, name);
}

/* ---- temporary directories ---- */

static char base_dir[PATH_MAX];
static pid_t base_pid;
static unsigned base_seq;

/* Where the bases live. Not /tmp by default: the namespace runner puts a
 * private tmpfs on /tmp, which would hide a fixture there from the command
 * and make every "outside" denial pass trivially (ENOENT, not a read-only
 * mount). /var/tmp is on the root file system and every user can reach it. */
static const char *base_parent(void)
{
	const char *env = getenv("SBX_E2E_BASE");
	return env && *env ? env : "/var/tmp";
}

char *e2e_tmpdir(enum e2e_user who)
{
	if (!base_dir[0] || base_pid != getpid()) {
		snprintf(base_dir, sizeof base_dir, "%s/sbx-e2e-XXXXXX", base_parent());
		cr_assert(mkdtemp(base_dir) != NULL, "e2e fixture: mkdtemp %s: %s", base_dir,
			  strerror(errno));
		cr_assert(chmod(base_dir, 0755) == 0, "e2e fixture: chmod %s: %s", base_dir,
			  strerror(errno));
		base_pid = getpid();
		base_seq = 0;
		clean_register(base_dir);
	}
	char *dir = NULL;
	cr_assert(asprintf(&dir, "%s/%s-%u", base_dir, e2e_user_name(who), base_seq++) > 0);
	cr_assert(mkdir(dir, 0755) == 0, "e2e fixture: mkdir %s: %s", dir, strerror(errno));
	cr_assert(chmod(dir, 0755) == 0, "e2e fixture: chmod %s: %s", dir, strerror(errno));
	cr_assert(chown(dir, e2e_uid(who), e2e_gid(who)) == 0, "e2e fixture: chown %s: %s", dir,
		  strerror(errno));
	return dir;
}

int e2e_mkdir(enum e2e_user who, const char *path)
{
	if (mkdir(path, 0755) != 0)
		return -errno;
	if (chmod(path, 0755) != 0 || chown(path, e2e_uid(who), e2e_gid(who)) != 0)
		return -errno;
	return 0;
}

int e2e_write_file(enum e2e_user who, const char *path, const char *content)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	size_t len = strlen(content);
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, content + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(fd);
			return -e;
		}
		off += (size_t)w;
	}
	if (fchown(fd, e2e_uid(who), e2e_gid(who)) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (close(fd) != 0)
		return -errno;
	return 0;
}

char *e2e_read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf)
			break;
		if (len == cap) {
			cap *= 2;
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (r == 0) {
			buf[len] = '\0';
			break;
		}
		len += (size_t)r;
	}
	close(fd);
	return buf;
}

bool e2e_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* ---- running programs ---- */

/* The environment the child gets: ours, extra entries replacing same-named
 * ones, and HOME=/ for nobody (root's HOME is not nobody's to use). Built in
 * the parent so the child only calls async-signal-safe functions. */
static char **build_env(enum e2e_user who, char *const extra[])
{
	size_t n = 0, n_extra = 0;
	while (environ && environ[n])
		n++;
	while (extra && extra[n_extra])
		n_extra++;
	char **env = calloc(n + n_extra + 2, sizeof *env);
	cr_assert_not_null(env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool replaced = who == AS_NOBODY && klen == 4 && strncmp(environ[i], "HOME", 4) == 0;
		for (size_t j = 0; j < n_extra && !replaced; j++)
			if (strncmp(extra[j], environ[i], klen) == 0 && extra[j][klen] == '=')
				replaced = true;
		if (!replaced)
			env[k++] = environ[i];
	}
	bool extra_home = false;
	for (size_t j = 0; j < n_extra; j++)
		extra_home = extra_home || strncmp(extra[j], "HOME=", 5) == 0;
	if (who == AS_NOBODY && !extra_home)
		env[k++] = "HOME=/";
	for (size_t j = 0; j < n_extra; j++)
		env[k++] = extra[j];
	env[k] = NULL;
	return env;
}

static void child_fail(int errfd, const char *what)
{
	/* async-signal-safe report on the captured stderr */
	const char *e = strerror(errno);
	if (write(errfd, "e2e child: ", 11) < 0 || write(errfd, what, strlen(what)) < 0 ||
	    write(errfd, ": ", 2) < 0 || write(errfd, e, strlen(e)) < 0 || write(errfd, "\n", 1) < 0)
		_exit(127);
	_exit(127);
}

/* In the child: become who, in dir, with the given stdio, then exec. */
static void child_exec(enum e2e_user who, const char *dir, int in, int out, int err,
		       char *const argv[], char **env)
{
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	close_range(3, ~0U, 0);
	signal(SIGPIPE, SIG_DFL);
	if (who == AS_NOBODY) {
		if (setgroups(0, NULL) != 0)
			child_fail(2, "setgroups");
		if (setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) != 0)
			child_fail(2, "setresgid");
		if (setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID) != 0)
			child_fail(2, "setresuid");
	}
	if (chdir(dir ? dir : "/") != 0)
		child_fail(2, "chdir");
	execvpe(argv[0], argv, env);
	child_fail(2, argv[0]);
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t nc = *cap ? *cap : 4096;
		while (nc < *len + n + 1)
			nc *= 2;
		char *nb = realloc(*buf, nc);
		cr_assert_not_null(nb, "e2e fixture: out of memory");
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int e2e_run_in(enum e2e_user who, const char *dir, char *const argv[], char *const extra_env[],
	       struct e2e_out *out)
{
	memset(out, 0, sizeof *out);
	int po[2], pe[2];
	cr_assert(pipe2(po, O_CLOEXEC) == 0 && pipe2(pe, O_CLOEXEC) == 0,
		  "e2e fixture: pipe: %s", strerror(errno));
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert(devnull >= 0, "e2e fixture: /dev/null: %s", strerror(errno));
	char **env = build_env(who, extra_env);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0, "e2e fixture: fork: %s", strerror(errno));
	if (pid == 0)
		child_exec(who, dir, devnull, po[1], pe[1], argv, env);
	free(env);
	close(devnull);
	close(po[1]);
	close(pe[1]);

	size_t ocap = 0, ecap = 0;
	append(&out->out, &out->out_len, &ocap, "", 0);
	append(&out->err, &out->err_len, &ecap, "", 0);
	struct pollfd pfd[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
	long long deadline = now_ms() + RUN_TIMEOUT_MS;
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			cr_assert_fail("e2e fixture: %s did not finish within %d s (or left its output "
				 "pipes open); stderr so far:\n%s",
				 argv[0], RUN_TIMEOUT_MS / 1000, out->err);
		}
		int r = poll(pfd, 2, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		cr_assert(r >= 0, "e2e fixture: poll: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			char buf[65536];
			ssize_t n = read(pfd[i].fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				continue;
			}
			if (i == 0)
				append(&out->out, &out->out_len, &ocap, buf, (size_t)n);
			else
				append(&out->err, &out->err_len, &ecap, buf, (size_t)n);
		}
	}
	int st;
	while (waitpid(pid, &st, 0) < 0) {
		cr_assert(errno == EINTR, "e2e fixture: waitpid: %s", strerror(errno));
	}
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return out->status;
}

int e2e_run(enum e2e_user who, char *const argv[], char *const extra_env[], struct e2e_out *out)
{
	return e2e_run_in(who, "/", argv, extra_env, out);
}

int e2e_sbx_run(enum e2e_user who, struct e2e_out *out, ...)
{
	char *argv[128];
	size_t n = 0;
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	va_list ap;
	va_start(ap, out);
	for (char *a; (a = va_arg(ap, char *)) != NULL;) {
		cr_assert(n < 127, "e2e fixture: too many sbx arguments");
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	return e2e_run(who, argv, NULL, out);
}

pid_t e2e_spawn(enum e2e_user who, const char *dir, char *const argv[])
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	cr_assert(devnull >= 0, "e2e fixture: /dev/null: %s", strerror(errno));
	char **env = build_env(who, NULL);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0, "e2e fixture: fork: %s", strerror(errno));
	if (pid == 0)
		child_exec(who, dir, devnull, devnull, devnull, argv, env);
	free(env);
	close(devnull);
	return pid;
}

int e2e_in_child_as(enum e2e_user who, int (*fn)(const void *), const void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "e2e fixture: fork: %s", strerror(errno));
	if (pid == 0) {
		if (who == AS_NOBODY &&
		    (setgroups(0, NULL) < 0 || setresgid(e2e_gid(who), e2e_gid(who), e2e_gid(who)) < 0 ||
		     setresuid(e2e_uid(who), e2e_uid(who), e2e_uid(who)) < 0))
			_exit(5);
		prctl(PR_SET_DUMPABLE, 1);
		_exit(fn(arg));
	}
	cr_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
		  "e2e fixture: the child as %s did not exit (%s %d)", e2e_user_name(who),
		  WIFSIGNALED(status) ? "signal" : "status", WIFSIGNALED(status) ? WTERMSIG(status) : status);
	return WEXITSTATUS(status);
}

void e2e_out_free(struct e2e_out *out)
{
	free(out->out);
	free(out->err);
	out->out = out->err = NULL;
	out->out_len = out->err_len = 0;
}

char *e2e_fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	cr_assert(vasprintf(&s, f, ap) > 0, "vasprintf");
	va_end(ap);
	return s;
}

/* ---- what the kernel under test offers ---- */

bool e2e_runner_expected(const char *runner)
{
	const char *list = getenv("SBX_E2E_RUNNERS");
	size_t n = strlen(runner);

	if (!list)
		return true;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && strncmp(p, runner, n) == 0)
			return true;
		p += len + (comma ? 1 : 0);
	}
	return false;
}

void e2e_require_runner(enum e2e_user who, const char *runner)
{
	if (e2e_runner_expected(runner))
		return;
	char *dir = e2e_tmpdir(who);
	char *ran = e2e_fmt("%s/ran", dir);
	char *cmd = e2e_fmt("touch %s", ran);
	const char *modes[] = {"workspace-write", "read-only"};

	for (size_t i = 0; i < 2; i++) {
		char *argv[] = {(char *)e2e_sbx(), "run", "--runner", (char *)runner, "--mode",
				(char *)modes[i], "--root", dir, "--", cmd, NULL};
		struct e2e_out o;

		e2e_run(who, argv, NULL, &o);
		cr_assert(o.status == 125 && strstr(o.err, "SANDBOX_UNAVAILABLE") &&
				  strstr(o.err, runner),
			  "[%s %s] SBX_E2E_RUNNERS=%s says this kernel lacks the %s runner, but "
			  "sbx did not refuse it (%s, exit %d)\nstderr:\n%s",
			  runner, e2e_user_name(who), getenv("SBX_E2E_RUNNERS"), runner, modes[i],
			  o.status, o.err);
		cr_assert(!e2e_exists(ran), "[%s %s] sbx refused but the command ran (%s exists)",
			  runner, e2e_user_name(who), ran);
		e2e_out_free(&o);
	}
	cr_skip_test("the %s runner is not offered here (SBX_E2E_RUNNERS=%s): sbx refused it "
		     "with SANDBOX_UNAVAILABLE and ran nothing, as it must",
		     runner, getenv("SBX_E2E_RUNNERS"));
}

int e2e_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1 /* VERSION */);

	return abi > 0 ? (int)abi : 0;
}

unsigned long long e2e_caps_kept(enum e2e_user who)
{
	/* CAP_CHOWN (0), CAP_DAC_OVERRIDE (1), CAP_FOWNER (3) */
	const unsigned long long root_keeps = 0xbULL;
	unsigned long long eff = 0;
	char *status = e2e_read_file("/proc/self/status");
	const char *line = status ? strstr(status, "\nCapEff:") : NULL;

	cr_assert_not_null(line, "e2e fixture: no CapEff in /proc/self/status");
	eff = strtoull(line + strlen("\nCapEff:"), NULL, 16);
	free(status);
	return e2e_uid(who) == 0 ? root_keeps & eff : 0;
}
