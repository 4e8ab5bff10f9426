/* SPDX-License-Identifier: MIT */
/* The namespace runner, driven directly: each case clones a child with the
 * runner's flags (it becomes the init of a new PID namespace), which enters
 * the runner, confines itself as the command's process would and execs
 * /bin/sh with a probe script. Effects are checked from
 * outside, on disk, in a private fixture. Every containment case runs as root
 * and as nobody. Older kernels are simulated with a seccomp filter that
 * fails mount_setattr (and open_tree, move_mount) with ENOSYS. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock.h"
#include "ns_view.h"
#include "runner.h"

#define NOBODY 65534
#define STACK_SIZE (256 * 1024)
#define SCRATCH_SIZE (256 * 1024)

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

enum { BLOCK_SETATTR = 1, BLOCK_OPEN_TREE = 2 };

struct fixture {
	char dir[128];     /* host dir, never writable from the sandbox */
	char ws[160];      /* the workspace root */
	char outside[160]; /* a host file outside the root */
	char wsfile[192];
	char hosttmp[128]; /* a host file in /tmp */
	char hostvar[128]; /* a host file outside /tmp, whatever the base */
	char tmpname[64];  /* what the script writes in /tmp */
	pid_t sleeper;     /* a process outside the sandbox */
};

struct run {
	enum sbx_mode mode;
	const char *root;
	const char *cwd;
	bool nobody;
	unsigned block;
	int landlock_abi; /* -1: the kernel's */
	const char *script;
	char *const *envp;
	/* out */
	int exit_code; /* of sh; -1 if setup failed */
	struct child_status st;
	char log[16384];
};

struct clone_ctx {
	struct child_spec spec;
	const char *script;
	int out_fd;
};

/* ---- the child, as spawn runs it ---- */

static int sandbox_main(void *arg)
{
	struct clone_ctx *c = arg;
	struct child_status st = { 0 };
	char *argv[] = { "sh", "-c", (char *)c->script, NULL };

	if (dup2(c->out_fd, 1) < 0 || dup2(c->out_fd, 2) < 0) {
		child_status_set(&st, STAGE_FDS, errno, "dup2", NULL);
		goto fail;
	}
	if (runner_namespace.enter(&c->spec, &st) < 0 || runner_namespace.confine(&c->spec, &st) < 0)
		goto fail;
	if (chdir(c->spec.cwd) < 0) {
		child_status_set(&st, STAGE_CHDIR, errno, "chdir", c->spec.cwd);
		goto fail;
	}
	execve("/bin/sh", argv, c->spec.envp);
	child_status_set(&st, STAGE_EXEC, errno, "execve", "/bin/sh");
fail:
	if (write(c->spec.status_fd, &st, sizeof(st)) < 0)
		_exit(126);
	_exit(127);
}

static void block_syscalls(unsigned block)
{
#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mount_setattr, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (block & BLOCK_OPEN_TREE) ? SYS_open_tree : SYS_mount_setattr, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (block & BLOCK_OPEN_TREE) ? SYS_move_mount : SYS_mount_setattr, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		_exit(202);
}

