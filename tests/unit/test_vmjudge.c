/* SPDX-License-Identifier: MIT */
/*
 * How a VM boot is judged from what libvirt and the record stream said:
 * each failure path gives its own status and a message that says what
 * happened; a record stream reassembled from arbitrary chunks (as a
 * console stream delivers it, with console noise and CRLF) judges ok.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/boot/provision.h"
#include "../../harness/records/recparse.h"
#include "../../common/record.h"
#include "../../common/vtbutil.h"

#define NONCE "5eed"

/* A complete, valid stream of one ok membw-like cell. */
static char *good_stream(void)
{
	static const char *const rec[] = {
		"{\"type\":\"header\",\"schema\":1,\"agent\":\"t\",\"kernel\":\"6.1.0\",\"cmdline\":\"x\",\"hostname\":\"g\",\"pid1\":true,\"cpus\":\"0-1\",\"cpu\":null,\"boot\":null,\"config\":null}",
		"{\"type\":\"cell\",\"cell\":\"k\",\"workload\":\"membw\",\"params\":{}}",
		"{\"type\":\"sample\",\"cell\":\"k\",\"metric\":\"triad\",\"unit\":\"MB/s\",\"value\":1234.5,\"better\":\"higher\"}",
		"{\"type\":\"cell_end\",\"cell\":\"k\",\"status\":\"ok\",\"seconds\":1.0,\"info\":{}}",
		"{\"type\":\"end\",\"status\":\"ok\",\"cells\":1}",
	};
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t i;

	vtb_strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0\r\nnoise\r\n");
	for (i = 0; i < VTB_ARRAY_SIZE(rec); i++) {
		char *f = vtb_rec_frame(NONCE, rec[i]);

		cr_assert_not_null(f);
		/* a tty in cooked mode would add \r: tolerated */
		f[strlen(f) - 1] = '\0';
		vtb_strbuf_addf(&sb, "%s\r\n", f);
		free(f);
	}
	return vtb_strbuf_detach(&sb);
}

static struct vtb_rec_parser *parse_chunked(const char *s, unsigned seed)
{
	struct vtb_rec_parser *p = vtb_rec_parser_new(NONCE, NULL);
	size_t len = strlen(s), off = 0;

	srand(seed);
	while (off < len) {
		size_t n = 1 + (size_t)rand() % 97;

		if (n > len - off)
			n = len - off;
		vtb_rec_parser_feed(p, s + off, n);
		off += n;
	}
	vtb_rec_parser_finish(p);
	return p;
}

Test(vmjudge, records_in_any_chunking_judge_ok)
{
	char *s = good_stream();
	struct vtb_vm_facts f = { .timeout_ns = 60000000000ull };

	for (unsigned seed = 1; seed <= 50; seed++) {
		struct vtb_rec_parser *p = parse_chunked(s, seed);
		const struct vtb_boot_records *r = vtb_rec_parser_result(p);
		char *err = NULL;
		const char *st = vtb_vm_judge(&f, r, &err);

		cr_expect_str_eq(st, "ok", "seed %u: %s", seed, err ? err : "");
		cr_expect_eq(r->n_samples, 1);
		cr_expect_eq(r->noise_lines, 2);
		free(err);
		vtb_rec_parser_free(p);
	}
	free(s);
}

static const char *judge_with(struct vtb_vm_facts *f, const char *stream, char **err)
{
	struct vtb_rec_parser *p = parse_chunked(stream ? stream : "", 7);
	const char *st = vtb_vm_judge(f, vtb_rec_parser_result(p), err);

	vtb_rec_parser_free(p);
	return st;
}

Test(vmjudge, timeout_says_how_long_and_how_far)
{
	struct vtb_vm_facts f = { .timed_out = true, .timeout_ns = 20000000000ull };
	char *s = good_stream(), *err = NULL;

	s[strlen(s) / 2] = '\0'; /* the guest stopped writing half way */
	cr_expect_str_eq(judge_with(&f, s, &err), "timeout");
	cr_expect(strstr(err, "did not power off within 20 s"), "%s", err);
	cr_expect(strstr(err, "records read"), "%s", err);
	free(err);
	free(s);
}

