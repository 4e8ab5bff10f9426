/* SPDX-License-Identifier: MIT */
/* The supervisor's seccomp filter, built by hand as BPF: it is small, and
 * libseccomp 2.5 (Debian 12) knows neither fchmodat2 nor the *xattrat calls.
 *
 * Why a helper process for the handoff: the filter traps sendmsg, so the
 * child cannot send its own listener once the filter is on (it would wait
 * for an answer from sbx, which waits in vfork for it). A helper cloned just
 * before the filter shares the child's fd table (CLONE_FILES) and memory but
 * not its filter: it sends the listener for the child, then exits. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inflight.h"
#include "seccomp_notify.h"
#include "syscall_abi.h"
#include "syscall_table.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#ifndef TIOCGPTPEER
#define TIOCGPTPEER 0x5441 /* _IO('T', 0x41) */
#endif
#define NOTIFY_TIOCGPTN 0x80045430U /* _IOR('T', 0x30, unsigned int) */

#define NOTIFY_MAX_INSNS 320
#define FILE_SETATTR_NR 469
#define I386_PRCTL 172
#define RET_NOTIFY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF)
#define RET_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (ARG_LO(i) + 4)

#if defined(__x86_64__) || defined(__aarch64__)

/* The native ABI's numbers (x86-64's; arm64's), from the target's own
 * <sys/syscall.h>. The metadata calls: */
static const unsigned meta_64[] = {
#ifdef SYSCALL_ABI_LEGACY_PATHS
	SYS_chmod, SYS_chown, SYS_lchown, SYS_utime, SYS_utimes, SYS_futimesat,
#endif
	SYS_fchmod, SYS_fchmodat, NOTIFY_NR_FCHMODAT2,
	SYS_fchown, SYS_fchownat, SYS_utimensat,
	SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr, NOTIFY_NR_SETXATTRAT,
	SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr, NOTIFY_NR_REMOVEXATTRAT,
};
/* listen(2): noted, then continued (engine/supervisor_listen.c). */
static const unsigned listen_64[] = { SYS_listen };
/* Watches (inotify, fanotify): placed by us, never on a device
 * (supervisor_watch.c), under both runners: the namespace runner's /dev
 * binds the host's /dev/tty, one inode for every terminal's I/O. */
static const unsigned watch_64[] = { SYS_inotify_add_watch, SYS_fanotify_mark };
/* mkdir: noted where the sandbox refuses it, then continued
 * (supervisor_mkdir.c). The native ABI's only: i386's keeps going past us. */
static const unsigned mkdir_64[] = {
#ifdef SYSCALL_ABI_LEGACY_PATHS
	SYS_mkdir,
#endif
	SYS_mkdirat,
};

#if defined(__x86_64__)
static const unsigned watch_32[] = { 292, 339 }; /* inotify_add_watch fanotify_mark */
/* i386: the same calls by their 32-bit numbers, the 16-bit uid variants of
 * chown too, and utimensat_time64. */
static const unsigned meta_32[] = {
	15, 94, 306, NOTIFY_NR_FCHMODAT2,       /* chmod fchmod fchmodat fchmodat2 */
	182, 95, 16, 212, 207, 198, 298,         /* chown fchown lchown (16), *32, fchownat */
	30, 271, 299, 320, 412,                  /* utime utimes futimesat utimensat(_time64) */
	226, 227, 228, NOTIFY_NR_SETXATTRAT,     /* setxattr lsetxattr fsetxattr setxattrat */
	235, 236, 237, NOTIFY_NR_REMOVEXATTRAT,  /* removexattr ... removexattrat */
};
#define I386_CONNECT 362
#define I386_SENDTO 369
#define I386_SENDMSG 370
#define I386_SENDMMSG 345
#define I386_SOCKETCALL 102
#define I386_IO_URING_SETUP 425
#define I386_IOCTL 54
#endif

struct bpf_prog_buf {
	struct sock_filter insns[NOTIFY_MAX_INSNS];
	unsigned short n;
	bool overflow;
};

