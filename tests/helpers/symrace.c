/* SPDX-License-Identifier: MIT */
/* symrace: a command that races the supervisor (run inside sbx). One thread
 * keeps swapping the symlink LINK between A and B (symlink + rename, so it
 * always exists); the main thread applies OP to PATH (LINK, or a path
 * through it) ROUNDS times. A supervisor that checked a path and then let
 * the kernel look it up again would sometimes act on B.
 *
 *   symrace chmod|chown|utimes|xattr ROUNDS LINK A B PATH
 *
 * Prints "ok=N refused=M other=K". On a busy machine the swapper may not run
 * for a while: the rounds start after its first swap, and go on (up to 25
 * times ROUNDS) until both targets were hit. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *link_path, *target[2];
static atomic_bool done;
static atomic_ulong swaps;

static void *swapper(void *arg)
{
	char tmp[4096];
	unsigned i = 0;

	(void)arg;
	snprintf(tmp, sizeof(tmp), "%s.tmp", link_path);
	while (!atomic_load(&done)) {
		unlink(tmp);
		if (symlink(target[i++ & 1], tmp) == 0)
			if (rename(tmp, link_path) == 0)
				atomic_fetch_add(&swaps, 1);
	}
	return NULL;
}

static int op(const char *name, const char *path, unsigned round)
{
	if (strcmp(name, "chmod") == 0)
		return chmod(path, (round & 1) ? 0600 : 0640);
	if (strcmp(name, "chown") == 0)
		return chown(path, (uid_t)-1, getgid());
	if (strcmp(name, "utimes") == 0) {
		struct timeval tv[2] = { { .tv_sec = 978307200 }, { .tv_sec = 978307200 } };

		return utimes(path, tv);
	}
	if (strcmp(name, "xattr") == 0)
		return setxattr(path, "user.race", "x", 1, 0);
	fprintf(stderr, "symrace: unknown op %s\n", name);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long ok = 0, refused = 0, other = 0, rounds;
	pthread_t t;

	if (argc != 7) {
		fprintf(stderr, "usage: symrace chmod|chown|utimes|xattr ROUNDS LINK A B PATH\n");
		return 2;
	}
	rounds = strtoul(argv[2], NULL, 10);
	link_path = argv[3];
	target[0] = argv[4];
	target[1] = argv[5];
	unlink(link_path);
	if (symlink(target[0], link_path) < 0) {
		perror("symrace: symlink");
		return 2;
	}
	if (pthread_create(&t, NULL, swapper, NULL) != 0) {
		fprintf(stderr, "symrace: pthread_create failed\n");
		return 2;
	}
	while (atomic_load(&swaps) < 2)
		sched_yield();
	for (unsigned long i = 0; i < rounds || ((ok == 0 || refused == 0) && i < 25 * rounds); i++) {
		if (op(argv[1], argv[6], (unsigned)i) == 0)
			ok++;
		else if (errno == EACCES || errno == EPERM)
			refused++;
		else
			other++;
	}
	atomic_store(&done, true);
	pthread_join(t, NULL);
	printf("ok=%lu refused=%lu other=%lu\n", ok, refused, other);
	return 0;
}
