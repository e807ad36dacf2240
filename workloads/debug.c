/* SPDX-License-Identifier: MIT */
/*
 * `debug`: a hidden workload that misbehaves on request, so the runner
 * and the record parser can be tested against every way a real workload
 * (or a guest) can fail: errors, hangs, crashes, early exits, console
 * noise mixed with forged frames, record floods, text meant for a
 * terminal or a spreadsheet (mode=hostile); and spins, a fixed amount of
 * CPU work timed, whose time a CPU hog on its CPU doubles (the compare
 * tests' regression).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

struct debug_params {
	const char *mode;
	uint64_t seconds;
	long long records;
	long long work;
};

static const char *const debug_modes[] = {
	"ok",	"fail",	 "hang",  "crash", "exit",    "garbage",
	"flood", "sleep", "panic", "spin",  "hostile", NULL,
};

static const struct vtb_opt debug_opts[] = {
	{ .name = "mode",
	  .type = VTB_OPT_ENUM,
	  .def = "ok",
	  .values = debug_modes,
	  .help = "what to do",
	  .shortopt = 'm',
	  .off = offsetof(struct debug_params, mode) },
	{ .name = "seconds",
	  .type = VTB_OPT_TIME,
	  .def = "1s",
	  .help = "sleep length for mode=sleep",
	  .shortopt = 's',
	  .off = offsetof(struct debug_params, seconds) },
	{ .name = "records",
	  .type = VTB_OPT_INT,
	  .def = "1000",
	  .min = 0,
	  .max = 100000000,
	  .help = "sample records for mode=flood",
	  .shortopt = 'n',
	  .off = offsetof(struct debug_params, records) },
	{ .name = "work",
	  .type = VTB_OPT_INT,
	  .def = "20000000",
	  .min = 1,
	  .max = 100000000000LL,
	  .help = "steps of arithmetic for mode=spin (reported as seconds)",
	  .shortopt = 'w',
	  .off = offsetof(struct debug_params, work) },
	{ .name = NULL },
};

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u),
		.tv_nsec = (long)(ns % 1000000000u),
	};

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Noise, a frame with a bad CRC and one with a foreign nonce: a parser
 * must count the first, reject the other two, and keep going. */
static int garbage(struct vtb_workload_ctx *ctx)
{
	static const char noise[] = "[    1.234567] random kernel console noise\n"
				    "vtb1 looks like a record but is not\n"
				    "\n";
	const char *bad_crc = "{\"type\":\"sample\",\"cell\":\"x\"}";
	char *line = NULL;
	int ret = -1;

	if (!ctx->rec)
		return 0;
	if (vtb_rec_write_raw(ctx->rec, noise, strlen(noise)))
		goto out;
	line = vtb_asprintf("%s %s %s %08x\n", VTB_REC_MAGIC, ctx->rec->nonce, bad_crc,
			    (unsigned)(vtb_crc32(bad_crc, strlen(bad_crc)) ^ 1u));
	if (!line || vtb_rec_write_raw(ctx->rec, line, strlen(line)))
		goto out;
	free(line);
	line = vtb_rec_frame("f00dfeed", bad_crc);
	if (!line || vtb_rec_write_raw(ctx->rec, line, strlen(line)))
		goto out;
	ret = 0;
out:
	if (!line && ret)
		vtb_error("out of memory");
	free(line);
	return ret;
}

/* What a hostile guest would say: an OSC 52 sequence (writes the user's
 * clipboard in some terminals), a bell, a carriage return that rewrites
 * the line, in an error record, a sample named like a spreadsheet
 * formula, and a failure message with escapes.  The harness must show
 * them as text, keep them as they are, and neutralise the formula. */
static int hostile(struct vtb_workload_ctx *ctx)
{
	if (vtb_report_error(ctx, "\x1b]52;c;ZXZpbA==\x07"
				  "clipboard\r\x1b[2Kall fine") ||
	    vtb_report_sample(ctx, "=HYPERLINK(\"http://example.invalid/\",\"x\")", "+count", 1.0,
			      VTB_BETTER_HIGHER))
		return -1;
	return vtb_error("\x1b[31mred\x07 and\rforged");
}

