/* SPDX-License-Identifier: MIT */
/*
 * libvirt, and nothing else, lives here.  The boot loop runs libvirt's
 * default event loop in this thread with a 200 ms timer, so a stop
 * request, the timeout and progress ticks are noticed even when the
 * guest is silent.  Both serial ports are pty consoles read through
 * non-blocking streams: serial1 feeds the record parser, serial0 is kept
 * as a tail for the boot's log and for spotting a kernel panic.
 */
#include <errno.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../workloads/lib/vtbutil.h"
#include "provision.h"

#define TICK_MS 200
#define CONSOLE_TAIL (16 * 1024)
#define GRACE_NS (5ull * 1000000000ull) /* after EOF or stop, for the other */
#define KEEPALIVE_SAFE_NS (10ull * 1000000000ull)

struct vtb_hv {
	virConnectPtr conn;
	char *uri;
	char libvirt_version[32];
	char qemu_version[32];
	bool system;
	bool closed;	    /* the connection went away */
	uint64_t last_used; /* CLOCK_MONOTONIC ns: opened, or the end of a boot */
};

static void quiet(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

/* libvirt's last error as our error, with @what in front. */
static int lv_error(const char *what)
{
	const char *m = virGetLastErrorMessage();

	return vtb_error("%s: %s", what, m && *m ? m : "unknown libvirt error");
}

static void version_str(unsigned long v, char *buf, size_t n)
{
	snprintf(buf, n, "%lu.%lu.%lu", v / 1000000, (v / 1000) % 1000, v % 1000);
}

static void close_cb(virConnectPtr conn, int reason, void *opaque)
{
	struct vtb_hv *hv = opaque;

	(void)conn;
	(void)reason;
	hv->closed = true;
}

int vtb_hv_open(const char *uri, struct vtb_hv **out)
{
	static bool loop_registered;
	struct vtb_hv *hv;
	unsigned long v = 0;

	*out = NULL;
	virSetErrorFunc(NULL, quiet);
	if (!loop_registered) {
		if (virEventRegisterDefaultImpl() < 0)
			return lv_error("cannot start libvirt's event loop");
		loop_registered = true;
	}
	hv = calloc(1, sizeof(*hv));
	if (!hv)
		return vtb_error("out of memory");
	hv->uri = vtb_strdup(uri ? uri : "qemu:///system");
	if (!hv->uri) {
		free(hv);
		return vtb_error("out of memory");
	}
	hv->conn = virConnectOpen(hv->uri);
	if (!hv->conn) {
		lv_error("cannot connect to libvirt");
		vtb_error(
			"%s at '%s' (is a libvirt daemon running? without systemd: scripts/libvirtd.sh start)",
			vtb_errmsg(), hv->uri);
		vtb_hv_close(hv);
		return -1;
	}
	virConnSetErrorFunc(hv->conn, NULL, quiet);
	virConnectRegisterCloseCallback(hv->conn, close_cb, hv, NULL);
	hv->last_used = vtb_now_ns();
	if (virConnectGetLibVersion(hv->conn, &v) == 0)
		version_str(v, hv->libvirt_version, sizeof(hv->libvirt_version));
	v = 0;
	if (virConnectGetVersion(hv->conn, &v) == 0)
		version_str(v, hv->qemu_version, sizeof(hv->qemu_version));
	hv->system = !strncmp(hv->uri, "qemu:///system", 14) ||
		     !strncmp(hv->uri, "qemu+unix:///system", 19);
	*out = hv;
	return 0;
}

/*
 * A registered event loop makes the client promise keepalive answers,
 * but the loop only runs during a VM boot: between them (a long
 * baseline boot) the daemon drops the silent connection after about
 * 30 s.  A fresh connection per boot is cheap next to a boot and needs
 * no second thread.
 */
int vtb_hv_reconnect(struct vtb_hv *hv)
{
	virConnectPtr conn;

	/* fresh enough: the keepalive cannot have dropped it yet (libvirtd's
	 * default: 5 unanswered pings 5 s apart) */
	if (hv->conn && !hv->closed && vtb_now_ns() - hv->last_used < KEEPALIVE_SAFE_NS &&
	    virConnectIsAlive(hv->conn) == 1)
		return 0;

	if (hv->conn) {
		virConnectUnregisterCloseCallback(hv->conn, close_cb);
		virConnectClose(hv->conn);
		hv->conn = NULL;
	}
	hv->closed = false;
	conn = virConnectOpen(hv->uri);
	if (!conn) {
		lv_error("cannot reconnect to libvirt");
		return vtb_error("%s at '%s'", vtb_errmsg(), hv->uri);
	}
	virConnSetErrorFunc(conn, NULL, quiet);
	virConnectRegisterCloseCallback(conn, close_cb, hv, NULL);
	hv->conn = conn;
	hv->last_used = vtb_now_ns();
	return 0;
}

void vtb_hv_close(struct vtb_hv *hv)
{
	if (!hv)
		return;
	if (hv->conn) {
		virConnectUnregisterCloseCallback(hv->conn, close_cb);
		virConnectClose(hv->conn);
	}
	free(hv->uri);
	free(hv);
}

const char *vtb_hv_uri(const struct vtb_hv *hv)
{
	return hv->uri;
}

const char *vtb_hv_libvirt_version(const struct vtb_hv *hv)
{
	return hv->libvirt_version;
}

const char *vtb_hv_qemu_version(const struct vtb_hv *hv)
{
	return hv->qemu_version;
}

bool vtb_hv_system(const struct vtb_hv *hv)
{
	return hv->system;
}

bool vtb_hv_kvm_listed(struct vtb_hv *hv)
{
	char *caps = virConnectGetDomainCapabilities(hv->conn, NULL, "x86_64", NULL, "kvm", 0);

	free(caps);
	return caps != NULL;
}

int vtb_hv_capabilities(struct vtb_hv *hv, char **xml)
{
	*xml = virConnectGetCapabilities(hv->conn);
	if (!*xml)
		return lv_error("cannot get the host capabilities");
	return 0;
}

/* ------------------------------------------------------------------ boot */

struct console {
	virStreamPtr st;
	bool registered; /* a callback is added: remove it before freeing */
	bool watching;	 /* events are enabled */
	bool eof;
	char *error; /* a stream error, if any */
	struct boot *b;
	bool records; /* serial1: feed the parser; else keep the tail */
};

struct boot {
	struct vtb_hv *hv;
	virDomainPtr dom;
	struct console con[2]; /* 0: kernel console, 1: records */
	struct vtb_rec_parser *parser;
	char tail[CONSOLE_TAIL];
	size_t tail_len;   /* bytes in tail (ring when full) */
	size_t tail_start; /* ring start */
	uint64_t console_bytes;
	bool stopped;
	int stop_detail;
	bool panicked;
};

static void tail_add(struct boot *b, const char *d, size_t n)
{
	size_t i;

	b->console_bytes += n;
	for (i = 0; i < n; i++) {
		if (b->tail_len < CONSOLE_TAIL) {
			b->tail[b->tail_len++] = d[i];
		} else {
			b->tail[b->tail_start] = d[i];
			b->tail_start = (b->tail_start + 1) % CONSOLE_TAIL;
		}
	}
}

/* The tail as a string, with bytes a database text column should not
 * hold (NUL, other control characters but \n and \t) replaced. */
static char *tail_str(const struct boot *b)
{
	char *s = malloc(b->tail_len + 1);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < b->tail_len; i++) {
		unsigned char c = (unsigned char)b->tail[(b->tail_start + i) % CONSOLE_TAIL];

		s[i] = (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) ? (char)c : '?';
	}
	s[b->tail_len] = '\0';
	return s;
}