static void become_nobody(void)
{
	if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0)
		_exit(200);
	/* As after an exec by that user: changing ids made us non-dumpable,
	 * and a non-dumpable process's /proc/self files belong to root, so
	 * it could not write its own uid_map. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		_exit(200);
}

static int kernel_abi(void)
{
	char reason[160];
	int abi = landlock_abi_probe(reason, sizeof(reason));

	cr_assert(abi >= 1, "no Landlock here: %s", reason);
	return abi > SBX_LANDLOCK_ABI_KNOWN ? SBX_LANDLOCK_ABI_KNOWN : abi;
}

/* Run r->script confined; fills exit_code, st and log. */
static void run_sandboxed(struct run *r)
{
	int out[2], status[2];
	pid_t worker;
	ssize_t n;
	size_t len = 0;
	int ws;

	cr_assert(pipe2(out, O_CLOEXEC) == 0);
	cr_assert(pipe2(status, O_CLOEXEC) == 0);
	int abi = r->landlock_abi < 0 ? kernel_abi() : r->landlock_abi;

	worker = fork();
	cr_assert(worker >= 0);
	if (worker == 0) {
		static struct clone_ctx c;
		static struct ns_view_spec view;
		char *stack;
		int wstatus;
		pid_t pid;

		close(out[0]);
		close(status[0]);
		if (r->nobody)
			become_nobody();
		if (r->block)
			block_syscalls(r->block);
		memset(&c, 0, sizeof(c));
		c.spec.mode = r->mode;
		c.spec.root = r->root;
		c.spec.root_fd = r->root ? open(r->root, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		memset(&view, 0, sizeof(view));
		view.tmp_fd = view.cache_fd = -1;
		c.spec.view = &view;
		c.spec.cwd = r->cwd ? r->cwd : "/";
		c.spec.tmp_dir = "/tmp";
		c.spec.landlock_abi = abi;
		c.spec.uid = getuid();
		c.spec.gid = getgid();
		c.spec.runner = &runner_namespace;
		c.spec.envp = r->envp;
		c.spec.status_fd = status[1];
		c.spec.scratch = malloc(SCRATCH_SIZE);
		c.spec.scratch_size = SCRATCH_SIZE;
		c.script = r->script;
		c.out_fd = out[1];
		stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED || !c.spec.scratch)
			_exit(203);
		pid = clone(sandbox_main, stack + STACK_SIZE,
			    CLONE_VM | CLONE_VFORK | SIGCHLD | runner_namespace.clone_flags(&c.spec),
			    &c);
		if (pid < 0)
			_exit(201);
		if (waitpid(pid, &wstatus, 0) < 0)
			_exit(204);
		_exit(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus));
	}
	close(out[1]);
	close(status[1]);
	while ((n = read(out[0], r->log + len, sizeof(r->log) - 1 - len)) > 0)
		len += (size_t)n;
	r->log[len] = '\0';
	close(out[0]);
	cr_assert(waitpid(worker, &ws, 0) == worker);
	cr_assert(WIFEXITED(ws), "worker died: %d", ws);
	cr_assert(WEXITSTATUS(ws) < 200, "worker failed: %d", WEXITSTATUS(ws));
	memset(&r->st, 0, sizeof(r->st));
	n = read(status[0], &r->st, sizeof(r->st));
	close(status[0]);
	r->exit_code = n == (ssize_t)sizeof(r->st) ? -1 : WEXITSTATUS(ws);
}

/* ---- fixture ---- */

static void put_file(const char *path, const char *text, bool nobody)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
	if (nobody)
		cr_assert(chown(path, NOBODY, NOBODY) == 0);
}