Test(vmjudge, a_panic_from_libvirt_or_the_console_fails_the_boot)
{
	struct vtb_vm_facts f = { .panicked = true };
	char *s = good_stream(), *err = NULL;

	cr_expect_str_eq(judge_with(&f, s, &err), "failed");
	cr_expect(!strncmp(err, "the guest kernel panicked", 25), "%s", err);
	free(err);
	f = (struct vtb_vm_facts){
		.console_tail = "[ 3.1] sysrq: Trigger a crash\n"
				"[ 3.2] Kernel panic - not syncing: sysrq triggered crash\n"
				"[ 3.3] CPU: 0 PID: 1\n"
	};
	cr_expect_str_eq(judge_with(&f, s, &err), "failed");
	cr_expect_str_eq(
		err,
		"the guest kernel panicked: Kernel panic - not syncing: sysrq triggered crash");
	free(err);
	free(s);
}

Test(vmjudge, start_failures_qemu_failures_and_silence)
{
	struct vtb_vm_facts f = { .start_error = "cannot start the guest: no such file" };
	char *err = NULL;

	cr_expect_str_eq(judge_with(&f, NULL, &err), "failed");
	cr_expect_str_eq(err, "cannot start the guest: no such file");
	free(err);
	f = (struct vtb_vm_facts){ .qemu_failed = true };
	cr_expect_str_eq(judge_with(&f, NULL, &err), "failed");
	cr_expect(strstr(err, "QEMU failed"), "%s", err);
	free(err);
	f = (struct vtb_vm_facts){ .stream_error = "stream aborted" };
	cr_expect_str_eq(judge_with(&f, "just console noise\n", &err), "failed");
	cr_expect_str_eq(
		err,
		"the guest wrote no records: stream aborted (its console tail is kept with the boot)");
	free(err);
	f = (struct vtb_vm_facts){ .interrupted = true, .timed_out = true };
	cr_expect_str_eq(judge_with(&f, NULL, &err), "interrupted");
	cr_expect_null(err);
}

Test(vmjudge, a_stream_cut_before_its_end_fails)
{
	struct vtb_vm_facts f = { 0 };
	char *s = good_stream(), *err = NULL, *end = strstr(s, "{\"type\":\"end\"");

	/* drop the end record's whole line */
	end = strrchr(s, '@');
	*end = '\0';
	cr_expect_str_eq(judge_with(&f, s, &err), "failed");
	cr_expect(strstr(err, "without its end record"), "%s", err);
	free(err);
	free(s);
}

/* The wait loop's decisions, turn by turn, as a fake stream and domain
 * would drive them. */
Test(vmjudge, wait_step_ends_on_both_ends_grace_timeout_or_stop)
{
	struct vtb_vm_wait w = { .now = 100, .deadline = 1000, .grace_ns = 50 };

	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "nothing happened yet");
	w.records_eof = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "EOF alone waits for the stop");
	cr_expect_eq(w.grace_until, 150);
	w.now = 140;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT);
	cr_expect_eq(w.grace_until, 150, "the grace is not restarted");
	w.stopped = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_DONE, "both ends: done");

	w = (struct vtb_vm_wait){ .now = 100, .deadline = 1000, .grace_ns = 50, .stopped = true };
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "stopped, records may still drain");
	w.now = 150;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_DONE, "the grace ran out");

	w = (struct vtb_vm_wait){ .now = 1000, .deadline = 1000, .grace_ns = 50 };
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_TIMEOUT, "a silent guest times out");
	w.stop = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_STOP, "a stop request wins over everything");
	w = (struct vtb_vm_wait){
		.now = 10, .deadline = 1000, .records_eof = true, .stopped = true, .stop = true
	};
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_STOP);
	/* a guest that keeps writing past its deadline is still timed out */
	w = (struct vtb_vm_wait){ .now = 2000,
				  .deadline = 1000,
				  .grace_ns = 50,
				  .records_eof = true,
				  .grace_until = 2100 };
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_TIMEOUT);
}

