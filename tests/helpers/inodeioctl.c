/* SPDX-License-Identifier: MIT */
/* inodeioctl: the ioctls that change an inode, as chattr, xfs_io, fsverity
 * and fscrypt make them, for the e2e tests of the supervisor (issue 29,
 * finding 7). Each opens PATH read-only (what a read-only sandbox lets a
 * command open anywhere) and prints "RESULT=errno" (0: it worked).
 *
 *   inodeioctl setflags PATH HEXFLAGS      FS_IOC_SETFLAGS (chattr)
 *   inodeioctl setflags32 PATH HEXFLAGS    FS_IOC32_SETFLAGS, natively
 *   inodeioctl setflags-i386 PATH HEXFLAGS FS_IOC32_SETFLAGS by int $0x80
 *   inodeioctl setflags-x32 PATH HEXFLAGS  FS_IOC32_SETFLAGS by x32's ioctl
 *   inodeioctl setversion PATH N           FS_IOC_SETVERSION (chattr -v)
 *   inodeioctl setversion32 PATH N         FS_IOC32_SETVERSION, natively
 *   inodeioctl ext4setversion PATH N       EXT4_IOC_SETVERSION
 *   inodeioctl fsxattr PATH HEXXFLAGS      FS_IOC_FSSETXATTR (xfs_io chattr)
 *   inodeioctl verity PATH                 FS_IOC_ENABLE_VERITY (sha256)
 *   inodeioctl policy DIR HEXID            FS_IOC_SET_ENCRYPTION_POLICY (v2)
 *   inodeioctl addkey DIR                  FS_IOC_ADD_ENCRYPTION_KEY (v2)
 *   inodeioctl removekey DIR HEXID         FS_IOC_REMOVE_ENCRYPTION_KEY
 *   inodeioctl removekeyall DIR HEXID      ..._ALL_USERS
 *   inodeioctl fslabel PATH LABEL          FS_IOC_SETFSLABEL
 *   inodeioctl subvol DIR NAME             BTRFS_IOC_SUBVOL_CREATE in DIR
 *   inodeioctl snapshot DIR NAME           BTRFS_IOC_SNAP_CREATE of DIR into DIR
 *   inodeioctl subvolro SUBVOL             BTRFS_IOC_SUBVOL_SETFLAGS read-only
 *   inodeioctl snapdestroy DIR NAME        BTRFS_IOC_SNAP_DESTROY of DIR/NAME
 *
 * and, for the test's own checks from outside:
 *   inodeioctl show PATH                   FLAGS=hex VERSION=n XFLAGS=hex
 *   inodeioctl keyid DIR                   adds the fixed key: KEYID=hex
 *   inodeioctl keystatus DIR HEXID         STATUS=n (1 absent, 2 present)
 *   inodeioctl getpolicy DIR               POLICY=errno (ENODATA: none)
 *   inodeioctl subvolflags SUBVOL          SUBVOLFLAGS=n (1: read-only) */
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXT4_IOC_SETVERSION _IOW('f', 4, long)
#define X32_BIT 0x40000000L

#if defined(__x86_64__)
static sigjmp_buf no_gate;

static void gate_fault(int sig)
{
	(void)sig;
	siglongjmp(no_gate, 1);
}

/* i386's ioctl (54) from a 64-bit process; ENOSYS where there is no gate. */
static long int80_ioctl(long fd, long req, long arg)
{
	struct sigaction sa = { .sa_handler = gate_fault }, old;
	volatile long ret = -ENOSYS;

	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(no_gate, 1) == 0) {
		long r;

		__asm__ volatile("int $0x80"
				 : "=a"(r)
				 : "a"(54L), "b"(fd), "c"(req), "d"(arg)
				 : "memory", "r8", "r9", "r10", "r11");
		ret = r;
	}
	sigaction(SIGSEGV, &old, NULL);
	return ret;
}
#endif

static int result(int rc)
{
	printf("RESULT=%d\n", rc < 0 ? errno : 0);
	return 0;
}

static void fill_key(struct fscrypt_add_key_arg *k)
{
	k->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	k->raw_size = 64;
	for (int i = 0; i < 64; i++)
		k->raw[i] = (unsigned char)(0x5a ^ i);
}

