/* SPDX-License-Identifier: MIT */
/* Inside the socket calls (supervisor_net*.c): one call as sbx will perform
 * it, with everything it needs copied out of the command. */
#ifndef SBX_SUPERVISOR_NET_H
#define SBX_SUPERVISOR_NET_H

#include <sys/socket.h>

#include "supervisor_int.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

/* Bytes copied for one call. A stream socket then sends less, as it may
 * (programs loop); a message that must go whole may be this large (more than
 * the kernel's default socket buffers allow anyway). Bounded so that a
 * command blocking many sends at once cannot grow serve without end. */
#define NET_MAX_STREAM (256u << 10)
#define NET_MAX_DATA (1u << 20)
#define NET_MAX_CONTROL (256u << 10)
#define NET_MAX_MSGS 1024           /* UIO_MAXIOV */
#define NET_MAX_IOV 1024
#define SCM_MAX_FDS 253

enum net_kind { NET_CONNECT, NET_SENDTO, NET_SENDMSG, NET_SENDMMSG };

struct net_msg {
	struct sockaddr_storage name;
	socklen_t namelen;
	char *data;
	size_t len;
	char *control;
	size_t controllen;
	int *fds;                 /* our copies of SCM_RIGHTS fds */
	size_t n_fds;
	size_t n_counted;         /* of sv_passing's count, given back with it */
	int target;               /* O_PATH on the unix socket file, -1 */
};

struct sv_net_op {
	struct supervisor *sv;
	enum net_kind kind;
	int sock;                 /* our copy of the command's socket */
	int type;                 /* SOCK_STREAM, ... */
	bool unix_family;
	bool check_listener;      /* connect: the listener must be ours */
	bool scoped;              /* an abstract name the kernel decides in the run's
				   * scope domain: performed on a worker made there */
	int net_unix;             /* check_listener, the caller's network namespace
				   * not ours (--net none): its /proc/PID/net/unix */
	int flags;                /* send flags, as the command gave them */
	int pidfd;                /* the caller (SIGPIPE) */
	int mem;                  /* sendmmsg: the caller's memory, for msg_len */
	uint64_t vec;             /* sendmmsg: where msg_len goes */
	size_t n_msgs;
	struct net_msg *msgs;
};

/* supervisor_net_read.c: copy the call's socket, names, data and control
 * messages out of the command, each name decided (sv_net_decide_name). 0 or
 * -errno (the answer). */
int sv_net_read(struct sv_call *c, struct sv_net_op *op);
/* supervisor_net_name.c: decide a message's name where the kernel would look
 * it up, and replace a unix path by our handle on the socket file. */
int sv_net_decide_name(struct sv_call *c, struct sv_net_op *op, struct net_msg *m);
/* supervisor_abstract.c: an abstract name where no scope decides it (below
 * Landlock ABI 6): 0 (reachable: a socket of this run's holds it, or the
 * command's socket lies in a network namespace of the run's) or -errno. */
int sv_abstract_decide(struct sv_call *c, const struct sv_net_op *op, const struct net_msg *m);
/* supervisor_net_read.c: give back what a message holds (its copies to the
 * closer), leaving it empty. */
void sv_net_msg_clear(struct sv_net_op *op, struct net_msg *m);
/* supervisor_net_read.c: n copies of passed fds held for sv's run no more. */
void sv_passing_give_back(struct supervisor *sv, size_t n);

#endif
