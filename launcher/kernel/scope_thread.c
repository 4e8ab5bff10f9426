/* SPDX-License-Identifier: MIT */
/* A run's scope thread (scope_thread.h): one request at a time, each
 * waited for by its caller. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "landlock.h"
#include "scope_thread.h"

enum req_kind { REQ_NONE, REQ_CALL, REQ_SPAWN };

struct scope_thread {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int refs;
	bool refer;       /* the domain grants REFER everywhere */
	bool started, stopping;
	bool used;        /* a call was made in the domain: we stay for the run */
	bool gone;        /* idle, we ended: no thread of the domain is left to ask */
	int start_err;
	pid_t tid;
	/* the request in hand, and its answer; busy from a caller's turn to
	 * its answer read */
	bool busy;
	enum req_kind kind;
	bool done;
	int (*call)(void *);
	void *(*spawn)(void *);
	void *arg;
	size_t stack;
	int result;
};

static void destroy(struct scope_thread *t)
{
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t);
}

/* Into the scope domain: no_new_privs (asked by landlock_restrict_self of a
 * thread without CAP_SYS_ADMIN; the command sets it anyway), then a ruleset
 * that scopes abstract sockets. Both on this thread alone. With refer, it
 * also handles REFER and grants it everywhere: Landlock refuses a link or a
 * rename across directories in every layer that does not grant REFER once
 * any layer handles a file right (the landlock runner's do), and so ours
 * would refuse the command's. Without: it handles no file right at all, so
 * that a domain of only scopes below it lets the command mount (the
 * namespace runner's nested sandboxes). */
