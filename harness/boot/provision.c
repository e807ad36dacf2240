/* SPDX-License-Identifier: MIT */
/*
 * libvirt, and nothing else, lives here.  The boot loop runs libvirt's
 * default event loop in this thread with a 200 ms timer (or the sampling
 * interval, when shorter), so a stop request, the timeout, progress
 * ticks and vCPU samples happen even when the guests are silent.  One
 * loop serves every guest of a side-by-side group.  Both serial ports are pty consoles read through
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
#include <unistd.h>

#include <jansson.h>

#include "../../common/vtbutil.h"
#include "../records/recparse.h"
#include "placement.h"
#include "provision.h"
#include "vcpusample.h"

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
	/* domains whose QEMU was told to go once their end record was in:
	 * libvirt's own teardown (virDomainDestroy returns 1-2 s after QEMU
	 * exited) runs in these threads while the next boot is prepared;
	 * joined before the connection goes (vtb_hv_drain) */
	struct reap **reapers;
	size_t n_reapers, cap_reapers;
};

/*
 * One domain's teardown in a thread of its own.  The boot's console
 * streams are aborted only after the destroy returned (libvirt answers
 * calls about a domain it is tearing down only then): the boot hands
 * them over when it is done with them, and whichever of the two comes
 * second aborts and frees them, so the boot never waits for libvirt's
 * teardown.
 */
struct reap {
	pthread_t thread;
	virDomainPtr dom; /* the thread's own reference */
	pthread_mutex_t lock;
	bool destroyed;	    /* the destroy returned */
	bool handed;	    /* the boot is done with it (reap_hand_over) */
	virStreamPtr st[2]; /* handed over by the boot, not yet released */
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

	vtb_hv_drain(hv);
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

static void release_streams(virStreamPtr *st)
{
	for (int i = 0; i < 2; i++)
		if (st[i]) {
			virStreamAbort(st[i]);
			virStreamFree(st[i]);
			st[i] = NULL;
		}
}

/* A destroy that fails while the domain still runs is tried once more;
 * what would remain then goes with the connection
 * (VIR_DOMAIN_START_AUTODESTROY). */
static void *reap_main(void *arg)
{
	struct reap *r = arg;
	virStreamPtr st[2];

	if (virDomainDestroy(r->dom) < 0 && virDomainIsActive(r->dom) == 1)
		virDomainDestroy(r->dom);
	pthread_mutex_lock(&r->lock);
	r->destroyed = true;
	st[0] = r->st[0];
	st[1] = r->st[1];
	r->st[0] = r->st[1] = NULL;
	pthread_mutex_unlock(&r->lock);
	release_streams(st);
	return NULL;
}

/* Waits for @r's thread and frees it, with streams a boot never handed
 * over (an error path) */
static void reap_join(struct reap *r)
{
	pthread_join(r->thread, NULL);
	release_streams(r->st);
	pthread_mutex_destroy(&r->lock);
	virDomainFree(r->dom);
	free(r);
}

/* Destroys @dom in a thread of its own (with its own reference), every
 * signal blocked there: stop requests stay the main thread's.  NULL when
 * no thread could be started (the caller destroys it itself). */
static struct reap *reap_async(struct vtb_hv *hv, virDomainPtr dom)
{
	sigset_t all, old;
	struct reap *r;
	size_t i, kept = 0;
	int err;

