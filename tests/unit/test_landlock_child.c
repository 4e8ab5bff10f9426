/* SPDX-License-Identifier: MIT */
/* The Landlock ruleset, the capability drop and the landlock runner, applied
 * for real in a forked child; every effect is checked from the parent, on
 * disk. Each case runs as root and again as nobody (Landlock must work
 * unprivileged). Also the nofeature fault-injection helper.
 *
 * The child reports through its exit status: 0, or the number of the step
 * that did not behave (with a line on stderr). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "caps.h"
#include "landlock.h"
#include "runner.h"

#define NOBODY 65534

/* The lead's child.c provides the real one; this keeps the test standalone. */
__attribute__((weak)) int child_status_set(struct child_status *st,
					   enum child_stage stage, int err,
					   const char *what, const char *path)
{
	st->stage = stage;
	st->err = err;
	snprintf(st->what, sizeof(st->what), "%s%s%s", what ? what : "",
		 path ? " " : "", path ? path : "");
	return -1;
}

/* Re-exec mode for the nofeature tests: `SBX_TL_SYSCALL=name this-binary`
 * tries one system call and exits with its errno (0 on success). */
__attribute__((constructor)) static void syscall_probe_mode(void)
{
	const char *name = getenv("SBX_TL_SYSCALL");
	if (!name)
		return;
	long rc;
	if (strcmp(name, "landlock") == 0) {
		char reason[128] = "";
		int abi = landlock_abi_probe(reason, sizeof(reason));
		fprintf(stderr, "landlock probe: %d %s\n", abi, reason);
		_exit(abi >= 1 ? 0 : -abi);
	} else if (strcmp(name, "io_uring_setup") == 0) {
		char params[120]; /* struct io_uring_params */
		memset(params, 0, sizeof(params));
		rc = syscall(__NR_io_uring_setup, 1, params);
	} else if (strcmp(name, "mount_setattr") == 0) {
		/* Invalid arguments: EINVAL or EBADF if the call exists, ENOSYS if
		 * filtered. */
		rc = syscall(442 /* __NR_mount_setattr, x86_64 */, -1, "", 0, NULL, 0);
	} else {
		_exit(250);
	}
	_exit(rc >= 0 ? 0 : errno);
}

enum as { AS_ROOT, AS_NOBODY };

static struct {
	char dir[64];
	char w[96], t[96], out[96];
} fx;

static char paths[8][160];

static char *p(const char *rel)
{
	static int slot;
	char *buf = paths[slot++ % 8];
	snprintf(buf, sizeof(paths[0]), "%s/%s", fx.dir, rel);
	return buf;
}

static void put(const char *rel, const char *content)
{
	FILE *f = fopen(p(rel), "w");
	cr_assert(f, "fopen %s: %s", rel, strerror(errno));
	fputs(content, f);
	fclose(f);
}