/* Once the end record is checked the harness has every record: the
 * domain is destroyed there (once), not left to power off, and the boot
 * still ends on both ends (or the grace) as before. */
Test(vmjudge, wait_step_destroys_once_the_end_record_is_in)
{
	struct vtb_vm_wait w = { .now = 100, .deadline = 1000, .grace_ns = 50, .ended = true };

	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_END, "the end record: destroy the domain");
	cr_expect(w.destroyed);
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "destroyed once, then wait for its stop");
	w.stopped = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "stopped, the stream may still drain");
	w.records_eof = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_DONE, "both ends: done");

	w = (struct vtb_vm_wait){
		.now = 100, .deadline = 1000, .grace_ns = 50, .ended = true, .stopped = true
	};
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "already stopped: nothing to destroy");
	w = (struct vtb_vm_wait){ .now = 1000, .deadline = 1000, .ended = true };
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_TIMEOUT, "the deadline still wins");
	w = (struct vtb_vm_wait){ .now = 100, .deadline = 1000, .ended = true, .stop = true };
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_STOP, "and so does a stop request");
	w = (struct vtb_vm_wait){ .now = 100, .deadline = 1000, .grace_ns = 50 };
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "no end record: the guest powers off itself");
}

/* The destroy after the end record runs in the background: the boot is
 * over once the records ended and its QEMU exited (the next guest may
 * then run), without libvirt's stop event, which comes only after
 * libvirt's own teardown.  Before it exited the boot is not over; an
 * exit without that destroy (a guest that died) still waits for the
 * stop event, which says how it ended. */
Test(vmjudge, wait_step_after_the_end_needs_qemu_gone_not_libvirts_teardown)
{
	struct vtb_vm_wait w = { .now = 100, .deadline = 1000, .grace_ns = 50, .ended = true };

	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_END);
	w.records_eof = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "the records ended, QEMU still there");
	w.exited = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_DONE, "records ended and QEMU exited: done");

	w = (struct vtb_vm_wait){
		.now = 100, .deadline = 1000, .grace_ns = 50, .destroyed = true, .exited = true
	};
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT, "QEMU gone, the records may still drain");
	cr_expect_eq(w.grace_until, 150, "the exit starts the grace like the stop event");
	w.now = 150;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_DONE, "the grace ran out");

	w = (struct vtb_vm_wait){
		.now = 100, .deadline = 1000, .grace_ns = 50, .records_eof = true, .exited = true
	};
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_WAIT,
		     "not destroyed by us: the stop event says how it ended");
	w.stopped = true;
	cr_expect_eq(vtb_vm_wait_step(&w), VTB_VM_DONE);
}

/* Issue 18: one place decides a boot's status.  The harness's checks
 * after the boot only demote an ok boot, and the first reason stays. */
Test(vmjudge, checks_after_the_boot_only_demote_an_ok_boot)
{
	const char *status = "ok";
	char *error = NULL;

	vtb_boot_demote(&status, &error, "unexpected-topology", NULL);
	cr_assert_str_eq(status, "unexpected-topology");
	cr_assert_null(error);
	vtb_boot_demote(&status, &error, "failed", strdup("later"));
	cr_assert_str_eq(status, "unexpected-topology", "a later check overrode the first");
	cr_assert_null(error);
	status = "ok";
	vtb_boot_demote(&status, &error, "failed", strdup("libvirt pinned vCPU 0 elsewhere"));
	cr_assert_str_eq(status, "failed");
	cr_assert_str_eq(error, "libvirt pinned vCPU 0 elsewhere");
	vtb_boot_demote(&status, &error, "failed", strdup("second"));
	cr_assert_str_eq(error, "libvirt pinned vCPU 0 elsewhere");
	free(error);
	status = "timeout";
	error = strdup("the guest did not power off");
	vtb_boot_demote(&status, &error, "failed", strdup("no view"));
	cr_assert_str_eq(status, "timeout");
	cr_assert_str_eq(error, "the guest did not power off");
	free(error);
}