static int hex_id(const char *s, unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE])
{
	for (int i = 0; i < FSCRYPT_KEY_IDENTIFIER_SIZE; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		id[i] = (unsigned char)v;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 2 ? argv[1] : "", *path = argc > 2 ? argv[2] : "";
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: inodeioctl OP PATH [ARG]\n");
		return 2;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		printf("OPEN=%d\n", errno);
		return 1;
	}
	if (strcmp(op, "show") == 0) {
		int flags = 0, version = 0;
		struct fsxattr x = { 0 };

		ioctl(fd, FS_IOC_GETFLAGS, &flags);
		ioctl(fd, FS_IOC_GETVERSION, &version);
		ioctl(fd, FS_IOC_FSGETXATTR, &x);
		printf("FLAGS=%x VERSION=%d XFLAGS=%x\n", (unsigned)flags, version, x.fsx_xflags);
		return 0;
	}
	if (strncmp(op, "setflags", 8) == 0 && argc > 3) {
		int flags = (int)strtoul(argv[3], NULL, 16);

		if (strcmp(op, "setflags") == 0)
			return result(ioctl(fd, FS_IOC_SETFLAGS, &flags));
		if (strcmp(op, "setflags32") == 0)
			return result(ioctl(fd, FS_IOC32_SETFLAGS, &flags));
#if defined(__x86_64__) /* the 32-bit ABIs of x86-64 (arm64's build has none) */
		/* i386 and x32 pointers are 32 bits: memory below 4 GiB */
		int *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

		if (low == MAP_FAILED)
			return 2;
		*low = flags;
		if (strcmp(op, "setflags-i386") == 0) {
			long r = int80_ioctl(fd, (long)FS_IOC32_SETFLAGS, (long)low);

			printf("RESULT=%ld\n", r < 0 ? -r : 0);
			return 0;
		}
		if (strcmp(op, "setflags-x32") == 0)
			return result((int)syscall(X32_BIT | 514, fd, (long)FS_IOC32_SETFLAGS, low));
#endif
	}
	if (strcmp(op, "setversion") == 0 && argc > 3) {
		int v = atoi(argv[3]);

		return result(ioctl(fd, FS_IOC_SETVERSION, &v));
	}
	if (strcmp(op, "setversion32") == 0 && argc > 3) {
		int v = atoi(argv[3]);

		return result(ioctl(fd, FS_IOC32_SETVERSION, &v));
	}
	if (strcmp(op, "ext4setversion") == 0 && argc > 3) {
		int v = atoi(argv[3]);

		return result(ioctl(fd, EXT4_IOC_SETVERSION, &v));
	}
	if (strcmp(op, "fsxattr") == 0 && argc > 3) {
		struct fsxattr x;

		if (ioctl(fd, FS_IOC_FSGETXATTR, &x) < 0)
			return result(-1);
		x.fsx_xflags |= (unsigned)strtoul(argv[3], NULL, 16);
		return result(ioctl(fd, FS_IOC_FSSETXATTR, &x));
	}
	if (strcmp(op, "verity") == 0) {
		struct fsverity_enable_arg a = { .version = 1, .hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
						 .block_size = 4096 };

		return result(ioctl(fd, FS_IOC_ENABLE_VERITY, &a));
	}
	if (strcmp(op, "keyid") == 0 || strcmp(op, "addkey") == 0) {
		struct fscrypt_add_key_arg *k = calloc(1, sizeof(*k) + 64);
		int rc;

		fill_key(k);
		rc = ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, k);
		if (strcmp(op, "addkey") == 0)
			return result(rc);
		if (rc < 0)
			return result(rc);
		printf("KEYID=");
		for (int i = 0; i < FSCRYPT_KEY_IDENTIFIER_SIZE; i++)
			printf("%02x", k->key_spec.u.identifier[i]);
		printf("\n");
		return 0;
	}
	if (strcmp(op, "getpolicy") == 0) {
		struct fscrypt_get_policy_ex_arg g = { .policy_size = sizeof(g.policy) };

		printf("POLICY=%d\n", ioctl(fd, FS_IOC_GET_ENCRYPTION_POLICY_EX, &g) < 0 ? errno : 0);
		return 0;
	}
	if (strcmp(op, "policy") == 0) {
		struct fscrypt_policy_v2 p = {
			.version = FSCRYPT_POLICY_V2,
			.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
			.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
		};

		/* The identifier of the fixed key, which the test added. */
		if (argc > 3 && hex_id(argv[3], p.master_key_identifier) < 0)
			return 2;
		return result(ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p));
	}
	if ((strcmp(op, "removekey") == 0 || strcmp(op, "removekeyall") == 0 ||
	     strcmp(op, "keystatus") == 0) && argc > 3) {
		struct fscrypt_remove_key_arg r = { .key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER };
		struct fscrypt_get_key_status_arg s = { .key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER };

		if (hex_id(argv[3], r.key_spec.u.identifier) < 0)
			return 2;
		if (strcmp(op, "keystatus") == 0) {
			memcpy(s.key_spec.u.identifier, r.key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE);
			if (ioctl(fd, FS_IOC_GET_ENCRYPTION_KEY_STATUS, &s) < 0)
				return result(-1);
			printf("STATUS=%u\n", s.status);
			return 0;
		}
		return result(ioctl(fd, strcmp(op, "removekey") == 0 ? FS_IOC_REMOVE_ENCRYPTION_KEY
								   : FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS,
				    &r));
	}
	if (strcmp(op, "fslabel") == 0 && argc > 3) {
		char label[FSLABEL_MAX] = "";

		strncpy(label, argv[3], sizeof(label) - 1);
		return result(ioctl(fd, FS_IOC_SETFSLABEL, label));
	}
	if ((strcmp(op, "subvol") == 0 || strcmp(op, "snapshot") == 0 ||
	     strcmp(op, "snapdestroy") == 0) && argc > 3) {
		struct btrfs_ioctl_vol_args a = { .fd = fd };

		strncpy(a.name, argv[3], sizeof(a.name) - 1);
		if (strcmp(op, "subvol") == 0)
			return result(ioctl(fd, BTRFS_IOC_SUBVOL_CREATE, &a));
		if (strcmp(op, "snapshot") == 0)
			return result(ioctl(fd, BTRFS_IOC_SNAP_CREATE, &a));
		return result(ioctl(fd, BTRFS_IOC_SNAP_DESTROY, &a));
	}
	if (strcmp(op, "subvolflags") == 0) {
		unsigned long long f = 0;

		if (ioctl(fd, BTRFS_IOC_SUBVOL_GETFLAGS, &f) < 0)
			return result(-1);
		printf("SUBVOLFLAGS=%llu\n", f);
		return 0;
	}
	if (strcmp(op, "subvolro") == 0) {
		unsigned long long f = BTRFS_SUBVOL_RDONLY;

		return result(ioctl(fd, BTRFS_IOC_SUBVOL_SETFLAGS, &f));
	}
	fprintf(stderr, "inodeioctl: unknown op %s\n", op);
	return 2;
}