static char *slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void fixture_make(struct fixture *fx, const char *base, bool nobody)
{
	snprintf(fx->dir, sizeof(fx->dir), "%s/sbxns.XXXXXX", base);
	cr_assert(mkdtemp(fx->dir), "mkdtemp: %s", strerror(errno));
	cr_assert(chmod(fx->dir, 0755) == 0);
	snprintf(fx->ws, sizeof(fx->ws), "%s/ws", fx->dir);
	cr_assert(mkdir(fx->ws, 0755) == 0);
	snprintf(fx->outside, sizeof(fx->outside), "%s/outside", fx->dir);
	snprintf(fx->wsfile, sizeof(fx->wsfile), "%s/f", fx->ws);
	snprintf(fx->hosttmp, sizeof(fx->hosttmp), "/tmp/sbxns-host-%d", (int)getpid());
	snprintf(fx->hostvar, sizeof(fx->hostvar), "/var/tmp/sbxns-out-%d", (int)getpid());
	snprintf(fx->tmpname, sizeof(fx->tmpname), "sbxns-in-%d", (int)getpid());
	put_file(fx->outside, "orig\n", nobody);
	put_file(fx->wsfile, "orig\n", nobody);
	put_file(fx->hosttmp, "orig\n", nobody);
	put_file(fx->hostvar, "orig\n", nobody);
	if (nobody) {
		/* Everything the sandbox must not write is nobody's own: only
		 * the sandbox stands in the way. */
		cr_assert(chown(fx->dir, NOBODY, NOBODY) == 0);
		cr_assert(chown(fx->ws, NOBODY, NOBODY) == 0);
	}

	/* A process outside the sandbox, same user, cwd in the fixture. */
	fx->sleeper = fork();
	cr_assert(fx->sleeper >= 0);
	if (fx->sleeper == 0) {
		if (nobody)
			become_nobody();
		if (chdir(fx->dir) < 0)
			_exit(1);
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(1);
	}
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void fixture_drop(struct fixture *fx)
{
	if (fx->sleeper > 0) {
		kill(fx->sleeper, SIGKILL);
		waitpid(fx->sleeper, NULL, 0);
	}
	nftw(fx->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	unlink(fx->hosttmp);
	unlink(fx->hostvar);
	char p[160];
	snprintf(p, sizeof(p), "/tmp/%s", fx->tmpname);
	unlink(p);
}

/* ---- the probe script and what it must show ---- */

static const char probe_script[] =
	"echo x > \"$FIX/outside\"; echo outside=$?\n"
	"echo x > \"$HOSTVAR\"; echo hostvar=$?\n"
	"echo x > \"$WS/f\"; echo ws=$?\n"
	"echo x > \"/tmp/$TMPNAME\"; echo tmp=$?\n"
	"echo x > /dev/null; echo devnull=$?\n"
	"echo x > /dev/zero; echo devzero=$?\n"
	"true > /dev/shm/x; echo shm=$?\n"
	"echo renamed > /proc/self/comm; echo comm=$?\n"
	"echo x > /dev/tty; echo tty=$?\n"
	"python3 -c 'import os; m, s = os.openpty(); print(\"pty=\" + os.ttyname(s))'\n"
	"echo ps=$(ls /proc | grep -c '^[0-9]')\n"
	"true > /dev/newfile; echo devnew=$?\n"
	"mkdir /dev/newdir; echo devmkdir=$?\n"
	"echo devls=$(ls -A /dev | tr '\\n' ' ')\n"
	"echo urandom=$(head -c 8 /dev/urandom | wc -c)\n"
	"grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status\n"
	"unshare -rm sh -c 'mount -o remount,rw / && echo x > \"$FIX/outside\"'; echo nested=$?\n"
	"unshare -rm sh -c 'umount -l /dev && echo x > /dev/sda'; echo nested_umount=$?\n"
	/* no exec between unshare and mount: the nested namespace's caps held */
	"python3 -c 'import ctypes\n"
	"l = ctypes.CDLL(None, use_errno=True)\n"
	"print(\"py_unshare=%d\" % l.unshare(0x10000000 | 0x00020000))\n"
	"print(\"py_remount=%d\" % l.mount(None, b\"/\", None, 32 | 4096, None))\n"
	"print(\"py_umount=%d\" % l.umount2(b\"/dev\", 2))\n"
	"open(\"'\"$FIX\"'/outside\", \"w\")' 2>&1 | tail -n 4; echo py_done\n"
	"echo x > \"/proc/$PID/root$FIX/outside\"; echo procroot=$?\n"
	"echo x > \"/proc/$PID/cwd/outside\"; echo proccwd=$?\n"
	"echo x > \"/proc/$PID/root$HOSTTMP\"; echo procroot_tmp=$?\n"
	"test -e \"$HOSTTMP\"; echo hosttmp_visible=$?\n"
	"echo done\n";

static char **probe_env(const struct fixture *fx, char store[8][256])
{
	static char *envp[9];

	snprintf(store[0], 256, "PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	snprintf(store[1], 256, "FIX=%s", fx->dir);
	snprintf(store[2], 256, "WS=%s", fx->ws);
	snprintf(store[3], 256, "PID=%d", (int)fx->sleeper);
	snprintf(store[4], 256, "HOSTTMP=%s", fx->hosttmp);
	snprintf(store[5], 256, "TMPNAME=%s", fx->tmpname);
	snprintf(store[6], 256, "LC_ALL=C");
	snprintf(store[7], 256, "HOSTVAR=%s", fx->hostvar);
	for (int i = 0; i < 8; i++)
		envp[i] = store[i];
	envp[8] = NULL;
	return envp;
}

static void expect(const struct run *r, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "%s\n", line);
	cr_expect(strstr(r->log, want), "expected \"%s\" in:\n%s", line, r->log);
}

static void expect_failed(const struct run *r, const char *key)
{
	char want[64];

	snprintf(want, sizeof(want), "%s=0\n", key);
	cr_expect(strstr(r->log, want) == NULL, "%s succeeded:\n%s", key, r->log);
	snprintf(want, sizeof(want), "%s=", key);
	cr_expect(strstr(r->log, want), "no %s in:\n%s", key, r->log);
}

/* Refused by the view itself (EROFS), not only by the Landlock layer (EACCES). */
static void expect_erofs(const struct run *r, const char *path)
{
	char want[256];

	snprintf(want, sizeof(want), "%s: Read-only file system\n", path);
	cr_expect(strstr(r->log, want), "expected \"%s\" in:\n%s", want, r->log);
}

static void check_file(const char *path, const char *want)
{
	char buf[64];

	cr_expect(slurp(path, buf, sizeof(buf)), "read %s", path);
	cr_expect_str_eq(buf, want, "%s changed", path);
}

/* The fixture of the running test, dropped by its .fini even when an
 * assertion ended the test early. */
static struct fixture *current;

static void drop_current(void)
{
	if (current)
		fixture_drop(current);
	current = NULL;
}

static void run_probe_with(enum sbx_mode mode, bool nobody, const char *base, unsigned block,
			   int abi);

static void run_probe(enum sbx_mode mode, bool nobody, const char *base, unsigned block)
{
	run_probe_with(mode, nobody, base, block, -1);
}

static void run_probe_abi(enum sbx_mode mode, bool nobody, int abi)
{
	run_probe_with(mode, nobody, "/var/tmp", 0, abi);
}

static void run_probe_with(enum sbx_mode mode, bool nobody, const char *base, unsigned block,
			   int abi)
{
	/* A fixture under /tmp (workspace-write) or /dev/shm (every mode) is
	 * hidden by the run's private mount there: writes to it land there,
	 * not on the host. */
	bool root_in_tmp = strcmp(base, "/tmp") == 0 ||
			   (strcmp(base, "/dev/shm") == 0 && mode == SBX_MODE_WORKSPACE_WRITE);
	static struct fixture fx;
	char store[8][256];
	struct run r = { 0 };
	char p[192];
	struct stat sb;

	if (nobody && geteuid() != 0)
		cr_skip_test("switching to nobody needs root");
	memset(&fx, 0, sizeof(fx));
	current = &fx;
	fixture_make(&fx, base, nobody);
	r.mode = mode;
	r.root = fx.ws;
	r.cwd = fx.ws;
	r.nobody = nobody;
	r.block = block;
	r.landlock_abi = abi;
	r.script = probe_script;
	r.envp = probe_env(&fx, store);
	run_sandboxed(&r);

	cr_assert(r.exit_code == 0, "setup failed: stage %d err %s: %s\n%s", r.st.stage,
		  strerror(r.st.err), r.st.what, r.log);
	expect(&r, "done");
	bool ww = mode == SBX_MODE_WORKSPACE_WRITE;

	snprintf(p, sizeof(p), "/tmp/%s", fx.tmpname);

	/* Outside the root: refused in the namespace dialect. A fixture under
	 * /tmp is hidden by the private tmpfs in workspace-write: the write
	 * lands there, not on the host. */
	if (ww && root_in_tmp)
		expect(&r, "outside=0");
	else
		expect_failed(&r, "outside");
	if (!(ww && root_in_tmp))
		expect_erofs(&r, fx.outside);
	expect_failed(&r, "hostvar");
	expect_erofs(&r, fx.hostvar);
	check_file(fx.hostvar, "orig\n");
	cr_expect(strstr(r.log, "Read-only file system"), "no EROFS text:\n%s", r.log);
	check_file(fx.outside, "orig\n");
	check_file(fx.hosttmp, "orig\n");

	if (ww) {
		expect(&r, "ws=0");
		check_file(fx.wsfile, "x\n");
		expect(&r, "tmp=0");
		/* private: the host's /tmp saw nothing and is not visible */
		expect(&r, "hosttmp_visible=1");
	} else {
		expect_failed(&r, "ws");
		expect_erofs(&r, fx.wsfile);
		check_file(fx.wsfile, "orig\n");
		expect_failed(&r, "tmp");
		expect_erofs(&r, p);
		expect(&r, "hosttmp_visible=0");
	}
	cr_expect(stat(p, &sb) < 0 && errno == ENOENT, "%s appeared on the host", p);

	/* /dev: exactly the safe nodes; only /dev/null accepts writes. */
	expect(&r, "devnull=0");
	/* A read-only mount cannot stop a write to a device node: /dev/zero
	 * takes it and discards it (the host is unchanged). */
	expect(&r, "devzero=0");
	/* A private /dev/shm and private ptys in every mode; /dev/tty with no
	 * controlling terminal says so (ENXIO), never a denial. */
	expect(&r, "shm=0");
	expect(&r, "pty=/dev/pts/0");
	expect_failed(&r, "tty");
	cr_expect(strstr(r.log, "/dev/tty: No such device or address"), "%s", r.log);
	expect_erofs(&r, "/dev/newfile");
	expect_failed(&r, "devnew");
	expect_failed(&r, "devmkdir");
	expect(&r, "devls=fd full null ptmx pts random shm stderr stdin stdout tty urandom zero");
	/* A /proc of the run's own: its own files writable, and only its own
	 * processes there (sh, the subshell, ls and grep; the host has many). */
	expect(&r, "comm=0");
	const char *ps = strstr(r.log, "ps=");

	cr_expect(ps && atoi(ps + 3) >= 1 && atoi(ps + 3) <= 6, "host processes visible:\n%s", r.log);
	expect(&r, "urandom=8");

	/* No capabilities, no way to gain them, mounts locked. */
	expect(&r, "CapEff:\t0000000000000000");
	expect(&r, "CapPrm:\t0000000000000000");
	expect(&r, "CapBnd:\t0000000000000000");
	expect(&r, "CapAmb:\t0000000000000000");
	expect(&r, "NoNewPrivs:\t1");
	expect_failed(&r, "nested");
	expect_failed(&r, "nested_umount");
	expect(&r, "py_unshare=0");
	expect(&r, "py_remount=-1");
	expect(&r, "py_umount=-1");
	expect(&r, "py_done");

	/* /proc/<pid>/root and /cwd of a process outside lead to host mounts. */
	expect_failed(&r, "procroot");
	expect_failed(&r, "proccwd");
	expect_failed(&r, "procroot_tmp");
	check_file(fx.outside, "orig\n");
	check_file(fx.hosttmp, "orig\n");
}

/* ---- pure parts ---- */

Test(ns_view, mountinfo_mount_point)
{
	char out[64];
	const char *l1 = "36 35 98:0 /mnt1 /mnt\\0402 rw,noatime master:1 - ext3 /dev/root rw";
	const char *l2 = "36 35 98:0 / /a\\134b\\011c rw - tmpfs x rw";

	cr_assert_eq(ns_mountinfo_mount_point(l1, strlen(l1), out, sizeof(out)), 6);
	cr_assert_str_eq(out, "/mnt 2");
	cr_assert_eq(ns_mountinfo_mount_point(l2, strlen(l2), out, sizeof(out)), 6);
	cr_assert_str_eq(out, "/a\\b\tc");
	cr_assert_eq(ns_mountinfo_mount_point("36 35 98:0", 10, out, sizeof(out)), -1);
	cr_assert_eq(ns_mountinfo_mount_point(l1, strlen(l1), out, 4), -1);
	cr_assert_eq(ns_mountinfo_mount_point("1 2 3 / rel rw", 14, out, sizeof(out)), -1);
	cr_assert_eq(ns_mountinfo_mount_point("1 2 3 / /x\\000 rw", 17, out, sizeof(out)), -1);
}

Test(ns_view, table)
{
	char reason[256];
	struct child_spec spec = { 0 };

	cr_assert_str_eq(runner_namespace.name, "namespace");
	cr_assert_eq(runner_namespace.id, SBX_RUNNER_NAMESPACE);
	cr_assert_eq(runner_namespace.dialects, DIALECT_EROFS | DIALECT_EBUSY | DIALECT_EXDEV);
	cr_assert_eq(runner_namespace.clone_flags(&spec),
		     CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID);
	cr_assert(runner_namespace.pid_namespace);
	struct ns_view_spec view = { .private_proc = false };

	spec.view = &view;
	spec.landlock_abi = 3;
	cr_assert_eq(runner_namespace.enforcement(&spec), SBX_ENFORCEMENT_FULL);
	spec.landlock_abi = 2;
	cr_assert_eq(runner_namespace.enforcement(&spec), SBX_ENFORCEMENT_PARTIAL);
	/* A private /proc leaves no route for Landlock to close. */
	view.private_proc = true;
	cr_assert_eq(runner_namespace.enforcement(&spec), SBX_ENFORCEMENT_FULL);
	cr_assert_eq(runner_namespace.probe(reason, sizeof(reason)), 0, "%s", reason);
}

/* ---- containment, as root and as nobody ---- */

Test(ns_view, read_only_root, .fini = drop_current)
{
	run_probe(SBX_MODE_READ_ONLY, false, "/var/tmp", 0);
}

Test(ns_view, read_only_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_READ_ONLY, true, "/var/tmp", 0);
}

Test(ns_view, workspace_write_root, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, false, "/var/tmp", 0);
}

