/* SPDX-License-Identifier: MIT */
/* The only thread sbx ever starts. It touches nothing but its queue and its
 * fd, takes no part in spawning (the clone child shares the spawning thread's
 * memory and uses no allocator), and has every signal blocked. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"
#include "serve_out.h"

struct out_line {
	struct out_line *next;
	size_t len;
	char text[];
};

static void *writer(void *arg)
{
	struct serve_out *o = arg;

	pthread_mutex_lock(&o->lock);
	for (;;) {
		while (!o->head && !o->closing)
			pthread_cond_wait(&o->wake, &o->lock);
		if (!o->head)
			break;
		struct out_line *line = o->head;

		o->head = line->next;
		if (!o->head)
			o->tail = NULL;
		pthread_mutex_unlock(&o->lock);
		int err = o->error ? 0 : -io_write_all(o->fd, line->text, line->len);

		free(line);
		pthread_mutex_lock(&o->lock);
		if (err && !o->error)
			o->error = err;
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

int serve_out_start(struct serve_out *o, int fd)
{
	sigset_t all, old;
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->wake, NULL);
	/* The thread inherits this mask: no signal is ever handled there. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&o->thread, NULL, writer, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -rc;
	o->started = true;
	return 0;
}

void serve_out_push(struct serve_out *o, const char *text, size_t len)
{
	struct out_line *line = malloc(sizeof(*line) + len + 1);

	if (!line)
		return;
	memcpy(line->text, text, len);
	line->text[len] = '\n';
	line->len = len + 1;
	line->next = NULL;
	pthread_mutex_lock(&o->lock);
	if (o->tail)
		o->tail->next = line;
	else
		o->head = line;
	o->tail = line;
	pthread_cond_signal(&o->wake);
	pthread_mutex_unlock(&o->lock);
}

int serve_out_error(struct serve_out *o)
{
	int err;

	pthread_mutex_lock(&o->lock);
	err = o->error;
	pthread_mutex_unlock(&o->lock);
	return err;
}

void serve_out_finish(struct serve_out *o)
{
	if (!o->started)
		return;
	pthread_mutex_lock(&o->lock);
	o->closing = true;
	pthread_cond_signal(&o->wake);
	pthread_mutex_unlock(&o->lock);
	pthread_join(o->thread, NULL);
	pthread_mutex_destroy(&o->lock);
	pthread_cond_destroy(&o->wake);
	o->started = false;
}
