/* SPDX-License-Identifier: MIT */
/* The supervisor's seccomp filter (kernel/seccomp_notify.c), run on a small
 * classic-BPF interpreter: which (ABI, syscall, arguments) reach the
 * supervisor, which are refused outright, which pass. The kernel runs the
 * same program; the e2e tests check the effects there. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>

#include "bpf_run.h"
#include "seccomp_notify.h"

#ifdef CONFIG_SUPERVISOR

#define X32 0x40000000U
#define NOSYS (SECCOMP_RET_ERRNO | ENOSYS)

static uint32_t act(enum notify_set set, uint32_t arch, uint32_t nr, uint64_t a0, uint64_t a4)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch };
	const struct sock_fprog *prog = notify_filter_get(set);

	cr_assert_not_null(prog);
	d.args[0] = a0;
	d.args[4] = a4;
	return bpf_run(prog, &d);
}

static uint32_t act_ioctl(enum notify_set set, uint32_t arch, uint32_t nr, uint64_t request)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch };
	const struct sock_fprog *prog = notify_filter_get(set);

	cr_assert_not_null(prog);
	d.args[0] = 3;
	d.args[1] = request;
	d.args[2] = 02; /* O_RDWR */
	return bpf_run(prog, &d);
}

#define NOTIFY SECCOMP_RET_USER_NOTIF
#define ALLOW SECCOMP_RET_ALLOW

Test(notify_filter, sockets_both_sets)
{
	for (int set = 0; set < NOTIFY_SETS; set++) {
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_connect, 3, 0), NOTIFY);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_sendmsg, 3, 0), NOTIFY);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_sendmmsg, 3, 0), NOTIFY);
		/* sendto only with an address, in either half of the pointer */
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_sendto, 3, 0), ALLOW);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_sendto, 3, 0x7ffc00001000), NOTIFY);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_sendto, 3, 0x100000000ULL), NOTIFY);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_sendto, 3, 0x10), NOTIFY);
		/* untouched */
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_bind, 3, 0), ALLOW);
		/* listen: noted under the landlock runner only */
		bool meta = set == NOTIFY_METADATA || set == NOTIFY_METADATA_OPENS;

		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_listen, 3, 0), meta ? NOTIFY : ALLOW);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_listen | X32, 3, 0), NOSYS);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_socketpair, 1, 0), ALLOW);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_write, 1, 0), ALLOW);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_read, 0, 0), ALLOW);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_openat, 0, 0), ALLOW);
		/* mkdir: looked at (a refusal noted), under both runners; the
		 * rest of the directory calls are not */
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_mkdir, 0, 0), NOTIFY);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_mkdirat, 0, 0), NOTIFY);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_mkdir | X32, 0, 0), NOSYS);
		cr_assert_eq(act(set, AUDIT_ARCH_I386, 39 /* i386 mkdir */, 0, 0), ALLOW);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_rmdir, 0, 0), ALLOW);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_unlinkat, 0, 0), ALLOW);
		/* io_uring would do the same calls out of our sight */
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, SYS_io_uring_setup, 8, 0),
			     SECCOMP_RET_ERRNO | ENOSYS);
	}
}

Test(notify_filter, metadata_only_in_its_set)
{
	const unsigned meta[] = { SYS_chmod, SYS_fchmod, SYS_fchmodat, NOTIFY_NR_FCHMODAT2,
				  SYS_chown, SYS_fchown, SYS_lchown, SYS_fchownat, SYS_utime,
				  SYS_utimes, SYS_futimesat, SYS_utimensat, SYS_setxattr,
				  SYS_lsetxattr, SYS_fsetxattr, NOTIFY_NR_SETXATTRAT,
				  SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr,
				  NOTIFY_NR_REMOVEXATTRAT };

	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++) {
		cr_assert_eq(act(NOTIFY_METADATA, AUDIT_ARCH_X86_64, meta[i], 0, 0), NOTIFY,
			     "syscall %u", meta[i]);
		cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_X86_64, meta[i], 0, 0), ALLOW,
			     "syscall %u under the namespace runner", meta[i]);
	}
	/* reads of metadata are nobody's business */
	cr_assert_eq(act(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_getxattr, 0, 0), ALLOW);
	cr_assert_eq(act(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_newfstatat, 0, 0), ALLOW);
}

