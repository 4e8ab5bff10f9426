/* SPDX-License-Identifier: MIT */
/* The landlock runner's ruleset cache (see landlock_cache.h). A ruleset is
 * built by walking / and the caller's home around the hidden paths, one rule
 * per entry (0.3-0.6 ms here); for the same policy it comes out the same
 * while the tree it walked is the same. So a kept ruleset is used again only
 * if, now:
 *  - the policy is the same: ABI, mode, root and tool cache (device and
 *    inode of the handles), /tmp, the hidden and revealed paths;
 *  - every directory whose listing the walk read is still the same directory
 *    and lists the same entries (inode, type, name, in order): an entry made,
 *    removed or renamed there since, say a directory moved to a hidden name,
 *    makes a fresh build;
 *  - every path granted by name is still the same inode (or still absent).
 * A rule names an inode: what is granted is what a fresh build would grant.
 * Checking costs one listing per walked directory and one stat per named
 * path (~0.05 ms).
 *
 * A ruleset is lent to one run at a time. The run adds rules for its own
 * pty pool's slaves (runner_landlock.c), which no other run's domain may
 * hold while those ptys live; it comes back only once they have all ended
 * (sbx closed them, none handed to the command), and those rules then name
 * unlinked devpts entries no path reaches again. A run that handed a pty out
 * returns it as not reusable: that pty may outlive the run (its master
 * passed away over a socket), so its slave's rule must reach no later run.
 * Dead rules pin their inodes: after LL_POOL_RULES_MAX the ruleset is built
 * anew. Lent from the spawning thread, returned from any: one lock. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock_cache.h"
#include "ns_view.h"

/* Runs in flight at once each hold their own (serve's background tasks). */
#define LL_CACHE_SLOTS 8
#define LL_POOL_RULES_MAX 64

struct ll_key {
	int abi;
	enum sbx_mode mode;
	dev_t root_dev, cache_dev;
	ino_t root_ino, cache_ino;
	char *names; /* tmp dir, hidden and revealed paths, joined */
};

struct ll_slot {
	bool used;
	bool lent;
	unsigned long gen;         /* which lend (landlock_lend.gen) */
	size_t pool_rules;         /* rules on slaves of ended ptys */
	struct ll_key key;
	int rs;
	struct landlock_walk_log log;
	struct ll_seen seen;
	unsigned long last;
};

