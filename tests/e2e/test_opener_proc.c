/* SPDX-License-Identifier: MIT */
/* The run's opener performs the command's opens for writing with its own
 * rights, and a process may always write its own /proc/PID/mem. A command
 * had the opener open /proc/<opener>/mem and /proc/<opener>/maps (O_TRUNC
 * routes an open for reading to it too), wrote code into the opener and had
 * it make a setuid-root file on the host (namespace runner, root caller;
 * adversarial pass). In /proc the opener now opens for writing only what
 * the allow-list names (comm, the id maps, ...): the opener's mem and maps
 * are refused (the escape itself, code written into a running sbx, needs
 * the build's own offsets: this is its first step, checked where the kernel
 * answers it). A write to the command's own /proc/self/comm still works
 * (namespace runner; Landlock grants nothing in /proc). Both runners, as the caller and as nobody. */
#include "common.h"
#include "runner_params.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ParameterizedTestParameters(opener_proc, opener_memory_is_not_the_commands)
{
	return cr_make_param_array(struct cp, all_params, sizeof all_params / sizeof all_params[0]);
}

ParameterizedTest(struct cp *p, opener_proc, opener_memory_is_not_the_commands, .timeout = 120)
{
	enum e2e_user who = (enum e2e_user)p->user;
	const char *runner = runner_name[p->runner];
	char *root = e2e_tmpdir(who);
	char *tag = e2e_fmt("[runner %s, user %s]", runner, e2e_user_name(who));
	struct e2e_out o;

	e2e_require_runner(who, runner);
	/* Each open's errno, 0 if it was opened: the opener's mem for writing,
	 * its maps with O_TRUNC, then the command's own comm. */
	const char *py =
		"import os\n"
		"def comm(p):\n"
		"    try: return open('/proc/%s/comm' % p).read().strip()\n"
		"    except OSError: return ''  # gone meanwhile (the host's /proc)\n"
		"op = [int(p) for p in os.listdir('/proc') if p.isdigit() and comm(p) == 'sbx-opener']\n"
		"print('OPENER', len(op))\n"
		"def t(k, path, fl):\n"
		"    try:\n"
		"        os.close(os.open(path, fl)); print(k, 0)\n"
		"    except OSError as e:\n"
		"        print(k, e.errno)\n"
		"for p in op:\n"
		"    t('MEM', '/proc/%d/mem' % p, os.O_RDWR)\n"
		"    t('MAPS', '/proc/%d/maps' % p, os.O_RDONLY | os.O_TRUNC)\n"
		"try:\n"
		"    with open('/proc/self/comm', 'w') as f: f.write('renamed')\n"
		"except OSError as e: print('COMMERR', e.errno)\n"
		"print('COMM', open('/proc/self/comm').read().strip())\n";
	char *script = e2e_fmt("%s/probe.py", root);

	cr_assert(e2e_write_file(who, script, py) == 0);
	e2e_sbx_run(who, &o, "--runner", runner, "--mode", "workspace-write", "--root", root, "--",
		    e2e_fmt("python3 %s", script), NULL);
	cr_assert(o.status == 0, "%s exit %d:\n%s%s", tag, o.status, o.out, o.err);
	/* Landlock grants nothing in /proc: only the namespace runner's own. */
	cr_assert(p->runner != NAMESPACE || strstr(o.out, "COMM renamed"),
		  "%s the command's own comm was not written:\n%s%s", tag, o.out, o.err);
	if (strstr(o.out, "OPENER 0")) {
		/* No opener in this run (a kernel without SECCOMP_IOCTL_NOTIF_ADDFD):
		 * nothing to reach. This machine has one: say so. */
		cr_assert_fail("%s no sbx-opener in the run's /proc:\n%s", tag, o.out);
	}
	cr_assert(strstr(o.out, "MEM 0") == NULL, "%s the opener's memory was opened for writing:\n%s",
		  tag, o.out);
	cr_assert(strstr(o.out, "MAPS 0") == NULL, "%s the opener's maps were opened with O_TRUNC:\n%s",
		  tag, o.out);
	e2e_out_free(&o);
	e2e_rm_rf(root);
}