/* x32 is refused whole, every call of it, in every set: "no such call", as
 * a kernel built without x32 answers; its numbers never reach the
 * supervisor, which would take them for x86-64's. */
Test(notify_filter, x32_refused_whole)
{
	const unsigned nrs[] = { SYS_read, SYS_write, SYS_openat, SYS_open, SYS_creat, SYS_truncate,
				 SYS_chmod, SYS_connect, 518 /* sendmsg */, 538 /* sendmmsg */,
				 SYS_sendto, 514 /* ioctl */, SYS_io_uring_setup, 0x3fffffff };

	for (int set = 0; set < NOTIFY_SETS; set++)
		for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++)
			cr_assert_eq(act(set, AUDIT_ARCH_X86_64, X32 | nrs[i], 0, 0x1000), NOSYS,
				     "set %d, x32 call %u", set, nrs[i]);
	/* x86-64's own calls are not caught by it */
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_X86_64, SYS_write, 0, 0), ALLOW);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_X86_64, SYS_connect, 0, 0), NOTIFY);
}

Test(notify_filter, i386_is_no_way_around)
{
	/* chmod, lchown16, chown32, setxattr, utimensat_time64 */
	const unsigned meta32[] = { 15, 16, 212, 226, 412, NOTIFY_NR_FCHMODAT2 };

	for (size_t i = 0; i < sizeof(meta32) / sizeof(meta32[0]); i++) {
		cr_assert_eq(act(NOTIFY_METADATA, AUDIT_ARCH_I386, meta32[i], 0, 0), NOTIFY);
		cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, meta32[i], 0, 0), ALLOW);
	}
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 362 /* connect */, 0, 0), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 370 /* sendmsg */, 0, 0), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 369 /* sendto */, 0, 0x1000), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 369 /* sendto */, 0, 0), ALLOW);
	/* socketcall: by the call number in its first argument */
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 102, 3 /* CONNECT */, 0), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 102, 11 /* SENDTO */, 0), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 102, 16 /* SENDMSG */, 0), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 102, 20 /* SENDMMSG */, 0), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 102, 2 /* BIND */, 0), ALLOW);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 102, 9 /* SEND */, 0), ALLOW);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, 425, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
	/* x86-64's connect number is another call on i386 */
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_I386, SYS_connect, 0, 0), ALLOW);
	/* and i386's chmod number (15) is x86-64's rt_sigreturn: never trapped */
	cr_assert_eq(act(NOTIFY_METADATA, AUDIT_ARCH_X86_64, 15, 0, 0), ALLOW);
}

static uint32_t act_open(enum notify_set set, uint32_t arch, uint32_t nr, int flags_arg,
			 uint64_t flags)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch };
	const struct sock_fprog *prog = notify_filter_get(set);

	cr_assert_not_null(prog);
	d.args[0] = (uint64_t)-100; /* AT_FDCWD, or the path of open */
	d.args[flags_arg] = flags;
	return bpf_run(prog, &d);
}

/* open and openat for reading and writing reach the supervisor in every
 * set (a refusal noted: issue 31); by the access mode alone, in the low 32
 * bits. Where the run has no opener, every other open passes, as does
 * openat2 (refused by the errno rules) and i386's; where it has one, every
 * open for writing reaches it (opens_for_writing_in_the_opens_sets_only). */
Test(notify_filter, read_write_opens_both_sets)
{
	for (int set = 0; set < NOTIFY_SETS; set++) {
		bool opens = set == NOTIFY_SOCKETS_OPENS || set == NOTIFY_METADATA_OPENS;

		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, 02), NOTIFY);
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, 02 | 0100 | 02000000),
			     NOTIFY, "O_RDWR | O_CREAT | O_CLOEXEC");
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, 0xffffffff00000002ULL),
			     NOTIFY, "the high half is no flag");
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_open, 1, 02), NOTIFY);
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, 0), ALLOW, "O_RDONLY");
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, 01 | 0100 | 01000),
			     opens ? NOTIFY : ALLOW, "O_WRONLY | O_CREAT | O_TRUNC");
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, 03), opens ? NOTIFY : ALLOW,
			     "mode 3");
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_open, 1, 0), ALLOW);
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_open, 2, 02), ALLOW,
			     "open's flags are its second argument");
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 1, 02), ALLOW,
			     "openat's are its third");
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_read, 2, 02), ALLOW);
		cr_assert_eq(act_open(set, AUDIT_ARCH_I386, 295 /* openat */, 2, 02), opens ? NOTIFY : ALLOW);
	}
	/* the calls after it in the program still reach theirs */
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5441), NOTIFY);
	cr_assert_eq(act(NOTIFY_SOCKETS, AUDIT_ARCH_X86_64, SYS_sendto, 3, 0x1000), NOTIFY);
}

