/* SPDX-License-Identifier: MIT */
/* A run's scope thread (Landlock ABI 6+): a thread of sbx in a Landlock
 * domain of the run's own that scopes abstract unix sockets and restricts
 * nothing else. The run is spawned from it, so the command's domains lie
 * below that one; and the supervisor starts on it the threads that perform
 * the command's connects and sends to abstract names. The kernel then
 * decides those as it decides the command's own calls: a thread there
 * reaches the abstract sockets of the run's processes (domains below its
 * own) and none made outside the run, the host's or another run's. sbx never
 * connects for the command from a thread with more reach than the command.
 *
 * Why a domain of its own above the command's, not the command's ruleset
 * restricted again on a thread: each landlock_restrict_self makes a new
 * domain, and a scope lets a domain reach only what lies in it or below it;
 * a sibling of the command's domain would reach none of the run's sockets. */
#ifndef SBX_SCOPE_THREAD_H
#define SBX_SCOPE_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

/* Without a call made in the domain for this long, the thread ends: a run
 * that never names an abstract socket keeps no thread of it (the
 * supervisor's other workers go as soon). */
#define SCOPE_THREAD_IDLE_SECONDS 5

struct scope_thread;

/* A new scope thread, restricted before it returns; with refer, its domain
 * grants REFER everywhere (for a command whose own domain handles file
 * rights: scope_thread.c says why). NULL with *err (an errno: the kernel
 * has no ABI 6, no thread could be made). */
struct scope_thread *scope_thread_start(bool refer, int *err);
/* Whether its domain grants REFER. */
bool scope_thread_refers(const struct scope_thread *t);
/* A call is about to be made in the domain: false if the thread has ended
 * (idle before any call); else it stays, for the run, from now on. */
bool scope_thread_use(struct scope_thread *t);
/* fn(arg) on the thread; its return value, or -ESRCH once it has ended. */
int scope_thread_call(struct scope_thread *t, int (*fn)(void *), void *arg);
/* A detached thread made by the scope thread (in its domain), running
 * fn(arg) with the given stack size, every signal blocked. 0 or an errno
 * (ESRCH: it has ended). */
int scope_thread_spawn(struct scope_thread *t, size_t stack, void *(*fn)(void *), void *arg);
/* Its thread id: the children it spawns are listed under it in /proc. */
pid_t scope_thread_tid(const struct scope_thread *t);
void scope_thread_ref(struct scope_thread *t);
/* The last reference ends the thread (the threads it made and the domain
 * they share stay as long as they run). NULL is fine. */
void scope_thread_unref(struct scope_thread *t);

#endif