static void emit(struct bpf_prog_buf *b, struct sock_filter insn)
{
	if (b->n >= NOTIFY_MAX_INSNS) {
		b->overflow = true;
		return;
	}
	b->insns[b->n++] = insn;
}

/* if (A == nr) return action; */
static void emit_ret_if(struct bpf_prog_buf *b, unsigned nr, uint32_t action)
{
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
	emit(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

/* prctl(PR_SET_DUMPABLE, 0) (low words): answered 0, not done. A holds nr,
 * and does again after. */
static void emit_dumpable_stays(struct bpf_prog_buf *b, unsigned nr)
{
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 6));
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_DUMPABLE, 0, 3));
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)));
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
	emit(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0));
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

#define SET_MAX 64

struct nr_set {
	unsigned nr[SET_MAX];
	size_t n;
	unsigned short miss[SET_MAX]; /* "ja past the set" to patch */
	size_t n_miss;
};

static void set_add(struct nr_set *set, const unsigned *nrs, size_t n)
{
	for (size_t i = 0; i < n && set->n < SET_MAX; i++) {
		size_t at = set->n++;

		/* kept sorted */
		while (at > 0 && set->nr[at - 1] > nrs[i]) {
			set->nr[at] = set->nr[at - 1];
			at--;
		}
		set->nr[at] = nrs[i];
	}
}

/* A binary tree of compares over the sorted numbers [lo, hi), leaves of up
 * to four: each call (and the kernel, which runs the program for every
 * number of every ABI when the filter is attached, with interrupts off)
 * walks a handful of compares, not the whole list. A holds nr. */
static void emit_tree(struct bpf_prog_buf *b, struct nr_set *set, size_t lo, size_t hi)
{
	if (hi - lo <= 4) {
		for (size_t i = lo; i < hi; i++)
			emit_ret_if(b, set->nr[i], SECCOMP_RET_USER_NOTIF);
		if (set->n_miss < SET_MAX)
			set->miss[set->n_miss++] = b->n;
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
		return;
	}
	size_t mid = lo + (hi - lo) / 2;
	unsigned short at = b->n;

	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, set->nr[mid], 0, 0));
	emit_tree(b, set, lo, mid);
	if (!b->overflow && b->n - at - 1 > 255)
		b->overflow = true; /* too far for a conditional jump */
	else if (!b->overflow)
		b->insns[at].jt = (unsigned char)(b->n - at - 1);
	emit_tree(b, set, mid, hi);
}

/* The whole set: matching numbers return USER_NOTIF, the rest go on past. */
static void emit_set(struct bpf_prog_buf *b, struct nr_set *set)
{
	set->n_miss = 0;
	emit_tree(b, set, 0, set->n);
	for (size_t i = 0; i < set->n_miss && !b->overflow; i++)
		b->insns[set->miss[i]].k = b->n - set->miss[i] - 1u;
}

/* sendto only with an address: the address pointer is a register, so a
 * send(2) on a connected socket never costs a round trip. A holds nr. */
static void emit_sendto(struct bpf_prog_buf *b, unsigned nr, bool wide)
{
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, wide ? 6 : 4));
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(4)));
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, wide ? 0 : 1, wide ? 2 : 0));
	if (wide) {
		emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(4)));
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
	}
	emit(b, (struct sock_filter)RET_NOTIFY);
	emit(b, (struct sock_filter)RET_ALLOW);
}

/* The ioctls the supervisor sees (landlock runner), by the request's low 32
 * bits (an int in the kernel):
 *  - ioctl(master, TIOCGPTPEER): the landlock runner's rules do not grant
 *    /dev/pts (that would be the user's other terminals too), so Landlock
 *    refuses the slave of a pty the command made itself; the supervisor
 *    opens it (supervisor_pty.c). ioctl(master, TIOCGPTN), which grantpt
 *    and ptsname ask: the supervisor swaps in a pty of the run's pool, whose
 *    slave alone is granted by name (supervisor_ptypool.c). The native
 *    ABI's only: i386's keeps Landlock's refusal.
 *  - every request of the file systems' own types ('f', 'X', 'v', 0x94,
 *    0xf5, 0x15): Landlock decides the open, not what an ioctl then changes
 *    on the inode (chattr, chattr -v, xfs_io, btrfs subvolumes); an
 *    allow-list in the supervisor decides (supervisor_ioctl.c). i386's
 *    ioctl (54) too: the supervisor refuses every 32-bit call,
 *    where the kernel would turn FS_IOC32_SETFLAGS into FS_IOC_SETFLAGS
 *    (arm64's 32-bit ARM never gets here: the filter kills it).
 * Every other ioctl stays a register compare. A holds nr, and still does
 * after the block for any other call. */
