/* SPDX-License-Identifier: MIT */
/* embed.c: run one command under libsbx and report what the sandbox did.
 *
 * Runs `echo hello > outside-file` in read-only mode with a fresh temporary
 * directory as the workspace root, prints the JSON result object (the one
 * `sbx run --json` prints: sbx(1), RESULT OBJECT) and whether the write was
 * denied. Exits 0 when the denial was reported, 1 when it was not, 2 when
 * sbx could not run the command.
 *
 * Build against an installed sbx (`make install PREFIX=/usr/local`), the
 * ordinary way (libsbx.so.0):
 *
 *     cc examples/embed.c $(pkg-config --cflags --libs sbx) -o embed
 *
 * or with the static archive (pkg-config --static adds what libsbx.a needs;
 * -Bstatic makes the linker take the archive over libsbx.so):
 *
 *     cc examples/embed.c $(pkg-config --cflags sbx) -Wl,-Bstatic -lsbx \
 *         -Wl,-Bdynamic $(pkg-config --libs --static sbx) -o embed
 *
 * Against a staged install (`make install DESTDIR=$D PREFIX=/usr`), point
 * pkg-config at the staged sbx.pc, move its prefix there, and let the loader
 * find the staged libsbx.so.0:
 *
 *     export PKG_CONFIG_PATH=$D/usr/lib/pkgconfig
 *     cc examples/embed.c $(pkg-config --define-variable=prefix=$D/usr \
 *         --cflags --libs sbx) -o embed
 *     LD_LIBRARY_PATH=$D/usr/lib ./embed
 *
 * The API is include/sbx.h; docs/embedding.md walks through it. libsbx leaves
 * this process as it found it: its own children, limits and signals are
 * untouched (sbx.h, beside sbx_run_execute). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbx.h>

static int fail(const char *what, int rc, const struct sbx_error *err)
{
	char *json = sbx_error_to_json(err);

	fprintf(stderr, "embed: %s failed (%s): %s: %s%s%s\n", what, strerror(-rc), err->code,
		err->message, err->detail[0] ? " - " : "", err->detail);
	if (json) {
		printf("%s\n", json);
		free(json);
	}
	return 2;
}

int main(void)
{
	char root[] = "/tmp/sbx-embed-XXXXXX";
	struct sbx_error err = { 0 };
	struct sbx_result *result = NULL;
	struct sbx_run *run;
	int rc, status = 2;

	if (!mkdtemp(root)) {
		perror("embed: mkdtemp");
		return 2;
	}
	run = sbx_run_new();
	if (!run) {
		fprintf(stderr, "embed: out of memory\n");
		rmdir(root);
		return 2;
	}

	/* Each setter returns 0 or a negative errno; check them all at once. */
	rc = sbx_run_set_command(run, "echo hello > outside-file");
	if (rc == 0)
		rc = sbx_run_set_mode(run, SBX_MODE_READ_ONLY);
	if (rc == 0)
		rc = sbx_run_set_root(run, root);
	if (rc == 0)
		rc = sbx_run_set_runner(run, SBX_RUNNER_AUTO);
	if (rc == 0)
		rc = sbx_run_set_timeout_ms(run, 10000);
	if (rc == 0)
		rc = sbx_run_set_escalation(run, true); /* we could ask the user */
	if (rc < 0) {
		sbx_error_set(&err, -rc, SBX_E_USAGE, NULL, "setting up the run");
		status = fail("configure", rc, &err);
		goto out;
	}

	/* 0: the command ran (whatever its exit status). <0: it did not run, and
	 * err says why (e.g. SANDBOX_UNAVAILABLE: no runner can confine it). */
	rc = sbx_run_execute(run, &result, &err);
	if (rc < 0) {
		status = fail("sbx_run_execute", rc, &err);
		goto out;
	}

	char *json = sbx_result_to_json(result);
	if (json) {
		printf("%s\n", json);
		free(json);
	}
	/* What most callers read first has an accessor; the rest is in the
	 * JSON. The streams are the bounded bytes, NULs included. */
	size_t err_len;
	const char *err_bytes = sbx_result_stderr(result, &err_len);
	bool denied = sbx_result_denied(result);

	printf("exit status: %d\n", sbx_result_exit_status(result));
	printf("signal: %d, timed out: %s\n", sbx_result_signal(result),
	       sbx_result_timed_out(result) ? "yes" : "no");
	printf("stderr (%zu bytes): ", err_len);
	fwrite(err_bytes, 1, err_len, stdout);
	printf("denied: %s\n", denied ? "yes" : "no");
	printf("markers:\n%s", sbx_result_markers(result));
	printf("what a model is shown:\n%s", sbx_result_text(result));
	status = denied ? 0 : 1;

out:
	sbx_result_free(result);
	sbx_run_free(run);
	/* Clean up; the file exists only if the write was (wrongly) allowed. */
	char file[sizeof(root) + sizeof("/outside-file")];
	snprintf(file, sizeof(file), "%s/outside-file", root);
	unlink(file);
	rmdir(root);
	return status;
}