/* The file's content, or "<absent>". */
static const char *get(const char *rel)
{
	static char buf[256];
	FILE *f = fopen(p(rel), "r");
	if (!f)
		return "<absent>";
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static bool exists(const char *rel)
{
	struct stat sb;
	return lstat(p(rel), &sb) == 0;
}

static int chown_one(const char *path, const struct stat *sb, int type,
		     struct FTW *ftw)
{
	(void)sb, (void)type, (void)ftw;
	return lchown(path, NOBODY, NOBODY);
}

static int rm_one(const char *path, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb, (void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* A private tree: w/ (the write dir, with a/ b/ and a file), t/ (a second
 * write dir), out/ (outside, with a file). Owned by nobody for AS_NOBODY so
 * that only Landlock can be what refuses. */
static void fx_setup(enum as as)
{
	if (as == AS_ROOT && geteuid() != 0)
		cr_skip_test("needs root");
	strcpy(fx.dir, "/tmp/sbx-ll-XXXXXX");
	cr_assert(mkdtemp(fx.dir), "mkdtemp: %s", strerror(errno));
	snprintf(fx.w, sizeof(fx.w), "%s/w", fx.dir);
	snprintf(fx.t, sizeof(fx.t), "%s/t", fx.dir);
	snprintf(fx.out, sizeof(fx.out), "%s/out", fx.dir);
	cr_assert(chmod(fx.dir, 0755) == 0);
	const char *dirs[] = {"w", "w/a", "w/b", "t", "out"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cr_assert(mkdir(p(dirs[i]), 0755) == 0, "mkdir %s", dirs[i]);
	put("w/file", "inside\n");
	put("w/a/f", "af\n");
	put("out/file", "outside\n");
	if (as == AS_NOBODY && geteuid() == 0)
		cr_assert(nftw(fx.dir, chown_one, 16, FTW_PHYS) == 0);
}

static void fx_teardown(void)
{
	if (fx.dir[0])
		nftw(fx.dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int kernel_abi(void)
{
	char reason[128];
	int abi = landlock_abi_probe(reason, sizeof(reason));
	if (abi < 1)
		cr_skip_test("Landlock unavailable: %s", reason);
	return abi < SBX_LANDLOCK_ABI_KNOWN ? abi : SBX_LANDLOCK_ABI_KNOWN;
}

static void need_abi(int abi)
{
	if (kernel_abi() < abi)
		cr_skip_test("this kernel lacks Landlock ABI %d", abi);
}

static void become(enum as as)
{
	if (as != AS_NOBODY || geteuid() != 0)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0) {
		perror("become nobody");
		_exit(99);
	}
}

/* Fork; in the child become `as` and run fn. Returns the child's exit status
 * (or 200 + signal). */
static int in_child(enum as as, int (*fn)(void *), void *arg)
{
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		become(as);
		_exit(fn(arg));
	}
	int ws;
	cr_assert(waitpid(pid, &ws, 0) == pid);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 200 + WTERMSIG(ws);
}

static int enforce(int abi, const char *const *dirs, size_t n)
{
	struct child_status st;
	memset(&st, 0, sizeof(st));
	if (landlock_enforce(abi, dirs, n, &st) < 0) {
		fprintf(stderr, "landlock_enforce: stage %d: %s: %s\n", st.stage,
			st.what, strerror(st.err));
		_exit(100);
	}
	return 0;
}

/* Step n expects rc >= 0 (want == 0) or failure with errno want. */
#define STEP(n, call, want)                                                    \
	do {                                                                   \
		errno = 0;                                                     \
		long rc_ = (long)(call);                                       \
		int e_ = errno, w_ = (want);                                   \
		if (w_ == 0 ? rc_ < 0 : (rc_ >= 0 || e_ != w_)) {          \
			fprintf(stderr, "step %d: %s: rc %ld, %s (want %s)\n", \
				n, #call, rc_, strerror(e_),                   \
				w_ ? strerror(w_) : "success");                \
			return n;                                              \
		}                                                              \
		if (rc_ >= 0 && strncmp(#call, "open(", 5) == 0)               \
			close((int)rc_);                                       \
	} while (0)

static int write_all(const char *path, int flags, const char *s)
{
	int fd = open(path, flags, 0644);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

#define BOTH(name)                                                             \
	static void name(enum as as);                                          \
	Test(landlock, name##_root, .fini = fx_teardown) { name(AS_ROOT); }    \
	Test(landlock, name##_nobody, .fini = fx_teardown) { name(AS_NOBODY); }

/* ---- writes inside the write dir work ---- */

static int inside_ops(void *arg)
{
	int abi = *(int *)arg;
	const char *dirs[] = {fx.w};
	enforce(abi, dirs, 1);
	STEP(1, write_all(p("w/new"), O_WRONLY | O_CREAT | O_EXCL, "new\n"), 0);
	STEP(2, write_all(p("w/file"), O_WRONLY | O_APPEND, "more\n"), 0);
	STEP(3, truncate(p("w/new"), 1), 0);
	STEP(4, write_all(p("w/trunc"), O_WRONLY | O_CREAT | O_TRUNC, "t\n"), 0);
	STEP(5, write_all(p("w/trunc"), O_WRONLY | O_TRUNC, "T\n"), 0);
	STEP(6, mkdir(p("w/d"), 0755), 0);
	STEP(7, rename(p("w/file"), p("w/file2")), 0);
	STEP(8, rename(p("w/a/f"), p("w/b/f")), 0); /* REFER, ABI 2+ */
	STEP(9, symlink("file2", p("w/link")), 0);
	STEP(10, mkfifo(p("w/fifo"), 0644), 0);
	STEP(11, unlink(p("w/new")), 0);
	STEP(12, rmdir(p("w/d")), 0);
	return 0;
}

BOTH(inside_write_ok)
static void inside_write_ok(enum as as)
{
	fx_setup(as);
	int abi = kernel_abi();
	need_abi(2);
	cr_assert_eq(in_child(as, inside_ops, &abi), 0);
	cr_assert_str_eq(get("w/file2"), "inside\nmore\n");
	cr_assert_str_eq(get("w/trunc"), "T\n");
	cr_assert_str_eq(get("w/b/f"), "af\n");
	cr_assert(!exists("w/new") && !exists("w/d") && !exists("w/file"));
	cr_assert(exists("w/link") && exists("w/fifo"));
}

/* ---- writes outside it fail with EACCES ---- */

static int outside_ops(void *arg)
{
	int abi = *(int *)arg;
	const char *dirs[] = {fx.w};
	enforce(abi, dirs, 1);
	STEP(1, open(p("out/new"), O_WRONLY | O_CREAT, 0644), EACCES);
	STEP(2, open(p("out/file"), O_WRONLY | O_APPEND), EACCES);
	STEP(3, open(p("out/file"), O_RDWR), EACCES);
	STEP(4, open(p("out/file"), O_WRONLY | O_TRUNC), EACCES);
	STEP(5, unlink(p("out/file")), EACCES);
	STEP(6, rename(p("out/file"), p("out/file2")), EACCES);
	STEP(7, mkdir(p("out/d"), 0755), EACCES);
	STEP(8, symlink("file", p("out/link")), EACCES);
	STEP(9, mkfifo(p("out/fifo"), 0644), EACCES);
	STEP(10, rename(p("w/file"), p("out/moved")), EACCES);
	STEP(11, rename(p("out/file"), p("w/stolen")), EACCES);
	STEP(12, open(p("new-in-fixture"), O_WRONLY | O_CREAT, 0644), EACCES);
	/* The write dir's parent: its entry for w/ cannot be removed. */
	STEP(13, rename(fx.w, p("w-moved")), EACCES);
	if (abi >= 3)
		STEP(14, truncate(p("out/file"), 0), EACCES);
	return 0;
}

BOTH(outside_write_denied)
static void outside_write_denied(enum as as)
{
	fx_setup(as);
	int abi = kernel_abi();
	cr_assert_eq(in_child(as, outside_ops, &abi), 0);
	cr_assert_str_eq(get("out/file"), "outside\n");
	const char *absent[] = {"out/new", "out/file2", "out/d", "out/link",
				"out/fifo", "out/moved", "w/stolen",
				"new-in-fixture", "w-moved"};
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		cr_assert(!exists(absent[i]), "%s was created", absent[i]);
	cr_assert_str_eq(get("w/file"), "inside\n");
}

/* ---- ABI 1: no REFER, a rename between directories is EXDEV ---- */

static int abi1_ops(void *arg)
{
	(void)arg;
	const char *dirs[] = {fx.w};
	enforce(1, dirs, 1);
	STEP(1, rename(p("w/a/f"), p("w/b/f")), EXDEV);
	STEP(2, link(p("w/a/f"), p("w/b/g")), EXDEV);
	STEP(3, rename(p("w/a/f"), p("w/a/g")), 0); /* same directory */
	return 0;
}

BOTH(abi1_cross_dir_rename_exdev)
static void abi1_cross_dir_rename_exdev(enum as as)
{
	fx_setup(as);
	kernel_abi();
	cr_assert_eq(in_child(as, abi1_ops, NULL), 0);
	cr_assert(!exists("w/b/f") && !exists("w/b/g") && !exists("w/a/f"));
	cr_assert_str_eq(get("w/a/g"), "af\n");
}

/* ---- truncate(2): unrestricted before ABI 3 (partial), denied from 3 ---- */

static int truncate_ops(void *arg)
{
	int abi = *(int *)arg;
	const char *dirs[] = {fx.w};
	enforce(abi, dirs, 1);
	STEP(1, truncate(p("out/file"), 3), abi >= 3 ? EACCES : 0);
	/* Opening for writing stays denied either way. */
	STEP(2, open(p("out/file"), O_WRONLY | O_TRUNC), EACCES);
	return 0;
}

BOTH(truncate_abi2_partial)
static void truncate_abi2_partial(enum as as)
{
	fx_setup(as);
	need_abi(2);
	int abi = 2;
	cr_assert_eq(in_child(as, truncate_ops, &abi), 0);
	cr_assert_str_eq(get("out/file"), "out");
}

BOTH(truncate_abi3_denied)
static void truncate_abi3_denied(enum as as)
{
	fx_setup(as);
	need_abi(3);
	int abi = 3;
	cr_assert_eq(in_child(as, truncate_ops, &abi), 0);
	cr_assert_str_eq(get("out/file"), "outside\n");
}

/* ---- /dev/null takes writes (with O_TRUNC) under every ABI, read-only ---- */

static int devnull_ops(void *arg)
{
	int abi = *(int *)arg;
	enforce(abi, NULL, 0);
	STEP(1, write_all("/dev/null", O_WRONLY | O_TRUNC, "x"), 0);
	STEP(2, write_all("/dev/null", O_WRONLY | O_CREAT | O_TRUNC, "x"), 0);
	STEP(3, write_all("/dev/null", O_RDWR | O_APPEND, "x"), 0);
	STEP(4, open(p("w/new"), O_WRONLY | O_CREAT, 0644), EACCES);
	STEP(5, open("/dev/zero", O_WRONLY), EACCES);
	/* Device ioctls are refused from ABI 5 on (IOCTL_DEV not granted: a
	 * device opened read-only, such as the caller's terminal, must not be
	 * reconfigured); before ABI 5 Landlock cannot refuse them and the
	 * kernel answers as usual (ENOTTY for /dev/zero). /dev/null keeps them. */
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	struct termios tio;
	STEP(6, fd, 0);
	STEP(7, ioctl(fd, TCGETS, &tio), abi >= 5 ? EACCES : ENOTTY);
	close(fd);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	STEP(8, fd, 0);
	STEP(9, ioctl(fd, TCGETS, &tio), ENOTTY);
	close(fd);
	return 0;
}

BOTH(devnull_writable_every_abi)
static void devnull_writable_every_abi(enum as as)
{
	fx_setup(as);
	int max = kernel_abi();
	for (int abi = 1; abi <= max; abi++)
		cr_assert_eq(in_child(as, devnull_ops, &abi), 0, "abi %d", abi);
	cr_assert(!exists("w/new"));
}

/* ---- reading and executing outside still work ---- */

static int read_exec_ops(void *arg)
{
	int abi = *(int *)arg;
	const char *dirs[] = {fx.w};
	enforce(abi, dirs, 1);
	struct child_status st;
	if (caps_drop_all(&st) < 0)
		return 90;
	char buf[32] = "";
	int fd = open(p("out/file"), O_RDONLY | O_CLOEXEC);
	STEP(1, fd, 0);
	STEP(2, read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	if (strcmp(buf, "outside\n") != 0)
		return 3;
	DIR *d = opendir("/usr/bin");
	STEP(4, d ? 0 : -1, 0);
	closedir(d);
	execl("/bin/true", "true", (char *)NULL);
	return 5;
}

BOTH(read_and_exec_outside)
static void read_and_exec_outside(enum as as)
{
	fx_setup(as);
	int abi = kernel_abi();
	cr_assert_eq(in_child(as, read_exec_ops, &abi), 0);
}

/* ---- caps_drop_all ---- */

/* CapEff CapPrm CapBnd CapAmb NoNewPrivs of /proc/self/status, into v. */
static int read_status(const char *path, unsigned long long v[5])
{
	static const char *keys[] = {"CapEff:", "CapPrm:", "CapBnd:", "CapAmb:",
				     "NoNewPrivs:"};
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[256];
	int found = 0;
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 5; i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0) {
				v[i] = strtoull(line + strlen(keys[i]), NULL,
						i == 4 ? 10 : 16);
				found++;
			}
	fclose(f);
	return found == 5 ? 0 : -1;
}

static int caps_ops(void *arg)
{
	enum as as = *(enum as *)arg;
	struct child_status st;
	memset(&st, 0, sizeof(st));
	if (caps_drop_all(&st) < 0) {
		fprintf(stderr, "caps_drop_all: %s: %s\n", st.what, strerror(st.err));
		return 90;
	}
	unsigned long long v[5];
	if (read_status("/proc/self/status", v) < 0)
		return 91;
	fprintf(stderr, "eff %llx prm %llx bnd %llx amb %llx nnp %llu\n", v[0],
		v[1], v[2], v[3], v[4]);
	if (v[0] || v[1] || v[3] || v[4] != 1)
		return 92;
	if (as == AS_ROOT) {
		if (v[2])
			return 93;
		int sb = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		int want = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
			   SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
			   SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
			   SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
		if ((sb & want) != want)
			return 94;
	}
	/* After exec too: root must not regain a permitted set. */
	int fd = open(p("status-after-exec"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 1) < 0)
		return 95;
	execl("/bin/cat", "cat", "/proc/self/status", (char *)NULL);
	return 96;
}

BOTH(caps_dropped)
static void caps_dropped(enum as as)
{
	fx_setup(as);
	cr_assert_eq(in_child(as, caps_ops, &as), 0);
	unsigned long long v[5];
	cr_assert_eq(read_status(p("status-after-exec"), v), 0);
	cr_assert_eq(v[0], 0, "CapEff %llx after exec", v[0]);
	cr_assert_eq(v[1], 0, "CapPrm %llx after exec", v[1]);
	cr_assert_eq(v[3], 0, "CapAmb %llx after exec", v[3]);
	cr_assert_eq(v[4], 1, "NoNewPrivs %llu after exec", v[4]);
	if (as == AS_ROOT)
		cr_assert_eq(v[2], 0, "CapBnd %llx after exec", v[2]);
}

/* ---- the runner ---- */

static int runner_ops_child(void *arg)
{
	struct child_spec *spec = arg;
	struct child_status st;
	memset(&st, 0, sizeof(st));
	if (runner_landlock.enter(spec, &st) < 0) {
		fprintf(stderr, "enter: %s: %s\n", st.what, strerror(st.err));
		return 90;
	}
	int want = spec->mode == SBX_MODE_WORKSPACE_WRITE ? 0 : EACCES;
	STEP(1, write_all(p("w/x"), O_WRONLY | O_CREAT, "x"), want);
	STEP(2, write_all(p("t/x"), O_WRONLY | O_CREAT, "x"), want);
	STEP(3, write_all(p("out/x"), O_WRONLY | O_CREAT, "x"), EACCES);
	STEP(4, write_all("/dev/null", O_WRONLY | O_TRUNC, "x"), 0);
	STEP(5, read(open(p("out/file"), O_RDONLY), (char[8]){0}, 8), 0);
	return 0;
}

BOTH(runner_enter_modes)
static void runner_enter_modes(enum as as)
{
	fx_setup(as);
	struct child_spec spec;
	memset(&spec, 0, sizeof(spec));
	spec.root = fx.w;
	spec.tmp_dir = fx.t;
	spec.landlock_abi = kernel_abi();
	spec.mode = SBX_MODE_WORKSPACE_WRITE;
	spec.root_fd = open(fx.w, O_PATH | O_DIRECTORY | O_CLOEXEC);
	spec.landlock_ruleset_fd = spec.full_map_fd = -1;
	cr_assert(spec.root_fd >= 0);
	char reason[256] = "";
	/* The runner's ruleset is built by the parent (prepare), enforced by
	 * the child, released by the parent. */
	cr_assert_eq(runner_landlock.prepare(&spec, reason, sizeof(reason)), 0, "%s", reason);
	cr_assert_eq(in_child(as, runner_ops_child, &spec), 0);
	runner_landlock.release(&spec);
	cr_assert_eq(spec.landlock_ruleset_fd, -1);
	cr_assert(exists("w/x") && exists("t/x") && !exists("out/x"));
	unlink(p("w/x"));
	unlink(p("t/x"));
	spec.mode = SBX_MODE_READ_ONLY;
	cr_assert_eq(runner_landlock.prepare(&spec, reason, sizeof(reason)), 0, "%s", reason);
	cr_assert_eq(in_child(as, runner_ops_child, &spec), 0);
	runner_landlock.release(&spec);
	cr_assert(!exists("w/x") && !exists("t/x") && !exists("out/x"));
	close(spec.root_fd);
}

Test(landlock, runner_table)
{
	char reason[128] = "";
	cr_assert_str_eq(runner_landlock.name, "landlock");
	cr_assert_eq(runner_landlock.id, SBX_RUNNER_LANDLOCK);
	cr_assert_eq(runner_landlock.dialects, DIALECT_EACCES | DIALECT_EXDEV);
	int abi = landlock_abi_probe(reason, sizeof(reason));
	cr_assert_eq(runner_landlock.probe(reason, sizeof(reason)),
		     abi >= 1 ? 0 : abi, "%s", reason);
	struct child_spec spec;
	memset(&spec, 0, sizeof(spec));
	cr_assert_eq(runner_landlock.clone_flags(&spec), 0);
	spec.supervised = true;
	spec.landlock_abi = 2;
	cr_assert_eq(runner_landlock.enforcement(&spec), SBX_ENFORCEMENT_PARTIAL);
	spec.landlock_abi = 3;
	cr_assert_eq(runner_landlock.enforcement(&spec), SBX_ENFORCEMENT_FULL);
	spec.landlock_abi = 7;
	cr_assert_eq(runner_landlock.enforcement(&spec), SBX_ENFORCEMENT_FULL);
	/* metadata is the supervisor's: without it, partial at any ABI */
	spec.supervised = false;
	cr_assert_eq(runner_landlock.enforcement(&spec), SBX_ENFORCEMENT_PARTIAL);
}

Test(landlock, fs_rights_per_abi)
{
	cr_assert_eq(landlock_fs_rights(0), 0);
	cr_assert_eq(landlock_fs_rights(1), 0x1fff);
	cr_assert_eq(landlock_fs_rights(2), 0x3fff);
	cr_assert_eq(landlock_fs_rights(3), 0x7fff);
	cr_assert_eq(landlock_fs_rights(4), 0x7fff);
	cr_assert_eq(landlock_fs_rights(5), 0xffff);
	cr_assert_eq(landlock_fs_rights(6), 0xffff);
	cr_assert_eq(landlock_fs_rights(7), 0xffff);
	cr_assert_eq(landlock_fs_rights(99), 0xffff);
}

static int missing_dir_child(void *arg)
{
	(void)arg;
	const char *dirs[] = {fx.w, p("no-such-dir")};
	struct child_status st;
	memset(&st, 0, sizeof(st));
	if (landlock_enforce(kernel_abi(), dirs, 2, &st) != -1)
		return 1;
	if (st.stage != STAGE_LANDLOCK || st.err != ENOENT)
		return 2;
	if (!strstr(st.what, "no-such-dir"))
		return 3;
	return 0;
}

Test(landlock, enforce_reports_failing_path, .fini = fx_teardown)
{
	fx_setup(AS_NOBODY);
	cr_assert_eq(in_child(AS_NOBODY, missing_dir_child, NULL), 0);
}

/* ---- nofeature ---- */

static char nofeature[PATH_MAX];

static void find_nofeature(void)
{
	const char *path = getenv("SBX_NOFEATURE");
	if (!path)
		path = "tests/helpers/nofeature";
	cr_assert(realpath(path, nofeature) && access(nofeature, X_OK) == 0,
		  "%s not built (make tests/helpers/nofeature, or set SBX_NOFEATURE)",
		  path);
}

struct cmd {
	char *const *argv;
	const char *env; /* one NAME=VALUE, or NULL */
	char err[512];   /* its stderr */
};

static int run_cmd_child(void *arg)
{
	struct cmd *c = arg;
	int fd = open(p("cmd-stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 2) < 0)
		return 120;
	if (c->env)
		putenv((char *)c->env);
	execv(c->argv[0], c->argv);
	return 121;
}

static int run_cmd(enum as as, struct cmd *c)
{
	int rc = in_child(as, run_cmd_child, c);
	snprintf(c->err, sizeof(c->err), "%s", get("cmd-stderr"));
	return rc;
}

static char self[PATH_MAX];

static void nofeature_cases(enum as as)
{
	fx_setup(as);
	find_nofeature();
	cr_assert(realpath("/proc/self/exe", self));
	struct cmd c = {0};

	/* Without the helper, a user namespace works here: else the test says
	 * nothing. */
	c.argv = (char *const[]){"/usr/bin/unshare", "-U", "true", NULL};
	if (run_cmd(as, &c) != 0)
		cr_skip_test("user namespaces unavailable here: %s", c.err);
	c.argv = (char *const[]){nofeature, "userns", "--", "unshare", "-U", "true", NULL};
	cr_assert_neq(run_cmd(as, &c), 0);
	cr_assert(strstr(c.err, "Operation not permitted"), "%s", c.err);
	c.argv = (char *const[]){nofeature, "userns", "--", "/bin/true", NULL};
	cr_assert_eq(run_cmd(as, &c), 0, "%s", c.err);
	c.argv = (char *const[]){nofeature, "netns", "--", "unshare", "-Un", "true", NULL};
	cr_assert_neq(run_cmd(as, &c), 0);

	c.argv = (char *const[]){nofeature, "landlock", "--", self, NULL};
	c.env = "SBX_TL_SYSCALL=landlock";
	cr_assert_eq(run_cmd(as, &c), ENOSYS, "%s", c.err);
	cr_assert(strstr(c.err, "not supported by this kernel"), "%s", c.err);
	c.argv = (char *const[]){self, NULL};
	cr_assert_eq(run_cmd(as, &c), 0, "%s", c.err);

	c.argv = (char *const[]){nofeature, "io_uring,mount_setattr", "--", self, NULL};
	c.env = "SBX_TL_SYSCALL=io_uring_setup";
	cr_assert_eq(run_cmd(as, &c), EPERM, "%s", c.err);
	c.env = "SBX_TL_SYSCALL=mount_setattr";
	cr_assert_eq(run_cmd(as, &c), ENOSYS, "%s", c.err);
	c.argv = (char *const[]){self, NULL};
	int rc = run_cmd(as, &c); /* EINVAL (size 0) or EBADF: it exists */
	cr_assert(rc != ENOSYS && rc < 120, "mount_setattr: %d", rc);
	c.env = NULL;

	c.argv = (char *const[]){nofeature, "userns,bogus", "--", "/bin/true", NULL};
	cr_assert_eq(run_cmd(as, &c), 125);
	cr_assert_str_eq(c.err, "nofeature: unknown feature 'bogus'\n");
	c.argv = (char *const[]){nofeature, "userns", "/bin/true", NULL};
	cr_assert_eq(run_cmd(as, &c), 125);
	cr_assert(strstr(c.err, "usage: nofeature"), "%s", c.err);
}

BOTH(nofeature_helper)
static void nofeature_helper(enum as as)
{
	nofeature_cases(as);
}
