/* SPDX-License-Identifier: MIT */
/* The command's language (launcher/engine/locale_dialect.c): glibc's rules
 * on catalogs this test writes, and, on the machine's own catalogs, the
 * same texts a child process's C library prints under the same variables. */
#include <criterion/criterion.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "locale_dialect.h"
#include "mo_catalog.h"

#define RO_EN "Read-only file system"
#define AC_EN "Permission denied"

struct msg {
	const char *id, *str;
};

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct msg *)a)->id, ((const struct msg *)b)->id);
}

/* A .mo file: the header entry plus msgs, originals sorted, as msgfmt writes. */
static void write_mo(const char *path, const char *charset, const struct msg *in, size_t n)
{
	struct msg m[16];
	char header[128];
	uint32_t hdr[7], tab[2 * 2 * 16];
	size_t off;
	FILE *f;

	cr_assert(n + 1 <= 16);
	snprintf(header, sizeof(header), "Content-Type: text/plain; charset=%s\n", charset);
	m[0] = (struct msg){ "", header };
	memcpy(m + 1, in, n * sizeof(*in));
	n++;
	qsort(m, n, sizeof(m[0]), by_id);
	hdr[0] = 0x950412de;
	hdr[1] = 0;
	hdr[2] = (uint32_t)n;
	hdr[3] = 28;
	hdr[4] = 28 + (uint32_t)n * 8;
	hdr[5] = hdr[6] = 0;
	off = 28 + n * 16;
	for (size_t i = 0; i < n; i++) {
		tab[2 * i] = (uint32_t)strlen(m[i].id);
		tab[2 * i + 1] = (uint32_t)off;
		off += strlen(m[i].id) + 1;
	}
	for (size_t i = 0; i < n; i++) {
		tab[2 * n + 2 * i] = (uint32_t)strlen(m[i].str);
		tab[2 * n + 2 * i + 1] = (uint32_t)off;
		off += strlen(m[i].str) + 1;
	}
	f = fopen(path, "wb");
	cr_assert(f, "%s: %s", path, strerror(errno));
	fwrite(hdr, sizeof(hdr), 1, f);
	fwrite(tab, sizeof(uint32_t), 4 * n, f);
	for (size_t i = 0; i < n; i++)
		fwrite(m[i].id, strlen(m[i].id) + 1, 1, f);
	for (size_t i = 0; i < n; i++)
		fwrite(m[i].str, strlen(m[i].str) + 1, 1, f);
	fclose(f);
}

static char dir[] = "/tmp/sbx-locale-test-XXXXXX";

static void catalog(const char *lang, const char *charset, const struct msg *m, size_t n)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, lang);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/LC_MESSAGES", dir, lang);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/LC_MESSAGES/libc.mo", dir, lang);
	write_mo(path, charset, m, n);
}

static void setup(void)
{
	static const struct msg xx[] = { { RO_EN, "xx-ro" }, { AC_EN, "xx-ac" } };
	static const struct msg xx_yy[] = { { RO_EN, "xx_YY-ro" } };
	static const struct msg only_ac[] = { { AC_EN, "yy-ac" } };
	static const struct msg latin1[] = { { RO_EN, "gr\xfcn" } };

	cr_assert(mkdtemp(dir));
	catalog("xx", "UTF-8", xx, 2);
	catalog("xx_YY", "UTF-8", xx_yy, 1);
	catalog("yy", "UTF-8", only_ac, 1);
	catalog("ll", "ISO-8859-1", latin1, 1);
	char alias[512];
	snprintf(alias, sizeof(alias), "%s/locale.alias", dir);
	FILE *f = fopen(alias, "w");
	cr_assert(f);
	fputs("# aliases\nfancy\txx_YY.ISO-8859-1\n", f);
	fclose(f);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect(system(cmd) == 0);
}

static struct dialect_texts derive(const char *lc_all, const char *lc_messages, const char *lang,
				   const char *language)
{
	struct locale_vars v = { .lc_all = lc_all, .lc_messages = lc_messages, .lang = lang,
				 .language = language };
	struct dialect_texts t;

	locale_dialect_derive(&v, dir, &t);
	return t;
}

/* index 0 is EROFS, 1 EACCES (classify.h) */
TestSuite(locale, .init = setup, .fini = teardown);

Test(locale, language_applies_outside_the_c_locale)
{
	struct dialect_texts t = derive(NULL, NULL, "C.UTF-8", "xx");

	cr_expect_str_eq(t.text[0], "xx-ro");
	cr_expect_str_eq(t.text[1], "xx-ac");
	cr_expect_str_eq(t.text[2], "", "no translation: English");
}

Test(locale, the_c_locale_ignores_language)
{
	cr_expect_str_eq(derive("C", NULL, NULL, "xx").text[0], "");
	cr_expect_str_eq(derive("POSIX", NULL, NULL, "xx").text[0], "");
	cr_expect_str_eq(derive(NULL, NULL, NULL, "xx").text[0], "", "nothing set is C");
}

Test(locale, precedence_of_the_variables)
{
	/* LC_MESSAGES=C wins over LANG: the C locale, LANGUAGE ignored */
	cr_expect_str_eq(derive(NULL, "C", "C.UTF-8", "xx").text[0], "");
	/* LC_ALL wins over LC_MESSAGES */
	cr_expect_str_eq(derive("C.UTF-8", "C", NULL, "xx").text[0], "xx-ro");
	cr_expect_str_eq(derive("C", "C.UTF-8", NULL, "xx").text[0], "");
	/* a locale the machine lacks leaves the program in C */
	cr_expect_str_eq(derive(NULL, NULL, "qq_QQ.UTF-8", "xx").text[0], "");
}

