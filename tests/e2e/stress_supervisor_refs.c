/* SPDX-License-Identifier: MIT */
/* The supervisor never holds the last reference to a command's socket
 * (supervisor_mkdir.c and the metadata calls):
 * a stress reproducer, run by hand, not by `make check`:
 *
 *   make sbx tests/helpers/lingerclose tests/e2e/stress_supervisor_refs &&
 *   tests/e2e/stress_supervisor_refs --jobs 1
 *
 * A mkdir that names a TCP socket as its directory (mkdirat(sock, "x"),
 * mkdir("/proc/self/fd/S/x")), a watch on "/proc/self/fd/S", an
 * fchmod(sock) or fchownat(sock, "", AT_EMPTY_PATH) (landlock runner:
 * metadata calls), from a thread of a process that exits meanwhile, must
 * never leave the supervisor holding the last reference to that socket:
 * the last close of a socket with SO_LINGER waits until the peer takes its
 * data (a day here; a peer on the host that never reads), which stops the
 * run's dispatcher, every later supervised call of the run with it, and in
 * serve outlives the run. The run must finish, not time out.
 *
 * Why not in the suite: it is a race. Before commit bff37a3 the dispatcher
 * held a copy of the command's open file for the whole call, and this
 * fails in every case (about one stall in 300 tries). Since, it holds only
 * an O_PATH reopen, but the kernel's own look-up of /proc/<tid>/fd/N takes
 * the file for an instant, in our thread: about one stall in 70,000 tries
 * remains (one case in about 8 runs of this file). The copies sbx does
 * take are dropped by the closer alone (supervisor_release.c), and the
 * suite tests that without a race:
 * supervisor::last_reference_to_a_lingering_socket_holds_no_thread.
 */
#include "common.h"
#include "runner_params.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"

#ifdef CONFIG_SUPERVISOR

#define PARAMS(name, arr)                                                                  \
	ParameterizedTestParameters(supervisor_refs, name)                                         \
	{                                                                                   \
		return cr_make_param_array(struct cp, arr, sizeof arr / sizeof arr[0]);      \
	}

/* A peer on the host's loopback that takes connections (the kernel's
 * accept queue) and never reads a byte: its receive buffer is small. */
static int sink(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int small = 4096, s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert(s >= 0);
	cr_assert(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) == 0);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	cr_assert(bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(s, 2048) == 0);
	cr_assert(getsockname(s, (struct sockaddr *)&a, &len) == 0);
	*port = ntohs(a.sin_port);
	return s;
}

/* A copy of the helper where every runner's command sees it (the namespace
 * runner covers /tmp with its own). */
static char *helper_in(const char *dir, const char *name)
{
	char *dst = e2e_fmt("%s/%s", dir, name);
	char *argv[] = { "cp", (char *)e2e_helper(name), dst, NULL };
	struct e2e_out o;

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert(o.status == 0, "cp %s: %s", name, o.err);
	e2e_out_free(&o);
	cr_assert(chmod(dst, 0755) == 0);
	return dst;
}

PARAMS(mkdir_on_a_lingering_socket_never_stalls_the_supervisor, all_params)
ParameterizedTest(struct cp *p, supervisor_refs, mkdir_on_a_lingering_socket_never_stalls_the_supervisor,
		  .timeout = 300)
{
	enum e2e_user who = (enum e2e_user)p->user;
	const char *routes[] = { "at", "magic", "watch", "fchmod", "empty" };
	char *B = e2e_tmpdir(who), *R = e2e_fmt("%s/ws", B);
	char *h = helper_in(B, "lingerclose");

	cr_assert(e2e_mkdir(who, R) == 0);
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		int port, s = sink(&port);
		char *cmd = e2e_fmt("%s %d 600 %s", h, port, routes[i]);
		char *argv[] = { (char *)e2e_sbx(), "run", "--runner", (char *)runner_name[p->runner],
				 "--mode", "workspace-write", "--root", R, "--net", "allow",
				 "--timeout", "40", "--json", "--", cmd, NULL };
		struct e2e_out o;
		json_error_t jerr;
		json_t *j;

		e2e_run(who, argv, NULL, &o);
		close(s);
		j = json_loads(o.out, 0, &jerr);
		cr_assert(j, "[runner %s, user %s] no JSON result:\n%s\n%s",
			  runner_name[p->runner], e2e_user_name(who), o.out, o.err);
		const char *out = json_string_value(json_object_get(j, "stdout"));
		const char *text = json_string_value(json_object_get(j, "text"));

		cr_assert(!json_is_true(json_object_get(j, "timed_out")) &&
				  json_integer_value(json_object_get(j, "exit_code")) == 0 &&
				  ((out && strstr(out, "done 600")) || (text && strstr(text, "done 600"))),
			  "[runner %s, user %s] route %s: the supervisor stalled in the last "
			  "close of a lingering socket (the run did not finish):\n%s",
			  runner_name[p->runner], e2e_user_name(who), routes[i], o.out);
		json_decref(j);
		e2e_out_free(&o);
	}
}

#endif /* CONFIG_SUPERVISOR: a build without it has nothing to stress */