/* TIOCGPTPEER reaches the supervisor under the landlock runner only (the
 * namespace runner has a devpts of its own); its low 32 bits are the
 * request, as in the kernel; every other ioctl passes. */
Test(notify_filter, pty_peer_in_metadata_set_only)
{
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5441), NOTIFY);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl,
			       0xffffffff00005441ULL), NOTIFY);
	cr_assert_eq(act_ioctl(NOTIFY_SOCKETS, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5441), ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5401 /* TCGETS */),
		     ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5441ULL << 32),
		     ALLOW);
	/* the request number as another call's argument is nothing */
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_read, 0x5441), ALLOW);
	/* i386's ioctl (54) keeps Landlock's refusal: not trapped */
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_I386, 54, 0x5441), ALLOW);
}

/* TIOCGPTN (grantpt, ptsname) reaches the supervisor under the landlock
 * runner only, where a pty of the run's pool is swapped in; by its low 32
 * bits, x86-64's ioctl only. The neighbouring requests pass: TIOCSPTLCK
 * (unlockpt), TIOCGPTLCK, TIOCGPTN's number as an _IO request. */
Test(notify_filter, pty_number_in_metadata_set_only)
{
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x80045430), NOTIFY);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl,
			       0xffffffff80045430ULL), NOTIFY);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl,
			       0x0000000180045430ULL), NOTIFY);
	cr_assert_eq(act_ioctl(NOTIFY_SOCKETS, AUDIT_ARCH_X86_64, SYS_ioctl, 0x80045430), ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl,
			       0x40045431 /* TIOCSPTLCK */), ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl,
			       0x80045439 /* TIOCGPTLCK */), ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5430), ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x80045430ULL << 32),
		     ALLOW);
	/* the peer request still reaches it beside the number */
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5441), NOTIFY);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_read, 0x80045430), ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_write, 0x80045430), ALLOW);
	/* i386's (54) keeps Landlock's refusal */
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_I386, 54, 0x80045430), ALLOW);
}

/* Opens for writing (and O_TRUNC), creat and truncate reach the supervisor
 * in the workspace-write sets only, by x86-64's and i386's numbers (the
 * opener performs them); opens for reading never. */
Test(notify_filter, opens_for_writing_in_the_opens_sets_only)
{
	static const uint64_t writing[] = { 01 /* O_WRONLY */, 02 /* O_RDWR */, 03, 01101 /* WRONLY|CREAT|TRUNC */,
					    01000 /* O_RDONLY|O_TRUNC */, 02000001 /* WRONLY|CLOEXEC */,
					    0xffffffff00000001ULL };
	static const uint64_t reading[] = { 0, 0100 /* O_CREAT alone */, 02000000 /* CLOEXEC */,
					    010000000 /* O_PATH */, 0xffffffff00000000ULL };

	for (int set = 0; set < NOTIFY_SETS; set++) {
		bool opens = set == NOTIFY_SOCKETS_OPENS || set == NOTIFY_METADATA_OPENS;

		for (size_t i = 0; i < sizeof writing / sizeof writing[0]; i++) {
			uint32_t want = opens ? NOTIFY : ALLOW;
			/* without the opener, x86-64's O_RDWR is still noted (issue 31) */
			uint32_t want64 = (writing[i] & 3) == 2 ? NOTIFY : want;

			cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_open, 1, writing[i]), want64);
			cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, writing[i]), want64);
			cr_assert_eq(act_open(set, AUDIT_ARCH_I386, 5, 1, writing[i]), want);
			cr_assert_eq(act_open(set, AUDIT_ARCH_I386, 295, 2, writing[i]), want);
		}
		for (size_t i = 0; i < sizeof reading / sizeof reading[0]; i++) {
			cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_open, 1, reading[i]), ALLOW);
			cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 2, reading[i]), ALLOW);
			cr_assert_eq(act_open(set, AUDIT_ARCH_I386, 295, 2, reading[i]), ALLOW);
		}
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_creat, 1, 0), opens ? NOTIFY : ALLOW);
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_truncate, 1, 0), opens ? NOTIFY : ALLOW);
		cr_assert_eq(act_open(set, AUDIT_ARCH_I386, 8, 1, 0), opens ? NOTIFY : ALLOW);
		cr_assert_eq(act_open(set, AUDIT_ARCH_I386, 92, 1, 0), opens ? NOTIFY : ALLOW);
		cr_assert_eq(act_open(set, AUDIT_ARCH_I386, 193, 1, 0), opens ? NOTIFY : ALLOW);
		/* a flags word in another argument is not an open's */
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_openat, 1, 01), ALLOW);
		cr_assert_eq(act_open(set, AUDIT_ARCH_X86_64, SYS_ftruncate, 1, 0), ALLOW);
	}
}