	/* the teardowns that ended, and whose boots are done with them
	 * (another VM of a group may still hold its own), are joined and
	 * freed: a campaign of thousands of boots keeps no finished thread
	 * (its stack, its domain reference) until it closes the connection */
	for (i = 0; i < hv->n_reapers; i++) {
		bool done;

		r = hv->reapers[i];
		pthread_mutex_lock(&r->lock);
		done = r->destroyed && r->handed;
		pthread_mutex_unlock(&r->lock);
		if (!done) {
			hv->reapers[kept++] = r;
			continue;
		}
		reap_join(r);
	}
	hv->n_reapers = kept;
	if (hv->n_reapers == hv->cap_reapers) {
		size_t cap = hv->cap_reapers ? 2 * hv->cap_reapers : 4;
		struct reap **n = realloc(hv->reapers, cap * sizeof(*n));

		if (!n)
			return NULL;
		hv->reapers = n;
		hv->cap_reapers = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r || virDomainRef(dom) < 0) {
		free(r);
		return NULL;
	}
	r->dom = dom;
	pthread_mutex_init(&r->lock, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&r->thread, NULL, reap_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_mutex_destroy(&r->lock);
		virDomainFree(dom);
		free(r);
		return NULL;
	}
	hv->reapers[hv->n_reapers++] = r;
	return r;
}

/* The boot is done with its console streams (their callbacks removed):
 * released now if the destroy returned, else by the thread after it. */
static void reap_hand_over(struct reap *r, virStreamPtr st0, virStreamPtr st1)
{
	virStreamPtr st[2] = { st0, st1 };
	bool now;

	pthread_mutex_lock(&r->lock);
	r->handed = true;
	now = r->destroyed;
	if (!now) {
		r->st[0] = st0;
		r->st[1] = st1;
	}
	pthread_mutex_unlock(&r->lock);
	if (now)
		release_streams(st);
}

void vtb_hv_drain(struct vtb_hv *hv)
{
	if (!hv)
		return;
	for (size_t i = 0; i < hv->n_reapers; i++)
		reap_join(hv->reapers[i]);
	hv->n_reapers = 0;
}

void vtb_hv_close(struct vtb_hv *hv)
{
	if (!hv)
		return;
	vtb_hv_drain(hv);
	free(hv->reapers);
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
	struct vm *b;
	bool records; /* serial1: feed the parser; else keep the tail */
};

/* distinct host CPUs kept per vCPU and cell; more are counted */
#define CELL_PCPUS 16

/* What a vCPU thread did on the host during one cell (issue 28): its
 * counters when the harness read the cell's "cell" record and its
 * "cell_end" record, and the host CPUs the samples found it on. */
struct cellmark {
	uint64_t t0, t1; /* vtb_now_ns() of the two readings */
	struct vtb_vcpu_counters *c0, *c1;
	int *last;	      /* per vCPU: the CPU of the previous sample, -1 */
	uint32_t *moves;      /* per vCPU: samples on another CPU than the one before */
	uint32_t *n_seen;     /* per vCPU: distinct CPUs seen, at most CELL_PCPUS */
	bool *more;	      /* per vCPU: and others beyond them */
	int (*seen)[CELL_PCPUS];
	bool ended;
	bool late; /* the end is the last periodic reading (mark_end) */
};

/* One guest of a (side-by-side) group. */
struct vm {
	struct vtb_hv *hv;
	const struct vtb_vm_spec *spec;
	struct vtb_vm_result *res;
	virDomainPtr dom;
	int cb_id;
	struct console con[2]; /* 0: kernel console, 1: records */
	struct vtb_rec_parser *parser;
	char tail[CONSOLE_TAIL];
	size_t tail_len;   /* bytes in tail (ring when full) */
	size_t tail_start; /* ring start */
	uint64_t console_bytes;
	bool stopped;
	int stop_detail;
	bool panicked;
	char *start_error;
	/* the wait */
	bool done, timed_out;
	uint64_t grace;
	/* sampling (spec->placement) */
	struct vtb_vcpu_sampler *sampler; /* NULL: through libvirt */
	int n_vcpus;
	int *cpus;
	virVcpuInfoPtr info;
	struct vtb_vcpu_counters *counters;
	bool gone;	  /* the vCPU threads stopped reading: sampling is over */
	bool end_counted; /* counters read after the "end" record */
	bool destroyed;	  /* destroyed after the "end" record: the records are all in */
	/* its QEMU process (pidfd, -1: unknown, e.g. a remote daemon) and
	 * its watch in the event loop; exited once that process is gone with
	 * its vCPU threads.  reaping: the destroy after the end record runs
	 * in the background (reap_async), and the boot is over once QEMU
	 * exited, without waiting for libvirt's own teardown */
	int pidfd, exit_watch;
	bool exited;
	struct reap *reaping;
	/* per cell of the record stream, in its order (g->evidence) */
	bool evidence;
	/* the last reading in which every vCPU's counters were whole, and
	 * when: a cell's end when its own reading came after the guest
	 * stopped (the record stream lags the guest by a little) */
	struct vtb_vcpu_counters *last;
	uint64_t last_ns;
	struct cellmark *marks;
	size_t n_marks, cap_marks;
	bool marks_failed; /* out of memory: no per-cell host evidence */
};

static void tail_add(struct vm *b, const char *d, size_t n)
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
static char *tail_str(const struct vm *b)
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

static void cell_marks(struct vm *b);
static void mark_sample(struct vm *b);

static void stream_cb(virStreamPtr st, int events, void *opaque)
{
	struct console *c = opaque;
	char buf[64 * 1024];
	int n;

	for (;;) {
		n = virStreamRecv(st, buf, sizeof(buf));
		if (n > 0) {
			if (c->records) {
				vtb_rec_parser_feed(c->b->parser, buf, (size_t)n);
				cell_marks(c->b);
			} else
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
	struct vm *b = opaque;

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

static int open_console(struct vm *b, int idx, const char *dev)
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

enum vtb_vm_step vtb_vm_wait_step(struct vtb_vm_wait *w)
{
	if (w->stop)
		return VTB_VM_STOP;
	if (w->records_eof && (w->stopped || (w->destroyed && w->exited)))
		return VTB_VM_DONE;
	if (w->now >= w->deadline)
		return VTB_VM_TIMEOUT;
	if (w->ended && !w->stopped && !w->destroyed) {
		w->destroyed = true;
		return VTB_VM_END;
	}
	if (!w->grace_until && (w->records_eof || w->stopped || (w->destroyed && w->exited)))
		w->grace_until = w->now + w->grace_ns;
	if (w->grace_until && w->now >= w->grace_until)
		return VTB_VM_DONE;
	return VTB_VM_WAIT;
}

static void judge(struct vm *b, const struct vtb_vm_group_req *g, bool interrupted,
		  struct vtb_boot_outcome *out)
{
	struct vtb_vm_facts f = {
		.interrupted = interrupted,
		.timed_out = b->timed_out,
		.panicked = b->panicked,
		.qemu_failed = b->stopped && b->stop_detail == VIR_DOMAIN_EVENT_STOPPED_FAILED,
		.start_error = b->start_error,
		.stream_error = b->con[1].error,
		.timeout_ns = g->timeout_ns,
		.console_tail = out->stderr_tail,
	};

	out->status = vtb_vm_judge(&f, vtb_rec_parser_result(b->parser), &out->error);
}

/* ------------------------------------------------------------- sampling */

/*
 * The live vCPU pinning, one cpulist per vCPU, into the placement.  Best
 * effort: a failure leaves live_pins null.
 */
static void read_live_pins(struct vm *b)
{
	int ncpus = virNodeGetCPUMap(b->hv->conn, NULL, NULL, 0), n = b->n_vcpus, got, v;
	size_t maplen;
	unsigned char *maps;
	char **pins;

	if (ncpus <= 0 || n <= 0)
		return;
	maplen = VIR_CPU_MAPLEN(ncpus);
	maps = calloc((size_t)n, maplen);
	pins = calloc((size_t)n, sizeof(*pins));
	if (!maps || !pins)
		goto out;
	got = virDomainGetVcpuPinInfo(b->dom, n, maps, (int)maplen, VIR_DOMAIN_AFFECT_LIVE);
	if (got != n)
		goto out;
	for (v = 0; v < n; v++) {
		struct vtb_cpuset set = { NULL, 0 };
		int cpu;

		for (cpu = 0; cpu < ncpus; cpu++)
			if (VIR_CPU_USABLE(maps, maplen, v, cpu) && vtb_cpuset_add(&set, cpu))
				break;
		pins[v] = vtb_cpuset_format(&set);
		vtb_cpuset_release(&set);
		if (!pins[v])
			goto out;
	}
	vtb_placement_set_live_pins(b->spec->placement, (const char *const *)pins, n);
out:
	for (v = 0; pins && v < n; v++)
		free(pins[v]);
	free(pins);
	free(maps);
}

/*
 * Prepares sampling of a created (paused) guest: its vCPU threads are
 * already there.  /proc where the daemon is local and its QEMU's threads
 * can be read, else virDomainGetVcpus.
 */
static int sampling_setup(struct vm *b, const struct vtb_vm_group_req *g)
{
	struct vtb_placement *p = b->spec->placement;
	char *pidfile = NULL;
	int pid, v;

	b->n_vcpus = vtb_placement_vcpus(p);
	b->cpus = calloc((size_t)b->n_vcpus, sizeof(int));
	b->info = calloc((size_t)b->n_vcpus, sizeof(*b->info));
	b->counters = calloc((size_t)b->n_vcpus, sizeof(*b->counters));
	b->last = calloc((size_t)b->n_vcpus, sizeof(*b->last));
	if (!b->cpus || !b->info || !b->counters || !b->last)
		return vtb_error("out of memory");
	read_live_pins(b);
	vtb_placement_set_source(p, "libvirt");
	if (!b->hv->system)
		return 0;
	pidfile = vtb_asprintf("%s/%s.pid", g->pid_dir ? g->pid_dir : "/run/libvirt/qemu",
			       b->spec->name);
	if (!pidfile)
		return vtb_error("out of memory");
	pid = vtb_vcpu_qemu_pid(g->proc_root ? g->proc_root : "/proc", pidfile, b->spec->name);
	free(pidfile);
	if (pid < 0 || vtb_vcpu_sampler_open(g->proc_root ? g->proc_root : "/proc", pid, b->n_vcpus,
					     &b->sampler) < 0)
		return 0; /* libvirt it is; the summary's source says so */
	vtb_placement_set_source(p, "proc");
	for (v = 0; v < b->n_vcpus; v++)
		vtb_placement_set_tid(p, v, vtb_vcpu_sampler_tid(b->sampler, v));
	return 0;
}

static void sample(struct vm *b)
{
	uint64_t t0 = vtb_now_ns();
	int v, got;

	if (!b->spec->placement || !b->cpus || b->gone)
		return;
	if (b->sampler) {
		got = vtb_vcpu_sampler_cpus(b->sampler, b->cpus);
	} else {
		got = virDomainGetVcpus(b->dom, b->info, b->n_vcpus, NULL, 0);
		for (v = 0; v < b->n_vcpus; v++)
			b->cpus[v] = v < got ? b->info[v].cpu : -1;
	}
	if (got <= 0) {
		b->gone = true;
		return;
	}
	vtb_placement_add(b->spec->placement, b->cpus);
	mark_sample(b);
	b->res->sampling_ns += vtb_now_ns() - t0;
	b->res->samples++;
}

static void read_counters(struct vm *b)
{
	int v;

	if (!b->spec->placement || !b->sampler || b->gone)
		return;
	if (vtb_vcpu_sampler_counters(b->sampler, b->counters) == b->n_vcpus) {
		bool whole = true;

		for (v = 0; v < b->n_vcpus; v++)
			whole &= b->counters[v].full;
		if (whole) {
			memcpy(b->last, b->counters, (size_t)b->n_vcpus * sizeof(*b->last));
			b->last_ns = vtb_now_ns();
		}
	}
	for (v = 0; v < b->n_vcpus; v++)
		if (b->counters[v].ok)
			vtb_placement_counters(b->spec->placement, v, b->counters[v].migrations,
					       b->counters[v].run_delay_ns);
}

/* ------------------------------------------------------- per-cell evidence */

static void mark_free(struct cellmark *m)
{
	free(m->c0);
	free(m->c1);
	free(m->last);
	free(m->moves);
	free(m->n_seen);
	free(m->more);
	free(m->seen);
}

static void marks_free(struct vm *b)
{
	for (size_t i = 0; i < b->n_marks; i++)
		mark_free(&b->marks[i]);
	free(b->marks);
	b->marks = NULL;
	b->n_marks = b->cap_marks = 0;
}

/* Reads the vCPU threads' counters into @c (all not ok without /proc). */
static void mark_read(struct vm *b, struct vtb_vcpu_counters *c)
{
	if (b->sampler && !b->gone)
		vtb_vcpu_sampler_counters(b->sampler, c);
}

/* The cell's end reading; where a vCPU's thread is gone (the guest
 * stopped before its last records were read), the last whole periodic
 * reading after the cell began, for every vCPU alike. */
static void mark_end(struct vm *b, struct cellmark *m)
{
	bool whole = true;

	m->ended = true;
	m->t1 = vtb_now_ns();
	mark_read(b, m->c1);
	for (int v = 0; v < b->n_vcpus; v++)
		whole &= m->c1[v].ok && m->c1[v].full;
	if (whole || !b->last || !b->last_ns || b->last_ns <= m->t0)
		return;
	memcpy(m->c1, b->last, (size_t)b->n_vcpus * sizeof(*m->c1));
	m->t1 = b->last_ns;
	m->late = true;
}

static int mark_begin(struct vm *b, struct cellmark *m)
{
	size_t n = (size_t)b->n_vcpus;

	memset(m, 0, sizeof(*m));
	m->c0 = calloc(n, sizeof(*m->c0));
	m->c1 = calloc(n, sizeof(*m->c1));
	m->last = malloc(n * sizeof(*m->last));
	m->moves = calloc(n, sizeof(*m->moves));
	m->n_seen = calloc(n, sizeof(*m->n_seen));
	m->more = calloc(n, sizeof(*m->more));
	m->seen = calloc(n, sizeof(*m->seen));
	if (!m->c0 || !m->c1 || !m->last || !m->moves || !m->n_seen || !m->more || !m->seen) {
		mark_free(m);
		return -1;
	}
	for (size_t v = 0; v < n; v++)
		m->last[v] = -1;
	m->t0 = vtb_now_ns();
	mark_read(b, m->c0);
	return 0;
}

/* Where the vCPUs are now (b->cpus, just sampled), for the open cell. */
static void mark_sample(struct vm *b)
{
	struct cellmark *m = b->n_marks ? &b->marks[b->n_marks - 1] : NULL;

	if (!m || m->ended)
		return;
	for (int v = 0; v < b->n_vcpus; v++) {
		int c = b->cpus[v];
		uint32_t k;

		if (c < 0)
			continue;
		if (m->last[v] >= 0 && m->last[v] != c)
			m->moves[v]++;
		m->last[v] = c;
		for (k = 0; k < m->n_seen[v] && m->seen[v][k] != c; k++)
			;
		if (k < m->n_seen[v])
			continue; /* seen */
		if (m->n_seen[v] < CELL_PCPUS)
			m->seen[v][m->n_seen[v]++] = c;
		else
			m->more[v] = true;
	}
}

/*
 * The cells the record stream opened and closed since the last call:
 * each cell's interval on the host runs from the harness reading its
 * "cell" record to reading its "cell_end" (the serial line's delay, a
 * millisecond or so, at both ends).
 */
static void cell_marks(struct vm *b)
{
	const struct vtb_boot_records *r = vtb_rec_parser_result(b->parser);

	if (!b->evidence || !b->spec->placement || !b->cpus || b->marks_failed)
		return;
	while (b->n_marks < r->n_cells && b->n_marks < b->spec->n_cells) {
		/* a cell without its cell_end: it ends where the next begins */
		if (b->n_marks && !b->marks[b->n_marks - 1].ended)
			mark_end(b, &b->marks[b->n_marks - 1]);
		if (b->n_marks == b->cap_marks) {
			size_t cap = b->cap_marks ? 2 * b->cap_marks : 8;
			struct cellmark *nm = realloc(b->marks, cap * sizeof(*nm));

			if (!nm) {
				b->marks_failed = true;
				return;
			}
			b->marks = nm;
			b->cap_marks = cap;
		}
		if (mark_begin(b, &b->marks[b->n_marks])) {
			b->marks_failed = true;
			return;
		}
		b->n_marks++;
	}
	if (b->n_marks && !b->marks[b->n_marks - 1].ended && r->cells[b->n_marks - 1].status)
		mark_end(b, &b->marks[b->n_marks - 1]);
}

static json_t *jcount(uint64_t a, uint64_t b)
{
	return json_integer(b >= a && b - a <= (uint64_t)INT64_MAX ? (json_int_t)(b - a) : 0);
}

/* One cell's host evidence, or NULL (nothing read, or ENOMEM). */
static json_t *mark_json(const struct vm *b, const struct cellmark *m)
{
	json_t *vcpus = json_array(), *o = NULL;

	if (!vcpus)
		return NULL;
	for (int v = 0; v < b->n_vcpus; v++) {
		const struct vtb_vcpu_counters *a = &m->c0[v], *z = &m->c1[v];
		json_t *seen = json_array(), *e;

		for (uint32_t k = 0; seen && k < m->n_seen[v]; k++)
			if (json_array_append_new(seen, json_integer(m->seen[v][k]))) {
				json_decref(seen);
				seen = NULL;
			}
		if (!seen)
			goto fail;
		if (a->ok && z->ok && a->full && z->full)
			e = json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:I, s:b}", "vcpu",
				      v, "run_ns", jcount(a->run_ns, z->run_ns), "wait_ns",
				      jcount(a->run_delay_ns, z->run_delay_ns), "slices",
				      jcount(a->slices, z->slices), "invol",
				      jcount(a->invol, z->invol), "migrations",
				      jcount(a->migrations, z->migrations), "moves",
				      (json_int_t)m->moves[v], "pcpus", seen, "pcpus_seen",
				      (json_int_t)m->n_seen[v], "pcpus_more", m->more[v]);
		else
			e = json_pack("{s:i, s:I, s:o, s:I, s:b}", "vcpu", v, "moves",
				      (json_int_t)m->moves[v], "pcpus", seen, "pcpus_seen",
				      (json_int_t)m->n_seen[v], "pcpus_more", m->more[v]);
		if (!e || json_array_append_new(vcpus, e))
			goto fail;
	}
	o = json_pack("{s:f, s:b, s:o}", "seconds", (double)(m->t1 - m->t0) * 1e-9, "end_late",
		      m->late, "vcpus", vcpus);
	return o;
fail:
	json_decref(vcpus);
	return NULL;
}

/* {"CELL KEY": {"seconds":S, "vcpus":[...]}, ...} of the cells that
 * ended, as JSON text; NULL when none. */
static char *marks_json(const struct vm *b)
{
	const struct vtb_boot_records *r = vtb_rec_parser_result(b->parser);
	json_t *all = json_object();
	char *text = NULL;

	if (!all || b->marks_failed)
		goto out;
	for (size_t i = 0; i < b->n_marks && i < r->n_cells; i++) {
		json_t *o;

		if (!b->marks[i].ended)
			continue;
		o = mark_json(b, &b->marks[i]);
		if (!o || json_object_set_new(all, r->cells[i].cell, o))
			goto out;
	}
	if (json_object_size(all))
		text = json_dumps(all, JSON_COMPACT | JSON_SORT_KEYS);
out:
	json_decref(all);
	return text;
}

/* ---------------------------------------------------------------- groups */

static void destroy(struct vm *b)
{
	if (b->reaping)
		return; /* a thread destroys it already */
	if (b->dom && virDomainIsActive(b->dom) == 1)
		virDomainDestroy(b->dom);
}

static void exit_cb(int watch, int fd, int events, void *opaque)
{
	struct vm *b = opaque;

	(void)fd;
	(void)events;
	b->exited = true;
	virEventUpdateHandle(watch, 0); /* level-triggered: once is enough */
}

/* Watches guest @b's QEMU process for its exit, where libvirt's pid file
 * can be read (the system driver, here); else b->pidfd stays -1 and the
 * domain is destroyed in this thread as before. */
static void watch_exit(struct vm *b, const struct vtb_vm_group_req *g)
{
	char *pidfile = vtb_asprintf("%s/%s.pid", g->pid_dir ? g->pid_dir : "/run/libvirt/qemu",
				     b->spec->name);

	if (!pidfile)
		return;
	b->pidfd = vtb_vcpu_qemu_pidfd(g->proc_root ? g->proc_root : "/proc", pidfile,
				       b->spec->name);
	free(pidfile);
	if (b->pidfd < 0)
		return;
	b->exit_watch = virEventAddHandle(b->pidfd, VIR_EVENT_HANDLE_READABLE, exit_cb, b, NULL);
	if (b->exit_watch < 0) {
		close(b->pidfd);
		b->pidfd = -1;
	}
}

/* Creates guest @b paused, with its lifecycle callback and both consoles.
 * 0; 1 when it could not start (b->start_error says why); -1 when the
 * connection is gone. */
static int create(struct vm *b, const struct vtb_vm_group_req *g)
{
	struct vtb_hv *hv = b->hv;

	b->dom = virDomainCreateXML(hv->conn, b->spec->xml,
				    VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
	if (!b->dom) {
		lv_error("cannot start the guest");
		if (hv->closed || virConnectIsAlive(hv->conn) != 1)
			return -1;
		b->start_error = vtb_strdup(vtb_errmsg());
		return 1;
	}
	b->cb_id = virConnectDomainEventRegisterAny(hv->conn, b->dom, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						    VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), b,
						    NULL);
	if (b->cb_id < 0 || open_console(b, 0, "serial0") || open_console(b, 1, "serial1")) {
		if (b->cb_id < 0)
			lv_error("cannot watch the guest's lifecycle");
		b->start_error = vtb_strdup(vtb_errmsg());
		return 1;
	}
	b->res->live_xml = virDomainGetXMLDesc(b->dom, 0);
	if (hv->system)
		watch_exit(b, g);
	if (b->spec->placement && sampling_setup(b, g) < 0) {
		b->start_error = vtb_strdup(vtb_errmsg());
		return 1;
	}
	return 0;
}

/* Guest @failed of the group could not start: the others did not run
 * either, and say why. */
static void group_failed(struct vm *vms, size_t n, size_t failed)
{
	size_t k;

	for (k = 0; k < n; k++) {
		destroy(&vms[k]);
		if (k == failed || vms[k].start_error)
			continue;
		vms[k].start_error = vtb_asprintf(
			"not run: side-by-side guest %zu ('%s') of the group could not start: %s",
			failed, vms[failed].spec->name,
			vms[failed].start_error ? vms[failed].start_error : "?");
	}
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Every guest created paused, then all resumed back to back: side by
 * side from the start.  0 running, 1 the group could not start (each
 * guest says why), -1 error. */
static int group_start(struct vm *vms, size_t n, const struct vtb_vm_group_req *g)
{
	size_t k;
	int r;

	for (k = 0; k < n; k++) {
		r = create(&vms[k], g);
		if (r < 0)
			return -1;
		if (r > 0) {
			group_failed(vms, n, k);
			return 1;
		}
	}
	for (k = 0; k < n; k++)
		if (virDomainResume(vms[k].dom) < 0) {
			lv_error("cannot resume the guest");
			vms[k].start_error = vtb_strdup(vtb_errmsg());
			group_failed(vms, n, k);
			return 1;
		}
	return 0;
}

/* Is the job's last cell running in guest @b (per-cell readings on)? */
static bool last_cell_open(const struct vm *b)
{
	return b->evidence && !b->done && b->spec->n_cells && b->n_marks == b->spec->n_cells &&
	       !b->marks[b->n_marks - 1].ended;
}

/* The running guests' vCPU placement every sample_ns; their counters at
 * the first sample, then once a second (four times during a job's last
 * cell): the last reading before the threads go is the end. */
struct sampling {
	uint64_t next_sample, next_counters;
};

static void sample_due(struct vm *vms, size_t n, const struct vtb_vm_group_req *g,
		       struct sampling *sm, uint64_t now)
{
	size_t k;

	if (!g->sample_ns || now < sm->next_sample)
		return;
	for (k = 0; k < n; k++)
		if (vms[k].spec->placement && !vms[k].done)
			sample(&vms[k]);
	if (now >= sm->next_counters) {
		bool last = false;

		for (k = 0; k < n; k++) {
			if (!vms[k].done)
				read_counters(&vms[k]);
			last |= last_cell_open(&vms[k]);
		}
		/* during a job's last cell four times a second: its end
		 * reading may come after the guest stopped, and it then ends
		 * at the last of these (mark_end) */
		sm->next_counters = now + (last ? 250000000ull : 1000000000ull);
	}
	sm->next_sample += g->sample_ns;
	if (sm->next_sample <= now)
		sm->next_sample = now + g->sample_ns;
}

/* One turn of libvirt's event loop, stop signals deliverable meanwhile */
static int run_events(struct vtb_hv *hv, const struct vtb_vm_group_req *g)
{
	sigset_t old;
	int r;

	if (g->waitmask)
		pthread_sigmask(SIG_SETMASK, g->waitmask, &old);
	r = virEventRunDefaultImpl();
	if (g->waitmask)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0 && errno != EINTR)
		return lv_error("libvirt's event loop failed");
	if (hv->closed)
		return vtb_error("the connection to libvirt at '%s' was lost during a boot",
				 hv->uri);
	return 0;
}

/* Where guest @b stands after the events: false while it runs on. */
static bool vm_settle(struct vm *b, const struct vtb_vm_group_req *g, uint64_t now,
		      uint64_t deadline, bool stop, bool *interrupted)
{
	struct vtb_vm_wait w;
	enum vtb_vm_step step;

	/* the agent's last record: its work is over, read the counters
	 * while the threads are surely there */
	if (g->sample_ns && !b->end_counted && vtb_rec_parser_result(b->parser)->ended) {
		b->end_counted = true;
		sample(b);
		read_counters(b);
	}
	w = (struct vtb_vm_wait){ .stop = stop,
				  .records_eof = b->con[1].eof,
				  .stopped = b->stopped,
				  .exited = b->reaping && b->exited,
				  .ended = vtb_rec_parser_result(b->parser)->ended,
				  .destroyed = b->destroyed,
				  .now = now,
				  .deadline = deadline,
				  .grace_ns = GRACE_NS,
				  .grace_until = b->grace };
	step = vtb_vm_wait_step(&w);
	b->grace = w.grace_until;
	b->destroyed = w.destroyed;
	if (step == VTB_VM_STOP)
		*interrupted = true;
	/* The end record is checked: the harness has every record, and the
	 * guest's ACPI poweroff after it would measure nothing.  Destroyed
	 * now, the boot still finishes on the record stream's end and on
	 * its QEMU's exit (when watched: the destroy runs in the background,
	 * libvirt's own teardown after the exit overlaps the next boot's
	 * preparation) or libvirt's stop event, so the next guest never runs
	 * beside this one. */
	if (step == VTB_VM_END && b->pidfd >= 0) {
		/* its lifecycle events are not needed any more (its QEMU's
		 * exit ends the boot), and libvirt would answer the
		 * deregistration only after its teardown */
		if (b->cb_id >= 0)
			virConnectDomainEventDeregisterAny(b->hv->conn, b->cb_id);
		b->cb_id = -1;
		b->reaping = reap_async(b->hv, b->dom);
		if (!b->reaping) {
			destroy(b);
			b->stopped = true; /* the destroy returned: it stopped */
		}
	} else if (step == VTB_VM_END) {
		destroy(b);
	}
	if (step == VTB_VM_WAIT || step == VTB_VM_END)
		return false;
	b->timed_out = step == VTB_VM_TIMEOUT;
	b->done = true;
	if (!b->end_counted && g->sample_ns)
		read_counters(b);
	destroy(b);
	b->res->out.ended_ns = realtime_ns();
	return true;
}

/* Runs the started group until every guest is done (or timed out, or a
 * stop request ended it). */
static int group_wait(struct vtb_hv *hv, const struct vtb_vm_group_req *g, struct vm *vms, size_t n,
		      bool *interrupted)
{
	struct sampling sm = { 0, 0 };
	uint64_t now = vtb_now_ns();
	uint64_t deadline = now + g->timeout_ns, next_tick = now + 1000000000ull;
	size_t k;

	/* parsing is part of the boot: a stream costly to parse (the guest
	 * chooses it) stops at the deadline, the feed in stream_cb returns,
	 * and this loop sees the timeout */
	for (k = 0; k < n; k++)
		vtb_rec_parser_set_deadline(vms[k].parser, deadline);
	for (;;) {
		bool all_done = true, stop;

		sample_due(vms, n, g, &sm, now);
		if (run_events(hv, g) < 0)
			return -1;
		now = vtb_now_ns();
		stop = g->stop && *g->stop;
		for (k = 0; k < n; k++)
			if (!vms[k].done &&
			    !vm_settle(&vms[k], g, now, deadline, stop, interrupted))
				all_done = false;
		if (all_done)
			return 0;
		if (g->tick && now >= next_tick) {
			g->tick(g->tick_arg);
			next_tick = now + 1000000000ull;
		}
	}
}

/* Guest @b's outcome (judged when the group ran: @ran), then its
 * resources; streams and the callback go before the domain. */
static void vm_finish(struct vm *b, const struct vtb_vm_group_req *g, bool ran, bool interrupted)
{
	struct vtb_boot_outcome *out = &b->res->out;

	/* what is still buffered, then judge */
	for (int i = 0; i < 2 && ran; i++)
		if (b->con[i].st && !b->con[i].eof)
			stream_cb(b->con[i].st, 0, &b->con[i]);
	if (!out->ended_ns)
		out->ended_ns = realtime_ns();
	if (b->parser)
		vtb_rec_parser_finish(b->parser);
	out->stderr_tail = tail_str(b);
	if (ran && b->parser) {
		judge(b, g, interrupted, out);
		b->res->cell_host = marks_json(b);
	}
	marks_free(b);
	if (b->exit_watch >= 0)
		virEventRemoveHandle(b->exit_watch);
	if (b->pidfd >= 0)
		close(b->pidfd);
	if (b->reaping) {
		/* libvirt answers calls about a domain it is tearing down only
		 * once that is over: the streams go to the teardown's thread */
		for (int i = 0; i < 2; i++)
			if (b->con[i].st && b->con[i].registered) {
				virStreamEventRemoveCallback(b->con[i].st);
				b->con[i].registered = false;
			}
		reap_hand_over(b->reaping, b->con[0].st, b->con[1].st);
		for (int i = 0; i < 2; i++) {
			b->con[i].st = NULL;
			free(b->con[i].error);
			b->con[i].error = NULL;
		}
	}
	close_console(&b->con[0]);
	close_console(&b->con[1]);
	if (b->cb_id >= 0)
		virConnectDomainEventDeregisterAny(b->hv->conn, b->cb_id);
	if (b->dom)
		virDomainFree(b->dom);
	vtb_vcpu_sampler_free(b->sampler);
	free(b->cpus);
	free(b->info);
	free(b->counters);
	free(b->last);
	free(b->start_error);
}

/* The group's guests, each with its record parser */
static struct vm *group_new(struct vtb_hv *hv, const struct vtb_vm_group_req *g,
			    struct vtb_vm_result *res)
{
	int64_t started_ns = realtime_ns();
	struct vm *vms = calloc(g->n, sizeof(*vms));
	size_t k;

	if (!vms) {
		vtb_error("out of memory");
		return NULL;
	}
	for (k = 0; k < g->n; k++) {
		vms[k].hv = hv;
		vms[k].spec = &g->vms[k];
		vms[k].res = &res[k];
		vms[k].cb_id = -1;
		vms[k].pidfd = vms[k].exit_watch = -1;
		vms[k].evidence = g->evidence;
		res[k].out.parser = vms[k].parser = vtb_rec_parser_new(g->vms[k].nonce,
								       &vtb_rec_default_limits);
		res[k].out.started_ns = started_ns;
		if (!vms[k].parser)
			vtb_error("out of memory");
	}
	return vms;
}

int vtb_hv_boot_group(struct vtb_hv *hv, const struct vtb_vm_group_req *g,
		      struct vtb_vm_result *res)
{
	struct vm *vms;
	uint64_t tick_ns = TICK_MS * 1000000ull;
	int timer = -1, ret = -1, r;
	bool interrupted = false, drain = false;
	size_t k, n = g->n;

	for (k = 0; k < n; k++)
		memset(&res[k], 0, sizeof(res[k]));
	if (!n)
		return vtb_error("no guests to boot");
	vms = group_new(hv, g, res);
	if (!vms)
		return -1;
	for (k = 0; k < n; k++)
		if (!vms[k].parser)
			goto out;
	if (g->sample_ns)
		tick_ns = min_u64(tick_ns, g->sample_ns);
	timer = virEventAddTimeout((int)((tick_ns + 999999) / 1000000), timer_cb, NULL, NULL);
	if (timer < 0) {
		vtb_error("cannot add a timer to libvirt's event loop");
		goto out;
	}
	r = group_start(vms, n, g);
	if (r < 0 || (r == 0 && group_wait(hv, g, vms, n, &interrupted) < 0))
		goto out;
	ret = 0;
out:
	for (k = 0; k < n; k++) {
		destroy(&vms[k]);
		/* a stop request, the grace or an error ended the wait before
		 * that QEMU exited: its teardown finishes before we return */
		drain |= vms[k].reaping && !vms[k].exited;
	}
	if (timer >= 0)
		virEventRemoveTimeout(timer);
	hv->last_used = vtb_now_ns();
	for (k = 0; k < n; k++)
		vm_finish(&vms[k], g, ret == 0, interrupted);
	if (drain)
		vtb_hv_drain(hv);
	free(vms);
	return ret;
}

int vtb_hv_boot(struct vtb_hv *hv, const struct vtb_vm_req *req, struct vtb_boot_outcome *out,
		char **live_xml)
{
	struct vtb_vm_spec spec = {
		.xml = req->xml, .name = req->name, .nonce = req->nonce, .placement = NULL
	};
	struct vtb_vm_group_req g = { .vms = &spec,
				      .n = 1,
				      .timeout_ns = req->timeout_ns,
				      .stop = req->stop,
				      .waitmask = req->waitmask,
				      .tick = req->tick,
				      .tick_arg = req->tick_arg };
	struct vtb_vm_result res;
	int ret = vtb_hv_boot_group(hv, &g, &res);

	*out = res.out;
	*live_xml = res.live_xml;
	free(res.cell_host);
	return ret;
}