Test(ns_view, workspace_write_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, true, "/var/tmp", 0);
}

Test(ns_view, root_under_tmp_root, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, false, "/tmp", 0);
}

Test(ns_view, root_under_tmp_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, true, "/tmp", 0);
}

/* /dev is ours too: the root's mount point is made in it before it is sealed. */
Test(ns_view, root_under_dev_shm_root, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, false, "/dev/shm", 0);
}

Test(ns_view, root_under_dev_shm_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, true, "/dev/shm", 0);
}

Test(ns_view, read_only_under_tmp_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_READ_ONLY, true, "/tmp", 0);
}


/* Kernel < 5.12: the per-mount remount walk. */
Test(ns_view, walk_read_only_root, .fini = drop_current)
{
	run_probe(SBX_MODE_READ_ONLY, false, "/var/tmp", BLOCK_SETATTR);
}

Test(ns_view, walk_read_only_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_READ_ONLY, true, "/var/tmp", BLOCK_SETATTR);
}

Test(ns_view, walk_workspace_root, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, false, "/var/tmp", BLOCK_SETATTR);
}

Test(ns_view, walk_workspace_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, true, "/var/tmp", BLOCK_SETATTR);
}


/* Kernel < 5.2 (no open_tree, move_mount): bind through /proc/self/fd. */
Test(ns_view, bind_fallback_root, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, false, "/var/tmp", BLOCK_OPEN_TREE);
}