Test(locale, language_list_order_and_c_entry)
{
	struct dialect_texts t = derive(NULL, NULL, "C.UTF-8", "yy:xx");

	/* yy has only EACCES: EROFS comes from the next language */
	cr_expect_str_eq(t.text[0], "xx-ro");
	cr_expect_str_eq(t.text[1], "yy-ac");
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "C:xx").text[0], "");
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "::xx").text[0], "xx-ro");
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "zz").text[0], "", "no catalog: English");
}

Test(locale, variants_from_specific_to_general)
{
	/* xx_YY has EROFS, only xx has EACCES */
	struct dialect_texts t = derive(NULL, NULL, "C.UTF-8", "xx_YY.UTF-8@mod");

	cr_expect_str_eq(t.text[0], "xx_YY-ro");
	cr_expect_str_eq(t.text[1], "xx-ac");
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "xx_ZZ").text[0], "xx-ro");
}

Test(locale, aliases_and_charsets)
{
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "fancy").text[0], "xx_YY-ro");
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "ll").text[0], "gr\xc3\xbcn",
			 "ISO-8859-1 catalog converted to the locale's UTF-8");
}

Test(locale, names_that_leave_the_directory_are_refused)
{
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "../xx").text[0], "");
	cr_expect_str_eq(derive(NULL, NULL, "C.UTF-8", "xx/../xx").text[0], "");
}

Test(locale, damaged_catalogs_are_no_translation)
{
	static const unsigned char bad[][28] = {
		{ 0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x0f },
		{ 0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0x12, 0x34 },
	};
	struct mo_catalog c;
	size_t len;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mo_open(&c, bad[i], sizeof(bad[i])))
			cr_expect_null(mo_lookup(&c, RO_EN, &len), "catalog %zu", i);
}

/* ---- the machine's own catalogs against its own C library ---- */

/* What strerror prints in a process whose environment is env after
 * setlocale(LC_ALL, ""), as every localized tool starts. */
static void child_strerror(char *const env[], char out[4][256])
{
	int p[2];

	cr_assert(pipe(p) == 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		static const int errs[4] = { EROFS, EACCES, EXDEV, EPERM };
		char buf[1024];
		size_t o = 0;

		clearenv();
		for (size_t i = 0; env[i]; i++)
			putenv(env[i]);
		setlocale(LC_ALL, "");
		for (int i = 0; i < 4; i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s\n", strerror(errs[i]));
		_exit(write(p[1], buf, o) == (ssize_t)o ? 0 : 1);
	}
	close(p[1]);
	char buf[1024];
	ssize_t n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	waitpid(pid, NULL, 0);
	cr_assert(n > 0);
	buf[n] = '\0';
	char *line = buf;
	for (int i = 0; i < 4; i++) {
		char *nl = strchr(line, '\n');
		cr_assert(nl);
		*nl = '\0';
		cr_assert(strlen(line) < 256);
		memcpy(out[i], line, strlen(line) + 1);
		line = nl + 1;
	}
}

Test(locale, same_texts_as_the_c_library_prints)
{
	static char *const envs[][4] = {
		{ "LANG=C.UTF-8", "LANGUAGE=de", NULL },
		{ "LANG=C.UTF-8", "LANGUAGE=zh_CN", NULL },
		{ "LANG=C.UTF-8", "LANGUAGE=xx:fr:de", NULL },
		{ "LC_ALL=C", "LANGUAGE=de", NULL },
		{ "LANG=de_DE.UTF-8", NULL },
		{ "LANG=zh_CN.UTF-8", NULL },
		{ "LANG=zh_CN.UTF-8", "LANGUAGE=de_AT:de", NULL },
		{ "LC_ALL=de_DE.UTF-8", "LC_MESSAGES=C", NULL },
		{ "LC_MESSAGES=de_DE.UTF-8", "LANG=C.UTF-8", NULL },
		{ "LANG=C.UTF-8", "LANGUAGE=C:de", NULL },
	};
	char want[4][256];
	struct dialect_texts got;
	bool translated = false;

	for (size_t e = 0; e < sizeof(envs) / sizeof(envs[0]); e++) {
		child_strerror(envs[e], want);
		locale_dialect_for_env(envs[e], &got);
		for (int i = 0; i < 4; i++) {
			const char *expect = want[i];
			char en[256];

			snprintf(en, sizeof(en), "%s", strerror_l(dialect_errno(dialect_bit((unsigned)i)),
								   newlocale(LC_ALL_MASK, "C", 0)));
			if (strcmp(expect, en) == 0)
				expect = ""; /* English: nothing to add */
			else
				translated = true;
			cr_expect_str_eq(got.text[i], expect, "env %zu (%s %s), errno index %d", e,
					 envs[e][0], envs[e][1] ? envs[e][1] : "", i);
		}
	}
	/* the machine ships translations (scripts/deps.sh: libc-l10n): at
	 * least LANGUAGE=de under C.UTF-8 must have been translated */
	cr_expect(translated, "no translated strerror text at all: is libc-l10n installed?");
}
