/* SPDX-License-Identifier: MIT */
/* serve's spawner thread (see spawner.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher.h"
#include "run.h"
#include "spawner.h"

struct spawner {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct spawn_req *todo, **todo_tail;
	struct spawn_req *done, **done_tail;
	int done_fd;
	bool stopping;
};

static void *spawner_main(void *arg)
{
	struct spawner *sp = arg;

	/* Our children are runs being started, never a finished run's
	 * leftovers: the loop's walks of /proc pass them by (tree.c). */
	tree_spawner_is((pid_t)syscall(SYS_gettid));
	pthread_mutex_lock(&sp->lock);
	for (;;) {
		struct spawn_req *req;
		uint64_t one = 1;

		while (!sp->todo && !sp->stopping)
			pthread_cond_wait(&sp->work, &sp->lock);
		if (!sp->todo)
			break;
		req = sp->todo;
		sp->todo = req->next;
		if (!sp->todo)
			sp->todo_tail = &sp->todo;
		pthread_mutex_unlock(&sp->lock);
		if (run_spawn(req->cfg, &req->run, &req->err) < 0)
			req->run = NULL;
		pthread_mutex_lock(&sp->lock);
		req->next = NULL;
		*sp->done_tail = req;
		sp->done_tail = &req->next;
		(void)!write(sp->done_fd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&sp->lock);
	return NULL;
}

struct spawner *spawner_start(int *done_fd)
{
	struct spawner *sp = calloc(1, sizeof(*sp));
	sigset_t all, old;
	int rc;

	if (!sp)
		return NULL;
	sp->todo_tail = &sp->todo;
	sp->done_tail = &sp->done;
	sp->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sp->done_fd < 0) {
		free(sp);
		return NULL;
	}
	pthread_mutex_init(&sp->lock, NULL);
	pthread_cond_init(&sp->work, NULL);
	/* Born with every signal blocked: the caller's handlers run on its
	 * own thread, and the children start with all signals blocked anyway
	 * (spawn.c). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&sp->thread, NULL, spawner_main, sp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(sp->done_fd);
		free(sp);
		errno = rc;
		return NULL;
	}
	*done_fd = sp->done_fd;
	return sp;
}

void spawner_push(struct spawner *sp, struct spawn_req *req)
{
	pthread_mutex_lock(&sp->lock);
	req->next = NULL;
	*sp->todo_tail = req;
	sp->todo_tail = &req->next;
	pthread_cond_signal(&sp->work);
	pthread_mutex_unlock(&sp->lock);
}

struct spawn_req *spawner_take(struct spawner *sp)
{
	struct spawn_req *list;
	uint64_t n;

	(void)!read(sp->done_fd, &n, sizeof(n));
	pthread_mutex_lock(&sp->lock);
	list = sp->done;
	sp->done = NULL;
	sp->done_tail = &sp->done;
	pthread_mutex_unlock(&sp->lock);
	return list;
}

struct spawn_req *spawner_stop(struct spawner *sp)
{
	struct spawn_req *left;

	pthread_mutex_lock(&sp->lock);
	sp->stopping = true;
	pthread_cond_signal(&sp->work);
	pthread_mutex_unlock(&sp->lock);
	pthread_join(sp->thread, NULL);
	tree_spawner_is(0);
	left = spawner_take(sp);
	close(sp->done_fd);
	pthread_cond_destroy(&sp->work);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
	return left;
}