static int enter_scope(bool refer)
{
	struct sbx_ruleset_attr attr = {
		.handled_access_fs = refer ? LANDLOCK_ACCESS_FS_REFER : 0,
		.scoped = SBX_LANDLOCK_SCOPE_ABSTRACT_UNIX,
	};
	struct landlock_path_beneath_attr rule = { .allowed_access = LANDLOCK_ACCESS_FS_REFER };
	int ruleset, err = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return errno;
	if (refer) {
		rule.parent_fd = open("/", O_PATH | O_CLOEXEC);
		if (rule.parent_fd < 0 ||
		    syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
			err = errno;
		if (rule.parent_fd >= 0)
			close(rule.parent_fd);
	}
	if (!err && syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		err = errno;
	close(ruleset);
	return err;
}

static int spawn_here(struct scope_thread *t)
{
	pthread_attr_t attr;
	pthread_t th;
	int rc = pthread_attr_init(&attr);

	if (rc)
		return rc;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (t->stack)
		pthread_attr_setstacksize(&attr, t->stack);
	/* Our own mask is every signal blocked: the new thread is born so. */
	rc = pthread_create(&th, &attr, t->spawn, t->arg);
	pthread_attr_destroy(&attr);
	return rc;
}

static void *scope_main(void *arg)
{
	struct scope_thread *t = arg;
	int err = enter_scope(t->refer);

	pthread_mutex_lock(&t->lock);
	t->tid = (pid_t)syscall(SYS_gettid);
	t->start_err = err;
	t->started = true;
	pthread_cond_broadcast(&t->cond);
	while (!err) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += SCOPE_THREAD_IDLE_SECONDS;
		bool idle = false;

		while (t->kind == REQ_NONE && !t->stopping && !idle) {
			if (t->used || t->busy)
				pthread_cond_wait(&t->cond, &t->lock);
			else
				idle = pthread_cond_timedwait(&t->cond, &t->lock, &until) == ETIMEDOUT &&
				       t->kind == REQ_NONE && !t->used && !t->busy;
		}
		if (t->kind == REQ_NONE) {
			/* Asked to stop, or idle with no call made in the domain:
			 * a thread less for the run (the supervisor then decides
			 * abstract names itself, by identity). */
			t->gone = true;
			pthread_cond_broadcast(&t->cond);
			break;
		}
		pthread_mutex_unlock(&t->lock);
		int result = t->kind == REQ_CALL ? t->call(t->arg) : spawn_here(t);
		pthread_mutex_lock(&t->lock);
		t->result = result;
		t->kind = REQ_NONE;
		t->done = true;
		pthread_cond_broadcast(&t->cond);
	}
	/* The last reference is gone (or we never got going): ours to free. */
	bool last = --t->refs == 0;

	pthread_mutex_unlock(&t->lock);
	if (last)
		destroy(t);
	return NULL;
}

struct scope_thread *scope_thread_start(bool refer, int *err)
{
	struct scope_thread *t = calloc(1, sizeof(*t));
	pthread_attr_t attr;
	pthread_t th;
	sigset_t all, old;
	int rc;

	if (!t) {
		*err = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	t->refs = 2; /* the caller's and the thread's own */
	t->refer = refer;
	rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		/* Every signal blocked, as the supervisor's threads (ours and the
		 * ones it makes for the supervisor): the caller's signals belong
		 * to its own threads. spawn_child blocks them around its clone
		 * anyway. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = pthread_create(&th, &attr, scope_main, t);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	if (rc) {
		destroy(t);
		*err = rc;
		return NULL;
	}
	pthread_mutex_lock(&t->lock);
	while (!t->started)
		pthread_cond_wait(&t->cond, &t->lock);
	rc = t->start_err;
	pthread_mutex_unlock(&t->lock);
	if (rc) {
		/* It has ended (dropping its reference): drop ours. */
		scope_thread_unref(t);
		*err = rc;
		return NULL;
	}
	return t;
}

/* One request, waited for. Callers may come from several threads (the
 * engine, the supervisor's dispatcher): one at a time. */
static int request(struct scope_thread *t, enum req_kind kind)
{
	int result;

	t->kind = kind;
	t->done = false;
	pthread_cond_broadcast(&t->cond);
	while (!t->done)
		pthread_cond_wait(&t->cond, &t->lock);
	result = t->result;
	t->busy = false;
	pthread_cond_broadcast(&t->cond); /* the next caller may go */
	return result;
}

/* false: the thread has ended (no request can be made). */
static bool wait_turn(struct scope_thread *t)
{
	while (t->busy && !t->gone)
		pthread_cond_wait(&t->cond, &t->lock);
	if (t->gone)
		return false;
	t->busy = true;
	return true;
}

int scope_thread_call(struct scope_thread *t, int (*fn)(void *), void *arg)
{
	int result;

	pthread_mutex_lock(&t->lock);
	if (!wait_turn(t)) {
		pthread_mutex_unlock(&t->lock);
		return -ESRCH;
	}
	t->call = fn;
	t->arg = arg;
	result = request(t, REQ_CALL);
	pthread_mutex_unlock(&t->lock);
	return result;
}

int scope_thread_spawn(struct scope_thread *t, size_t stack, void *(*fn)(void *), void *arg)
{
	int result;

	pthread_mutex_lock(&t->lock);
	if (!wait_turn(t)) {
		pthread_mutex_unlock(&t->lock);
		return ESRCH;
	}
	t->spawn = fn;
	t->arg = arg;
	t->stack = stack;
	result = request(t, REQ_SPAWN);
	pthread_mutex_unlock(&t->lock);
	return result;
}

pid_t scope_thread_tid(const struct scope_thread *t)
{
	return t->tid;
}

bool scope_thread_use(struct scope_thread *t)
{
	bool alive;

	pthread_mutex_lock(&t->lock);
	alive = !t->gone;
	if (alive)
		t->used = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return alive;
}

bool scope_thread_refers(const struct scope_thread *t)
{
	return t->refer;
}

void scope_thread_ref(struct scope_thread *t)
{
	pthread_mutex_lock(&t->lock);
	t->refs++;
	pthread_mutex_unlock(&t->lock);
}

void scope_thread_unref(struct scope_thread *t)
{
	bool last;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	last = --t->refs == 0;
	/* Only the thread's own reference is left: it may go. */
	if (t->refs == 1)
		t->stopping = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	if (last)
		destroy(t);
}