static void emit_ioctls(struct bpf_prog_buf *b, unsigned nr, bool pty)
{
	static const unsigned types[] = { 'f', 'X', 'v', 0x94, 0xf5, 0x15 };
	const unsigned n_types = sizeof(types) / sizeof(types[0]), n_pty = pty ? 2 : 0;
	/* JEQ nr, LD, the pty compares, AND, the type compares, ALLOW, NOTIFY */
	const unsigned len = 1 + 1 + n_pty + 1 + n_types + 2, notify = len - 1;
	unsigned at = 0;

	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, (unsigned char)(len - 1)));
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)));
	at = 2;
	if (pty) {
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCGPTPEER,
						     (unsigned char)(notify - at - 1), 0));
		at++;
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NOTIFY_TIOCGPTN,
						     (unsigned char)(notify - at - 1), 0));
		at++;
	}
	emit(b, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff00));
	at++;
	for (unsigned i = 0; i < n_types; i++, at++)
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, types[i] << 8,
						     (unsigned char)(notify - at - 1), 0));
	emit(b, (struct sock_filter)RET_ALLOW);
	emit(b, (struct sock_filter)RET_NOTIFY);
}

/* An open for writing (O_WRONLY, O_RDWR, the access mode 3, or O_TRUNC) by
 * nr, whose flags are argument arg: to the supervisor, which has the run's
 * opener perform it (runners/opener.h: no file of the run is open for
 * writing with a setuid or setgid bit; the kernel clears them at a write, a
 * truncation or a clone, but not at a change through a shared mapping, nor
 * a setgid bit without group execute at all). An open for reading passes. A
 * holds nr, and still does after the block for any other call. */
static void emit_open(struct bpf_prog_buf *b, unsigned nr, unsigned arg)
{
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 5));
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
	emit(b, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 3 /* O_ACCMODE */ | 01000 /* O_TRUNC */));
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
	emit(b, (struct sock_filter)RET_ALLOW);
	emit(b, (struct sock_filter)RET_NOTIFY);
}

/* open and openat for reading and writing (the access mode O_RDWR, a
 * register): noted where the sandbox refuses them, then continued
 * (supervisor_rw_open.c). Every other open stays a register compare. The
 * native table's only (arm64's open is openat). A holds nr. */
static void emit_rw_opens(struct bpf_prog_buf *b)
{
	static const struct {
		unsigned nr, flags_arg;
	} opens[] = {
		{ SYS_openat, 2 },
#ifdef SYSCALL_ABI_LEGACY_PATHS
		{ SYS_open, 1 },
#endif
	};

	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, opens[i].nr, 0, 5));
		emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(opens[i].flags_arg)));
		emit(b, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, O_ACCMODE));
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, O_RDWR, 0, 1));
		emit(b, (struct sock_filter)RET_NOTIFY);
		emit(b, (struct sock_filter)RET_ALLOW);
	}
}

/* The body for one syscall table, with A holding the number. Every socket
 * call that can name a peer notifies: connect and sendmsg carry the address
 * in memory a filter cannot read. io_uring would do the same calls out of
 * our sight: refused as container runtimes refuse it (programs fall back). */