/* Every ioctl of the file systems' own types reaches the supervisor under
 * the landlock runner (supervisor_ioctl.c), by the request's low 32 bits,
 * also by i386's numbers (which it refuses): chattr's
 * FS_IOC_SETFLAGS and FS_IOC32_SETFLAGS, FS_IOC_SETVERSION ('v'),
 * FS_IOC_FSSETXATTR ('X'), fs-verity and fscrypt ('f'), btrfs's and
 * FICLONE's (0x94), f2fs's (0xf5), the fs uuid's (0x15). A terminal's,
 * a socket's and a block device's pass. Not under the namespace runner,
 * whose read-only mounts refuse the changes (EROFS). */
/* file_setattr (469), FS_IOC_FSSETXATTR by path: "no such call" under the
 * landlock runner (the metadata sets), by every ABI; elsewhere the kernel's
 * read-only mounts answer it (adversarial pass: a read-only command set a
 * host file's flags with it). */
Test(notify_filter, file_setattr_absent_in_metadata_sets)
{
	for (int set = 0; set < NOTIFY_SETS; set++) {
		bool meta = set == NOTIFY_METADATA || set == NOTIFY_METADATA_OPENS;
		uint32_t want = meta ? (SECCOMP_RET_ERRNO | ENOSYS) : ALLOW;

		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, 469, 0, 0), want);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, X32 | 469, 0, 0), NOSYS);
		cr_assert_eq(act(set, AUDIT_ARCH_I386, 469, 0, 0), want);
		cr_assert_eq(act(set, AUDIT_ARCH_X86_64, 468 /* file_getattr */, 0, 0), ALLOW);
	}
}

Test(notify_filter, file_system_ioctls_in_metadata_set_only)
{
	static const uint64_t fs[] = { 0x40086602, 0x40046602, 0x80086601, 0x40087602, 0x40047602,
				       0x40086604, 0x401c5820, 0x40806685, 0x800c6613, 0xc0506617,
				       0x41009432, 0x5000940e, 0x50009401, 0x40049409, 0xf50a,
				       0x80111500 };
	static const uint64_t other[] = { 0x5401 /* TCGETS */, 0x541b /* FIONREAD */,
					  0x8912 /* SIOCGIFCONF */, 0x80081272 /* BLKGETSIZE64 */,
					  0x4b3a /* KDSETMODE */ };

	for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
		cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, fs[i]), NOTIFY,
			     "%#llx", (unsigned long long)fs[i]);
		cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl,
				       fs[i] | 0xdead00000000ULL), NOTIFY);
		cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_I386, 54, fs[i]), NOTIFY);
		cr_assert_eq(act_ioctl(NOTIFY_SOCKETS, AUDIT_ARCH_X86_64, SYS_ioctl, fs[i]), ALLOW);
	}
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, other[i]), ALLOW);
		cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_I386, 54, other[i]), ALLOW);
	}
	/* the pty calls still reach it; other calls with such a number pass */
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_ioctl, 0x5441), NOTIFY);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_read, 0x40086602), ALLOW);
	cr_assert_eq(act_ioctl(NOTIFY_METADATA, AUDIT_ARCH_X86_64, SYS_write, 0x40086602), ALLOW);
}

#endif
