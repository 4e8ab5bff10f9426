/* SPDX-License-Identifier: MIT */
/* A FIFO (named pipe) of the host outside the writable set is never opened
 * for writing by a confined command (issue 29, round 3, finding 10): a
 * read-only mount does not stop an open of a FIFO for writing, and the
 * run's opener opened it too; a host daemon that reads its commands from a
 * FIFO then acted for the command. Both runners (Landlock refuses it
 * itself), both confined modes, as the caller and as nobody. Checked from
 * outside: the test holds the host FIFO's reading end and finds nothing in
 * it after the run. And what stays: a FIFO the command makes in its
 * writable set, and its own pipes reopened (/dev/stdout), are written. */
#define RUN_FIXTURE_SUITE host_fifo
#include "run_fixture.h"

#include <sys/stat.h>

PARAMS(not_written_outside_the_writable_set, params_both);
ParameterizedTest(struct rp *p, host_fifo, not_written_outside_the_writable_set, .timeout = 120)
{
	static const char *const modes[] = { "read-only", "workspace-write" };
	struct fx f;

	fx_setup(&f, p);
	e2e_require_runner(p->who, p->runner);
	for (size_t m = 0; m < 2; m++) {
		char *fifo = e2e_fmt("%s/ctl-%zu.fifo", f.base, m);
		char *link = e2e_fmt("%s/link-%zu", f.ws, m);
		char got[256];
		struct e2e_out o;
		ssize_t n;
		int rd;

		cr_assert(mkfifo(fifo, 0600) == 0 && chown(fifo, e2e_uid(p->who), e2e_gid(p->who)) == 0);
		cr_assert(symlink(fifo, link) == 0);
		/* The host's reader, there before the run: a writer's open does
		 * not wait (nor fail with ENXIO). */
		rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		cr_assert(rd >= 0);
		/* In its own writable place (the workspace; the namespace
		 * runner's private /dev/shm in read-only mode), the command's
		 * own FIFO works. */
		const char *own = m == 1 ? "own.fifo" : "/dev/shm/own.fifo";
		bool own_expected = m == 1 || strcmp(p->runner, "namespace") == 0;

		run_x(&f, modes[m], NULL,
		      e2e_fmt("echo DIRECT > %s; echo direct=$?; echo VIA_LINK > %s; echo link=$?;"
			      " echo VIA_PIPE > /dev/stdout;"
			      " mkfifo %s && { cat %s > /dev/null & echo OWN_FIFO_$((6*7)) > %s && echo "
			      "own_written; wait; }",
			      fifo, link, own, own, own),
		      &o);
		n = read(rd, got, sizeof(got) - 1);
		got[n > 0 ? n : 0] = '\0';
		close(rd);
		cr_expect(n <= 0, "%s %s: the host's FIFO got \"%s\":\n%s%s", f.tag, modes[m], got,
			  o.out, o.err);
		cr_expect(strstr(o.out, "\"exit_code\":") != NULL, "%s %s: no run:\n%s%s", f.tag,
			  modes[m], o.out, o.err);
		cr_expect(strstr(o.out, "VIA_PIPE") != NULL, "%s %s: its own stdout reopened:\n%s",
			  f.tag, modes[m], o.out);
		if (own_expected)
			cr_expect(strstr(o.out, "own_written") != NULL,
				  "%s %s: its own FIFO in its writable place:\n%s%s", f.tag, modes[m],
				  o.out, o.err);
		e2e_out_free(&o);
	}
}