static void emit_table(struct bpf_prog_buf *b, bool meta, bool opens, bool i386)
{
#if defined(__x86_64__)
	static const unsigned sock_i386[] = { I386_CONNECT, I386_SENDMSG, I386_SENDMMSG };
#endif
	static const unsigned sock_64[] = { SYS_connect, SYS_sendmsg, SYS_sendmmsg };
	struct nr_set set = { .n = 0 };

	/* prctl(PR_SET_DUMPABLE, 0) does nothing and says it did, as the errno
	 * rules say it (seccomp_rules.c, why there): without them (a build
	 * without libseccomp) a non-dumpable process's opens for writing, which
	 * the supervisor reads from its memory, failed with EFAULT. */
	if (meta)
		emit_dumpable_stays(b, i386 ? I386_PRCTL : SYS_prctl);
	/* file_setattr(2) (Linux 6.17): FS_IOC_FSSETXATTR by path, which the
	 * supervisor decides as an ioctl; the landlock runner's command is told
	 * this kernel has none, and chattr and xfs_io take the ioctl. Same
	 * number on x86-64, i386 and arm64. */
	if (meta)
		emit_ret_if(b, FILE_SETATTR_NR, SECCOMP_RET_ERRNO | ENOSYS);
#if defined(__x86_64__)
	emit_ret_if(b, i386 ? I386_IO_URING_SETUP : SYS_io_uring_setup, SECCOMP_RET_ERRNO | ENOSYS);
	if (i386) {
		set_add(&set, sock_i386, 3);
		set_add(&set, watch_32, sizeof(watch_32) / sizeof(watch_32[0]));
		if (meta)
			set_add(&set, meta_32, sizeof(meta_32) / sizeof(meta_32[0]));
		emit_set(b, &set);
		/* socketcall(2): the call number is a register, its arguments
		 * are not. */
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, I386_SOCKETCALL, 0, 6));
		emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3 /* CONNECT */, 3, 0));
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 11 /* SENDTO */, 2, 0));
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 16 /* SENDMSG */, 1, 0));
		emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 20 /* SENDMMSG */, 0, 1));
		emit(b, (struct sock_filter)RET_NOTIFY);
		emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
		emit_sendto(b, I386_SENDTO, false);
		if (meta)
			emit_ioctls(b, I386_IOCTL, false);
		if (opens) {
			emit_open(b, 5 /* open */, 1);
			emit_open(b, 295 /* openat */, 2);
			emit_ret_if(b, 8 /* creat */, SECCOMP_RET_USER_NOTIF);
			emit_ret_if(b, 92 /* truncate */, SECCOMP_RET_USER_NOTIF);
			emit_ret_if(b, 193 /* truncate64 */, SECCOMP_RET_USER_NOTIF);
		}
		return;
	}
#else
	(void)i386;
	emit_ret_if(b, SYS_io_uring_setup, SECCOMP_RET_ERRNO | ENOSYS);
#endif
	set_add(&set, sock_64, 3);
	set_add(&set, watch_64, sizeof(watch_64) / sizeof(watch_64[0]));
	set_add(&set, mkdir_64, sizeof(mkdir_64) / sizeof(mkdir_64[0]));
	if (meta) {
		set_add(&set, meta_64, sizeof(meta_64) / sizeof(meta_64[0]));
		set_add(&set, listen_64, sizeof(listen_64) / sizeof(listen_64[0]));
	}
	emit_set(b, &set);
	emit_sendto(b, SYS_sendto, true);
	if (meta)
		emit_ioctls(b, SYS_ioctl, true);
	/* arm64's table has openat alone (libc's open and creat call it). */
	if (opens) {
#ifdef SYSCALL_ABI_LEGACY_PATHS
		emit_open(b, SYS_open, 1);
#endif
		emit_open(b, SYS_openat, 2);
#ifdef SYSCALL_ABI_LEGACY_PATHS
		emit_ret_if(b, SYS_creat, SECCOMP_RET_USER_NOTIF);
#endif
		emit_ret_if(b, SYS_truncate, SECCOMP_RET_USER_NOTIF);
	} else {
		/* without the opener: read-write opens only noted (issue 31) */
		emit_rw_opens(b);
	}
}

