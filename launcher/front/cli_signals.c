/* SPDX-License-Identifier: MIT */
/* SIGTERM, SIGINT and SIGHUP to sbx (a harness cancelling, Ctrl-C, a closed
 * terminal) must not leave the run's tree behind: the handler only writes a
 * byte to a pipe the run watches, and the run ends its whole tree itself. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int cancel_pipe[2] = { -1, -1 };
static volatile sig_atomic_t cancel_signal;

static void on_signal(int sig)
{
	int saved = errno;
	char byte = (char)sig;

	if (!cancel_signal)
		cancel_signal = sig;
	/* Non-blocking: a full pipe already says "cancel". */
	ssize_t n = write(cancel_pipe[1], &byte, 1);

	(void)n;
	errno = saved;
}

int cli_cancel_install(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;

	if (pipe2(cancel_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	return cancel_pipe[0];
}

int cli_cancel_signal(void)
{
	return cancel_signal;
}