static void stream_cb(virStreamPtr st, int events, void *opaque)
{
	struct console *c = opaque;
	char buf[64 * 1024];
	int n;

	for (;;) {
		n = virStreamRecv(st, buf, sizeof(buf));
		if (n > 0) {
			if (c->records)
				vtb_rec_parser_feed(c->b->parser, buf, (size_t)n);
			else
				tail_add(c->b, buf, (size_t)n);
			continue;
		}
		if (n == -2)
			break;
		if (n < 0 && !c->error) {
			const char *m = virGetLastErrorMessage();

			c->error = vtb_strdup(m ? m : "stream error");
		}
		c->eof = true;
		break;
	}
	if (!c->eof && (events & (VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR)))
		c->eof = true;
	if (c->eof && c->watching) {
		virStreamEventUpdateCallback(st, 0);
		c->watching = false;
	}
}

static int lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	struct boot *b = opaque;

	(void)conn;
	(void)dom;
	if (event == VIR_DOMAIN_EVENT_CRASHED)
		b->panicked = true;
	if (event == VIR_DOMAIN_EVENT_STOPPED) {
		b->stopped = true;
		b->stop_detail = detail;
		if (detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED)
			b->panicked = true;
	}
	return 0;
}

static void timer_cb(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
}

static int open_console(struct boot *b, int idx, const char *dev)
{
	struct console *c = &b->con[idx];

	c->b = b;
	c->records = idx == 1;
	c->st = virStreamNew(b->hv->conn, VIR_STREAM_NONBLOCK);
	if (!c->st)
		return lv_error("cannot create a stream");
	if (virDomainOpenConsole(b->dom, dev, c->st, VIR_DOMAIN_CONSOLE_FORCE) < 0)
		return lv_error(idx ? "cannot open the record port (serial1)"
				    : "cannot open the kernel console (serial0)");
	if (virStreamEventAddCallback(c->st,
				      VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_HANGUP |
					      VIR_STREAM_EVENT_ERROR,
				      stream_cb, c, NULL) < 0)
		return lv_error("cannot watch a console stream");
	c->registered = c->watching = true;
	return 0;
}