static void build(struct bpf_prog_buf *b, bool meta, bool opens)
{
	const unsigned nr = offsetof(struct seccomp_data, nr);

	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
#if defined(__aarch64__)
	/* An arm64 kernel with CONFIG_COMPAT also runs 32-bit ARM programs
	 * (AUDIT_ARCH_ARM), by a table of their own: killed outright, as the
	 * errno rules kill them, never supervised. */
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0));
	emit(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, nr));
	emit_table(b, meta, opens, false);
	emit(b, (struct sock_filter)RET_ALLOW);
#else
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 2, 0));
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 5, 0));
	emit(b, (struct sock_filter)RET_ALLOW); /* no other ABI runs on x86-64 */
	/* x32 (x86-64's audit arch and table, numbers with the x32 bit,
	 * 32-bit pointers) is refused whole, as a kernel built without it
	 * answers (CONFIG_X86_X32_ABI unset, as here): nothing sbx runs is an
	 * x32 program, and a call the supervisor took for x86-64's (the bit
	 * masked off) was performed for the command where the kernel itself
	 * has no such call, an open for writing by the run's opener among
	 * them. The errno rules refuse it the same way (seccomp_compile.c). */
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, nr));
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SYSCALL_ABI_X32_BIT, 0, 1));
	emit(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
	emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0)); /* patched below */
	unsigned short ja = b->n - 1;
	/* i386 */
	emit(b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, nr));
	emit_table(b, meta, opens, true);
	emit(b, (struct sock_filter)RET_ALLOW);
	b->insns[ja].k = b->n - ja - 1;
	emit_table(b, meta, opens, false);
	emit(b, (struct sock_filter)RET_ALLOW);
#endif
}

static struct bpf_prog_buf bufs[NOTIFY_SETS];
static struct sock_fprog progs[NOTIFY_SETS];
static pthread_once_t built = PTHREAD_ONCE_INIT;

static void build_all(void)
{
	for (unsigned set = 0; set < NOTIFY_SETS; set++) {
		struct bpf_prog_buf *b = &bufs[set];

		b->n = 0;
		build(b, set == NOTIFY_METADATA || set == NOTIFY_METADATA_OPENS,
		      set == NOTIFY_SOCKETS_OPENS || set == NOTIFY_METADATA_OPENS);
		if (!b->overflow)
			progs[set] = (struct sock_fprog){ .len = b->n, .filter = b->insns };
	}
}

/* Why once: built on first use by whichever thread came first, two runs
 * started at once on two threads (the library's caller, a fresh process)
 * built into the same buffer together, and a child installed the mix: a
 * filter that refused what bash needs (both commands died of SIGSEGV at
 * their start, unsupervised; supervisor::one_run_cannot_take_...). */
const struct sock_fprog *notify_filter_get(enum notify_set set)
{
	if ((unsigned)set >= NOTIFY_SETS)
		return NULL;
	pthread_once(&built, build_all);
	return progs[set].filter ? &progs[set] : NULL;
}

#else

const struct sock_fprog *notify_filter_get(enum notify_set set)
{
	(void)set;
	return NULL;
}

#endif

/* A call that answers ENOSYS on a kernel that has it: hidden by a seccomp
 * filter on sbx (new-user pass 10: inside another sbx's run, the probe
 * blamed the kernel's version). */
static void missing_call(char *reason, size_t size, const char *call)
{
	struct utsname u;
	unsigned have = 0;

	if (uname(&u) == 0 && kernel_release_parse(u.release, &have) == 0 &&
	    have >= KERNEL_RELEASE(5, 6))
		snprintf(reason, size, "%s answers ENOSYS on Linux %.32s, which has it: a seccomp "
			 "filter on sbx hides it (a container's, or an outer sandbox's, such as "
			 "another sbx run)", call, u.release);
	else
		snprintf(reason, size, "%s (Linux 5.6+): not available", call);
}

