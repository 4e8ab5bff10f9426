/* SPDX-License-Identifier: MIT */
/* The landlock runner's pty pool (see pty_pool.h).
 *
 * A pty is told by its slave: TIOCGPTPEER with O_PATH on its master gives a
 * handle on the slave's devpts entry without opening the terminal (no tty
 * open, no state changed). Two masters belong to the same pty when their
 * slaves have the same device and inode number while the handle we keep is
 * still linked: devpts numbers an entry by its pty index, and an index is
 * given again only after the old pty's entry was unlinked (its master's
 * close kills the entry before the index is freed). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pty_pool.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER 0x5441
#endif

#define PEERS_MAX 32

struct pty_ident {
	int handle; /* O_PATH on the slave's devpts entry */
	dev_t dev;
	ino_t ino;
};

struct pty_entry {
	int master;  /* ours until taken (-1 after) */
	bool taken;
	struct pty_ident slave;
};

struct pty_pool {
	pthread_mutex_t lock;
	int refs;    /* atomic */
	bool closed;
	bool taken_any;
	size_t n;
	struct pty_entry e[PTY_POOL_MAX];
	/* Ptys of the command whose slave the supervisor opened. */
	struct pty_ident peers[PEERS_MAX];
	size_t n_peers;
	bool peers_lost; /* one could not be remembered: swap nothing more */
};

static int ident_of(int master, struct pty_ident *id)
{
	struct stat st;
	int h = ioctl(master, TIOCGPTPEER, O_PATH | O_CLOEXEC);

	if (h < 0)
		return -errno;
	if (fstat(h, &st) < 0 || !S_ISCHR(st.st_mode)) {
		close(h);
		return -EIO;
	}
	id->handle = h;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return 0;
}

static bool ident_alive(const struct pty_ident *id)
{
	struct stat st;

	return fstat(id->handle, &st) == 0 && st.st_nlink > 0;
}

static bool ident_same(const struct pty_ident *a, const struct pty_ident *b)
{
	return a->dev == b->dev && a->ino == b->ino && ident_alive(b);
}

struct pty_pool *pty_pool_new(size_t n)
{
	struct pty_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (n > PTY_POOL_MAX)
		n = PTY_POOL_MAX;
	pthread_mutex_init(&p->lock, NULL);
	p->refs = 1;
	for (size_t i = 0; i < n; i++) {
		struct pty_entry *e = &p->e[p->n];
		/* Locked, as ptmx makes every pty: nobody can open the slave
		 * until the command holds the master and unlocks it (or had
		 * unlocked the pty it gave up for this one). Why only through
		 * TIOCGPTPEER, never /dev/pts/N by its number: where /dev/pts
		 * is not the instance /dev/ptmx allocates from, that path
		 * names some other pty, perhaps the caller's terminal, and
		 * the rule would grant it. */
		int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);

		if (m < 0)
			break;
		if (ident_of(m, &e->slave) < 0) {
			close(m);
			break;
		}
		e->master = m;
		p->n++;
	}
	if (p->n == 0) {
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	return p;
}

size_t pty_pool_size(const struct pty_pool *p)
{
	return p ? p->n : 0;
}

int pty_pool_slave(const struct pty_pool *p, size_t i)
{
	return i < p->n ? p->e[i].slave.handle : -1;
}

void pty_pool_ref(struct pty_pool *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_SEQ_CST);
}

void pty_pool_unref(struct pty_pool *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_SEQ_CST) != 0)
		return;
	for (size_t i = 0; i < p->n; i++) {
		if (p->e[i].master >= 0)
			close(p->e[i].master);
		close(p->e[i].slave.handle);
	}
	for (size_t i = 0; i < p->n_peers; i++)
		close(p->peers[i].handle);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int pty_pool_take(struct pty_pool *p)
{
	int fd = -1;

	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; !p->closed && i < p->n; i++) {
		if (p->e[i].taken)
			continue;
		fd = p->e[i].master;
		p->e[i].master = -1;
		p->e[i].taken = true;
		p->taken_any = true;
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return fd;
}

/* Nothing left to hand out: nothing to tell apart either. */
static bool spent(struct pty_pool *p)
{
	bool all_taken = true;

	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->n; i++)
		all_taken = all_taken && p->e[i].taken;
	all_taken = all_taken || p->closed;
	pthread_mutex_unlock(&p->lock);
	return all_taken;
}

bool pty_pool_keeps(struct pty_pool *p, int master)
{
	struct pty_ident id;
	bool keep;

	if (spent(p) || ident_of(master, &id) < 0)
		return true;
	pthread_mutex_lock(&p->lock);
	keep = p->peers_lost;
	for (size_t i = 0; !keep && i < p->n; i++)
		keep = ident_same(&id, &p->e[i].slave);
	for (size_t i = 0; !keep && i < p->n_peers; i++)
		keep = ident_same(&id, &p->peers[i]);
	pthread_mutex_unlock(&p->lock);
	close(id.handle);
	return keep;
}

/* Under lock: forget the peers whose pty has ended. */
static void peers_prune(struct pty_pool *p)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->n_peers; i++) {
		if (ident_alive(&p->peers[i]))
			p->peers[kept++] = p->peers[i];
		else
			close(p->peers[i].handle);
	}
	p->n_peers = kept;
}

void pty_pool_note_peer(struct pty_pool *p, int master)
{
	struct pty_ident id;
	bool known = false;

	if (spent(p))
		return;
	if (ident_of(master, &id) < 0) {
		/* Not remembered, so never to be told apart: no more swaps. */
		pthread_mutex_lock(&p->lock);
		p->peers_lost = true;
		pthread_mutex_unlock(&p->lock);
		return;
	}
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; !known && i < p->n; i++)
		known = ident_same(&id, &p->e[i].slave);
	for (size_t i = 0; !known && i < p->n_peers; i++)
		known = ident_same(&id, &p->peers[i]);
	if (!known) {
		if (p->n_peers == PEERS_MAX)
			peers_prune(p);
		if (p->n_peers == PEERS_MAX) {
			p->peers_lost = true;
		} else {
			p->peers[p->n_peers++] = id;
			id.handle = -1;
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (id.handle >= 0)
		close(id.handle);
}

bool pty_pool_close(struct pty_pool *p)
{
	bool taken;

	if (!p)
		return false;
	pthread_mutex_lock(&p->lock);
	p->closed = true;
	for (size_t i = 0; i < p->n; i++) {
		if (p->e[i].master >= 0)
			close(p->e[i].master);
		p->e[i].master = -1;
	}
	taken = p->taken_any;
	pthread_mutex_unlock(&p->lock);
	return taken;
}