Test(ns_view, bind_fallback_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, true, "/var/tmp", BLOCK_OPEN_TREE);
}

Test(ns_view, bind_fallback_under_tmp_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_WORKSPACE_WRITE, true, "/tmp", BLOCK_OPEN_TREE);
}

Test(ns_view, bind_fallback_read_only_nobody, .fini = drop_current)
{
	run_probe(SBX_MODE_READ_ONLY, true, "/var/tmp", BLOCK_OPEN_TREE);
}


/* ---- refusals ---- */

static void expect_setup_failure(enum sbx_mode mode, const char *root, int abi, bool nobody,
				 enum child_stage stage, int err)
{
	struct run r = { 0 };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };

	if (nobody && geteuid() != 0)
		return; /* switching to nobody needs root; the caller's leg ran */
	r.mode = mode;
	r.root = root;
	r.nobody = nobody;
	r.landlock_abi = abi;
	r.script = "echo ran";
	r.envp = envp;
	run_sandboxed(&r);
	cr_assert_eq(r.exit_code, -1, "the command ran:\n%s", r.log);
	cr_expect_eq(r.st.stage, stage, "stage %d (%s)", r.st.stage, r.st.what);
	cr_expect_eq(r.st.err, err, "err %s (%s)", strerror(r.st.err), r.st.what);
	cr_expect(strstr(r.log, "ran") == NULL);
}