static int probe_once(char *reason, size_t size)
{
	unsigned action = SECCOMP_RET_USER_NOTIF;
	char buf[16] = "";
	int fd;

#if !defined(__x86_64__) && !defined(__aarch64__)
	snprintf(reason, size, "not built for this architecture (x86-64 and aarch64 only)");
	return -ENOSYS;
#endif
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0) {
		snprintf(reason, size, "seccomp user notification (Linux 5.0+): %s", strerror(errno));
		return -ENOSYS;
	}
	/* Asked with an invalid pidfd: EBADF says the call exists. */
	if (syscall(SYS_pidfd_getfd, -1, 0, 0) < 0 && errno == ENOSYS) {
		missing_call(reason, size, "pidfd_getfd");
		return -ENOSYS;
	}
	if (syscall(SYS_openat2, -1, "", NULL, 0) < 0 && errno == ENOSYS) {
		missing_call(reason, size, "openat2");
		return -ENOSYS;
	}
	if (access("/proc/self/fd", R_OK) < 0) {
		snprintf(reason, size, "/proc is not mounted (the supervisor reads the command's "
			 "view through it)");
		return -ENOENT;
	}
	/* Yama 2 and 3 forbid a parent to inspect its child: the supervisor
	 * could read neither the command's memory nor its fds. */
	fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		close(fd);
		if (n > 0 && buf[0] >= '2' && buf[0] <= '9') {
			snprintf(reason, size, "kernel.yama.ptrace_scope=%c forbids reading the "
				 "command's memory and fds", buf[0]);
			return -EPERM;
		}
	}
	if (size)
		reason[0] = '\0';
	return 0;
}

int notify_kernel_probe(char *reason, size_t reason_size)
{
	static int cached = 1;
	static char why[240];

	if (cached == 1)
		cached = probe_once(why, sizeof(why));
	snprintf(reason, reason_size, "%s", why);
	return cached;
}

/* ---- child: no allocation, no locks ---- */

struct handoff {
	int sock;
	int listener; /* -1: not yet; -2: nothing to send; else the fd */
	int result;   /* the helper's: 0 sent, else errno */
	pid_t parent;
};

static int handoff_main(void *arg)
{
	struct handoff *h = arg;
	int fd;

	/* Why: it shares the child's fd table, the status pipe sbx reads
	 * until exec among it. Had the child been killed before it woke us,
	 * we waited here for good, holding that pipe, and sbx's start of the
	 * run with us (test_notify_handoff). */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != h->parent)
		_exit(0);
	while ((fd = __atomic_load_n(&h->listener, __ATOMIC_ACQUIRE)) == -1)
		syscall(SYS_futex, &h->listener, FUTEX_WAIT_PRIVATE, -1, NULL, NULL, 0);
	if (fd >= 0) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		char byte = 'L';
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
		/* The whole hard limit: sends made for commands are checked
		 * against less (inflight.h), so they cannot use this up. */
		inflight_room_take();
		if (syscall(SYS_sendmsg, h->sock, &msg, MSG_NOSIGNAL) != 1)
			h->result = errno ? errno : EIO;
	}
	_exit(0);
}

int notify_install_and_send(const struct sock_fprog *prog, int sock, struct child_status *st)
{
	char stack[16384] __attribute__((aligned(16)));
	struct handoff h = { .sock = sock, .listener = -1, .result = 0, .parent = getpid() };
	unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	long fd;
	pid_t pid;
	int status;

	pid = clone(handoff_main, stack + sizeof(stack), CLONE_VM | CLONE_FILES, &h);
	if (pid < 0)
		return child_status_set(st, STAGE_SECCOMP, errno, "clone (supervisor handoff)", NULL);
	/* Why WAIT_KILLABLE_RECV (5.19+): once sbx has taken a call, only a
	 * fatal signal may end the wait. Otherwise a signal makes the kernel
	 * restart the call while sbx is still performing the first one. */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	__atomic_store_n(&h.listener, fd >= 0 ? (int)fd : -2, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h.listener, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
		;
	if (fd < 0)
		return 1;
	close((int)fd);
	if (h.result)
		return child_status_set(st, STAGE_SECCOMP, h.result, "send the supervisor its listener",
					NULL);
	return 0;
}

/* ---- parent ---- */

int notify_receive_listener(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}
