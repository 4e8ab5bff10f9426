/* SPDX-License-Identifier: MIT */
/* Which limit ended a run. Pure: facts in, a name out.
 *
 * A cgroup says so itself (pids.events "max", memory.events "oom_kill"). An
 * rlimit leaves only what the command made of its error: SIGXFSZ, or the
 * usual texts of EFBIG, of a refused fork (EAGAIN) and of a refused
 * allocation (ENOMEM, MemoryError, "out of memory"). A text counts only when
 * that limit was enforced and the run failed, as with denials. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "run_limits.h"

static bool contains(const char *text, size_t len, const char *needle)
{
	return memmem(text, len, needle, strlen(needle)) != NULL;
}

static bool any(const char *text, size_t len, const char *const *needles)
{
	for (size_t i = 0; needles[i]; i++)
		if (contains(text, len, needles[i]))
			return true;
	return false;
}

static const char *const file_size_texts[] = {
	"File size limit exceeded", /* bash, for a child SIGXFSZ ended */
	"File too large",           /* strerror(EFBIG): SIGXFSZ ignored (python) */
	NULL,
};

/* EAGAIN alone is too common (non-blocking I/O): it must come with a word
 * about making a process or thread. */
static const char *const fork_words[] = { "fork", "thread", "clone", "spawn", NULL };
static const char *const process_texts[] = {
	"unable to create native thread", /* java */
	"can't start new thread",         /* python */
	/* python's os.fork() under -c shows no source line naming the fork */
	"BlockingIOError: [Errno 11] Resource temporarily unavailable",
	NULL,
};

static const char *const memory_texts[] = {
	"Cannot allocate memory", /* strerror(ENOMEM) */
	"MemoryError",            /* python */
	"out of memory",          /* node ("JavaScript heap out of memory"), many */
	"Out of memory",
	"cannot allocate",        /* bash's xmalloc */
	"bad_alloc",              /* C++ */
	"memory exhausted",       /* gcc, bison */
	NULL,
};

const char *limit_hit(const struct limits_report *r, bool exited, int exit_code, int sig,
		      bool pids_event, bool oom_event, const char *err_text, size_t err_len)
{
	const char *t = err_text ? err_text : "";

	if (exited && exit_code == 0)
		return NULL;
	if (oom_event && r->memory)
		return "memory";
	if (r->file_size && ((!exited && sig == SIGXFSZ) || any(t, err_len, file_size_texts)))
		return "file_size";
	if (r->processes &&
	    (pids_event || any(t, err_len, process_texts) ||
	     (contains(t, err_len, "Resource temporarily unavailable") && any(t, err_len, fork_words))))
		return "processes";
	if (r->memory && any(t, err_len, memory_texts))
		return "memory";
	return NULL;
}

void limit_hit_marker(const struct limits_report *r, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!r->hit)
		return;
	if (strcmp(r->hit, "processes") == 0)
		snprintf(buf, size, "[sandbox: the run reached its process limit (%llu processes)]\n",
			 (unsigned long long)r->processes);
	else if (strcmp(r->hit, "memory") == 0)
		snprintf(buf, size, "[sandbox: the run reached its memory limit (%llu bytes)]\n",
			 (unsigned long long)r->memory);
	else if (strcmp(r->hit, "file_size") == 0)
		snprintf(buf, size, "[sandbox: the run reached its file size limit (%llu bytes)]\n",
			 (unsigned long long)r->file_size);
}