/* Each record its own metric: a second sample of one metric in a cell is
 * refused by the parser (one value per boot and metric). */
static int flood_one(struct vtb_workload_ctx *ctx, long long i)
{
	char metric[32];
	json_t *r;
	int ret;

	snprintf(metric, sizeof(metric), "flood_%lld", i);
	r = json_pack("{s:s, s:s, s:s, s:s, s:f, s:s}", "type", "sample", "cell", ctx->cell,
		      "metric", metric, "unit", "count", "value", (double)i, "better", "higher");

	if (!r)
		return vtb_error("out of memory");
	ret = vtb_rec_write(ctx->rec, r);
	json_decref(r);
	return ret;
}

/* In a vtbench guest, PID 1 is this very binary (/init); on a host it is
 * systemd or another init. */
static bool in_guest(void)
{
	char self[256], init[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ssize_t m = readlink("/proc/1/exe", init, sizeof(init) - 1);

	if (n <= 0 || m <= 0)
		return false;
	self[n] = init[m] = '\0';
	return !strcmp(self, init) && !strcmp(init, "/init");
}

/* Crashes the kernel through sysrq, so the harness's panic handling can
 * be tested.  Only as a guest's /init: never on a host. */
static int panic_guest(void)
{
	int fd;

	if (!in_guest())
		return vtb_error(
			"mode=panic crashes the kernel: it runs only under a guest's /init");
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return vtb_error("cannot open /proc/sysrq-trigger: %s", strerror(errno));
	fflush(stdout);
	if (write(fd, "c", 1) != 1) {
		close(fd);
		return vtb_error("cannot trigger a panic: %s", strerror(errno));
	}
	close(fd);
	return vtb_error("the kernel did not panic");
}

/* A fixed amount of CPU work, timed on the monotonic clock: a CPU-bound
 * single thread, so a hog on its CPU takes half of it. */
static int spin(struct vtb_workload_ctx *ctx, long long work)
{
	volatile uint64_t x = 1;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long long i = 0; i < work; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return vtb_report_sample(ctx, "seconds", "s",
				 (double)(t1.tv_sec - t0.tv_sec) +
					 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
				 VTB_BETTER_LOWER);
}

static int debug_run(void *params, struct vtb_workload_ctx *ctx)
{
	struct debug_params *p = params;
	long long i;

	if (strcmp(p->mode, "fail") == 0)
		return vtb_error("debug workload failing on request");
	if (strcmp(p->mode, "hang") == 0) {
		for (;;)
			pause();
	}
	if (strcmp(p->mode, "crash") == 0)
		abort();
	if (strcmp(p->mode, "panic") == 0)
		return panic_guest();
	if (strcmp(p->mode, "exit") == 0)
		_exit(3);
	if (strcmp(p->mode, "garbage") == 0 && garbage(ctx))
		return -1;
	if (strcmp(p->mode, "hostile") == 0)
		return hostile(ctx);
	if (strcmp(p->mode, "flood") == 0) {
		/* Written directly: the summary must not keep N samples. */
		for (i = 0; ctx->rec && i < p->records; i++)
			if (flood_one(ctx, i))
				return -1;
		return vtb_report_info(ctx, "records", json_integer(p->records));
	}
	if (strcmp(p->mode, "spin") == 0)
		return spin(ctx, p->work);
	if (strcmp(p->mode, "sleep") == 0)
		sleep_ns(p->seconds);
	return vtb_report_sample(ctx, "value", "count", 1.0, VTB_BETTER_HIGHER);
}

const struct vtb_workload_ops vtb_workload_debug = {
	.name = "debug",
	.summary = "misbehaves on request, for runner and parser tests (no reference)",
	.opts = debug_opts,
	.params_size = sizeof(struct debug_params),
	.run = debug_run,
	.hidden = true,
};