static void close_console(struct console *c)
{
	if (!c->st)
		return;
	/* Always remove: the callback's timer holds references on the
	 * stream and the connection even when events are disabled. */
	if (c->registered)
		virStreamEventRemoveCallback(c->st);
	virStreamAbort(c->st);
	virStreamFree(c->st);
	c->st = NULL;
	free(c->error);
	c->error = NULL;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The first "Kernel panic" line of the console tail, or NULL. */
static char *panic_line(const char *tail)
{
	const char *p = strstr(tail, "Kernel panic");
	const char *e;

	if (!p)
		return NULL;
	e = strchr(p, '\n');
	return e ? strndup(p, (size_t)(e - p)) : vtb_strdup(p);
}

enum vtb_vm_step vtb_vm_wait_step(struct vtb_vm_wait *w)
{
	if (w->stop)
		return VTB_VM_STOP;
	if (w->records_eof && w->stopped)
		return VTB_VM_DONE;
	if (w->now >= w->deadline)
		return VTB_VM_TIMEOUT;
	if (!w->grace_until && (w->records_eof || w->stopped))
		w->grace_until = w->now + w->grace_ns;
	if (w->grace_until && w->now >= w->grace_until)
		return VTB_VM_DONE;
	return VTB_VM_WAIT;
}

const char *vtb_vm_judge(const struct vtb_vm_facts *f, const struct vtb_boot_records *r,
			 char **error)
{
	char *pl = f->console_tail ? panic_line(f->console_tail) : NULL;
	const char *status = "failed";

	*error = NULL;
	if (f->interrupted) {
		status = "interrupted";
	} else if (f->start_error) {
		*error = vtb_strdup(f->start_error);
	} else if (f->timed_out) {
		status = "timeout";
		*error = vtb_asprintf(
			"the guest did not power off within %.0f s and was destroyed (%zu records read)",
			(double)f->timeout_ns * 1e-9, r->records);
	} else if (f->panicked || pl) {
		*error = vtb_asprintf("the guest kernel panicked%s%s", pl ? ": " : "",
				      pl ? pl : "");
	} else if (f->qemu_failed) {
		*error = vtb_strdup("QEMU failed (see the console tail and libvirt's log)");
	} else if (!r->records && !r->header) {
		*error = vtb_asprintf(
			"the guest wrote no records%s%s (its console tail is kept with the boot)",
			f->stream_error ? ": " : "", f->stream_error ? f->stream_error : "");
	} else {
		status = vtb_boot_judge(0, r, error);
	}
	free(pl);
	return status;
}

static void judge(struct boot *b, const struct vtb_vm_req *req, bool timed_out, bool interrupted,
		  const char *start_error, struct vtb_boot_outcome *out)
{
	struct vtb_vm_facts f = {
		.interrupted = interrupted,
		.timed_out = timed_out,
		.panicked = b->panicked,
		.qemu_failed = b->stopped && b->stop_detail == VIR_DOMAIN_EVENT_STOPPED_FAILED,
		.start_error = start_error,
		.stream_error = b->con[1].error,
		.timeout_ns = req->timeout_ns,
		.console_tail = out->stderr_tail,
	};

	out->status = vtb_vm_judge(&f, vtb_rec_parser_result(b->parser), &out->error);
}

int vtb_hv_boot(struct vtb_hv *hv, const struct vtb_vm_req *req, struct vtb_boot_outcome *out,
		char **live_xml)
{
	struct boot *b;
	sigset_t old;
	uint64_t now, deadline, grace = 0, next_tick;
	int cb_id = -1, timer = -1, ret = -1;
	bool timed_out = false, interrupted = false;
	char *start_error = NULL;

	memset(out, 0, sizeof(*out));
	*live_xml = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return vtb_error("out of memory");
	b->hv = hv;
	out->parser = b->parser = vtb_rec_parser_new(req->nonce, &vtb_rec_default_limits);
	if (!b->parser) {
		free(b);
		return vtb_error("out of memory");
	}
	out->started_ns = realtime_ns();
	b->dom = virDomainCreateXML(hv->conn, req->xml,
				    VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
	if (!b->dom) {
		lv_error("cannot start the guest");
		if (hv->closed || virConnectIsAlive(hv->conn) != 1)
			goto out;
		start_error = vtb_strdup(vtb_errmsg());
		goto done;
	}
	cb_id = virConnectDomainEventRegisterAny(hv->conn, b->dom, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						 VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), b, NULL);
	if (cb_id < 0 || open_console(b, 0, "serial0") || open_console(b, 1, "serial1")) {
		if (cb_id < 0)
			lv_error("cannot watch the guest's lifecycle");
		start_error = vtb_strdup(vtb_errmsg());
		goto done;
	}
	*live_xml = virDomainGetXMLDesc(b->dom, 0);
	timer = virEventAddTimeout(TICK_MS, timer_cb, NULL, NULL);
	if (timer < 0) {
		vtb_error("cannot add a timer to libvirt's event loop");
		goto out;
	}
	if (virDomainResume(b->dom) < 0) {
		lv_error("cannot resume the guest");
		start_error = vtb_strdup(vtb_errmsg());
		goto done;
	}
	now = vtb_now_ns();
	deadline = now + req->timeout_ns;
	next_tick = now + 1000000000ull;
	for (;;) {
		struct vtb_vm_wait w;
		enum vtb_vm_step step;
		int rc;

		if (req->waitmask)
			pthread_sigmask(SIG_SETMASK, req->waitmask, &old);
		rc = virEventRunDefaultImpl();
		if (req->waitmask)
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc < 0 && errno != EINTR) {
			lv_error("libvirt's event loop failed");
			goto out;
		}
		if (hv->closed) {
			vtb_error("the connection to libvirt at '%s' was lost during a boot",
				  hv->uri);
			goto out;
		}
		now = vtb_now_ns();
		w = (struct vtb_vm_wait){ .stop = req->stop && *req->stop,
					  .records_eof = b->con[1].eof,
					  .stopped = b->stopped,
					  .now = now,
					  .deadline = deadline,
					  .grace_ns = GRACE_NS,
					  .grace_until = grace };
		step = vtb_vm_wait_step(&w);
		grace = w.grace_until;
		if (step == VTB_VM_STOP)
			interrupted = true;
		if (step == VTB_VM_TIMEOUT)
			timed_out = true;
		if (step != VTB_VM_WAIT)
			break;
		if (req->tick && now >= next_tick) {
			req->tick(req->tick_arg);
			next_tick = now + 1000000000ull;
		}
	}
done:
	ret = 0;
out:
	if (b->dom) {
		if (virDomainIsActive(b->dom) == 1)
			virDomainDestroy(b->dom);
	}
	if (timer >= 0)
		virEventRemoveTimeout(timer);
	/* What is still buffered, then judge, then streams and the
	 * callback go before the domain. */
	for (int i = 0; i < 2 && ret == 0; i++)
		if (b->con[i].st && !b->con[i].eof)
			stream_cb(b->con[i].st, 0, &b->con[i]);
	out->ended_ns = realtime_ns();
	hv->last_used = vtb_now_ns();
	vtb_rec_parser_finish(b->parser);
	out->stderr_tail = tail_str(b);
	if (ret == 0)
		judge(b, req, timed_out, interrupted, start_error, out);
	close_console(&b->con[0]);
	close_console(&b->con[1]);
	if (cb_id >= 0)
		virConnectDomainEventDeregisterAny(hv->conn, cb_id);
	if (b->dom)
		virDomainFree(b->dom);
	free(start_error);
	free(b);
	return ret;
}