/* Without Landlock (kernels before 5.13, lsm= without it) the private /proc
 * closes the /proc/<pid>/root routes: the same containment holds. */
static void run_probe_abi(enum sbx_mode mode, bool nobody, int abi);

Test(ns_view, no_landlock_read_only_root, .fini = drop_current)
{
	run_probe_abi(SBX_MODE_READ_ONLY, false, 0);
}

Test(ns_view, no_landlock_read_only_nobody, .fini = drop_current)
{
	run_probe_abi(SBX_MODE_READ_ONLY, true, 0);
}

Test(ns_view, no_landlock_workspace_root, .fini = drop_current)
{
	run_probe_abi(SBX_MODE_WORKSPACE_WRITE, false, 0);
}

Test(ns_view, no_landlock_workspace_nobody, .fini = drop_current)
{
	run_probe_abi(SBX_MODE_WORKSPACE_WRITE, true, 0);
}

/* A workspace of / or /dev would hand out the host's device nodes. */
Test(ns_view, dev_root_refused)
{
	expect_setup_failure(SBX_MODE_WORKSPACE_WRITE, "/dev", -1, false, STAGE_MOUNT, EINVAL);
	expect_setup_failure(SBX_MODE_WORKSPACE_WRITE, "/", -1, true, STAGE_MOUNT, EINVAL);
}

Test(ns_view, unconfined_mode_refused)
{
	expect_setup_failure(SBX_MODE_DANGER_FULL_ACCESS, "/var/tmp", -1, false, STAGE_MOUNT,
			     EINVAL);
}