static struct ll_slot slots[LL_CACHE_SLOTS];
static unsigned long clock_tick, gen_tick;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Only a process that runs many commands keeps rulesets (serve, mcp): a
 * single run (sbx run, the library's sbx_run_execute) would only hold an
 * fd it never uses again. */
static bool enabled;

void ll_cache_enable(void)
{
	enabled = true;
}

static void fd_id(int fd, dev_t *dev, ino_t *ino)
{
	struct stat st;

	*dev = 0;
	*ino = 0;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
}

static char *join_names(const struct child_spec *spec)
{
	const struct ns_view_spec *v = spec->view;
	size_t len = strlen(spec->tmp_dir ? spec->tmp_dir : "") + 2;
	char *s, *p;

	for (size_t i = 0; v && i < v->hide.n; i++)
		len += strlen(v->hide.path[i]) + 1;
	for (size_t i = 0; v && i < v->reveal.n; i++)
		len += strlen(v->reveal.path[i]) + 1;
	s = p = malloc(len + 4);
	if (!s)
		return NULL;
	p = stpcpy(p, spec->tmp_dir ? spec->tmp_dir : "");
	*p++ = '\n';
	for (size_t i = 0; v && i < v->hide.n; i++) {
		p = stpcpy(p, v->hide.path[i]);
		*p++ = '\n';
	}
	*p++ = '|';
	for (size_t i = 0; v && i < v->reveal.n; i++) {
		p = stpcpy(p, v->reveal.path[i]);
		*p++ = '\n';
	}
	*p = '\0';
	return s;
}

static bool make_key(const struct child_spec *spec, struct ll_key *k)
{
	k->abi = spec->landlock_abi;
	k->mode = spec->mode;
	fd_id(spec->mode == SBX_MODE_WORKSPACE_WRITE ? spec->root_fd : -1, &k->root_dev,
	      &k->root_ino);
	fd_id(spec->view ? spec->view->cache_fd : -1, &k->cache_dev, &k->cache_ino);
	k->names = join_names(spec);
	return k->names != NULL;
}

static bool same_key(const struct ll_key *a, const struct ll_key *b)
{
	return a->abi == b->abi && a->mode == b->mode && a->root_dev == b->root_dev &&
	       a->root_ino == b->root_ino && a->cache_dev == b->cache_dev &&
	       a->cache_ino == b->cache_ino && strcmp(a->names, b->names) == 0;
}

void ll_seen_path(struct ll_seen *seen, const char *path)
{
	struct stat st;
	size_t i;

	if (!seen || seen->broken)
		return;
	i = seen->n;
	if (i == LL_CACHE_PATHS || !(seen->p[i].path = strdup(path))) {
		seen->broken = true;
		return;
	}
	/* As the grant will open it: symlinks followed. */
	seen->p[i].exists = stat(path, &st) == 0;
	seen->p[i].dev = seen->p[i].exists ? st.st_dev : 0;
	seen->p[i].ino = seen->p[i].exists ? st.st_ino : 0;
	seen->n++;
}

void ll_seen_free(struct ll_seen *seen)
{
	for (size_t i = 0; i < seen->n; i++)
		free(seen->p[i].path);
	seen->n = 0;
	seen->broken = false;
}

static bool seen_unchanged(const struct ll_seen *seen)
{
	if (seen->broken)
		return false;
	for (size_t i = 0; i < seen->n; i++) {
		struct stat st;
		bool exists = stat(seen->p[i].path, &st) == 0;

		if (exists != seen->p[i].exists ||
		    (exists && (st.st_dev != seen->p[i].dev || st.st_ino != seen->p[i].ino)))
			return false;
	}
	return true;
}

static void slot_free(struct ll_slot *s)
{
	if (!s->used)
		return;
	close(s->rs);
	free(s->key.names);
	landlock_walk_log_free(&s->log);
	ll_seen_free(&s->seen);
	s->used = s->lent = false;
}

int ll_cache_lend(const struct child_spec *spec, struct landlock_lend *lend)
{
	struct ll_key k;
	int fd = -1;

	lend->gen = 0;
	lend->pool_rules = 0;
	if (!enabled || !make_key(spec, &k))
		return -1;
	for (size_t i = 0; fd < 0 && i < LL_CACHE_SLOTS; i++) {
		struct ll_slot *s = &slots[i];
		bool fresh;

		pthread_mutex_lock(&lock);
		if (!s->used || s->lent || !same_key(&s->key, &k)) {
			pthread_mutex_unlock(&lock);
			continue;
		}
		s->lent = true; /* ours while we look at the tree */
		pthread_mutex_unlock(&lock);
		fresh = seen_unchanged(&s->seen) && landlock_walk_log_fresh(&s->log);
		if (fresh)
			fd = fcntl(s->rs, F_DUPFD_CLOEXEC, 3);
		pthread_mutex_lock(&lock);
		if (fd >= 0) {
			s->last = ++clock_tick;
			s->gen = ++gen_tick;
			lend->gen = s->gen;
			lend->slot = (int)i;
		} else {
			s->lent = false;
			if (!fresh)
				slot_free(s); /* the tree changed: built again */
		}
		pthread_mutex_unlock(&lock);
	}
	free(k.names);
	return fd;
}

void ll_cache_put(const struct child_spec *spec, int rs, struct landlock_walk_log *log,
		  struct ll_seen *seen, struct landlock_lend *lend)
{
	struct ll_slot *s = NULL;
	struct ll_key k;
	int keep = -1;

	lend->gen = 0;
	lend->pool_rules = 0;
	if (enabled && !log->broken && !seen->broken && make_key(spec, &k)) {
		keep = fcntl(rs, F_DUPFD_CLOEXEC, 3);
		if (keep < 0)
			free(k.names);
	}
	if (keep < 0) {
		landlock_walk_log_free(log);
		ll_seen_free(seen);
		return;
	}
	pthread_mutex_lock(&lock);
	/* A free slot, else the least recently used of those not lent. */
	for (size_t i = 0; i < LL_CACHE_SLOTS; i++) {
		if (slots[i].lent)
			continue;
		if (!slots[i].used) {
			s = &slots[i];
			break;
		}
		if (!s || slots[i].last < s->last)
			s = &slots[i];
	}
	if (s) {
		slot_free(s);
		s->key = k;
		s->rs = keep;
		s->log = *log;
		s->seen = *seen;
		log->n = 0;
		seen->n = 0;
		s->pool_rules = 0;
		s->last = ++clock_tick;
		s->gen = ++gen_tick;
		s->used = s->lent = true;
		lend->gen = s->gen;
		lend->slot = (int)(s - slots);
	}
	pthread_mutex_unlock(&lock);
	if (!s) {
		/* Every slot is lent to a run in flight: this one is not kept. */
		close(keep);
		free(k.names);
		landlock_walk_log_free(log);
		ll_seen_free(seen);
	}
}

void ll_cache_return(struct landlock_lend *lend, bool reusable)
{
	struct ll_slot *s;

	if (!lend->gen)
		return;
	pthread_mutex_lock(&lock);
	s = &slots[lend->slot];
	if (s->used && s->lent && s->gen == lend->gen) {
		s->lent = false;
		s->pool_rules += lend->pool_rules;
		if (!reusable || s->pool_rules >= LL_POOL_RULES_MAX)
			slot_free(s);
	}
	pthread_mutex_unlock(&lock);
	lend->gen = 0;
	lend->pool_rules = 0;
}
