/* SPDX-License-Identifier: MIT */
/*
 * vtbench doctor's checks (doctor.h).  Each check is one function that
 * adds one entry: it never stops the others, and what it cannot read is
 * what it found ("cannot read ...").  The thresholds are those of
 * benchmark hygiene (tsc clock source, performance governor, no turbo,
 * an idle machine): a warn says the numbers will be noisier, a fail that
 * the campaign cannot run as planned.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "doctor.h"
#include "../../common/sysfs.h"
#include "../boot/guest.h"
#include "../boot/provision.h"
#include "../boot/vmboot.h"
#include "../host/hoststate.h"
#include "../matrix/digest.h"
#include "../plan/sched.h"
#include "../store/store.h"

const char *const vtb_doctor_ids[] = {
	"dev-null", "dev-zero",	 "dev-random", "dev-urandom",  "dev-kvm",     "libvirt",
	"virtlogd", "qemu",	 "kvm",	       "guest-kernel", "guest-image", "sched-knobs",
	"memory",   "hugepages", "cgroups",    "clocksource",  "governor",    "turbo",
	"smt",	    "load",	 NULL,
};

const char *vtb_check_status_name(enum vtb_check_status s)
{
	static const char *const names[] = { "ok", "info", "warn", "fail" };

	return names[s];
}

void vtb_checks_release(struct vtb_checks *c)
{
	for (size_t i = 0; c && i < c->n; i++) {
		free(c->v[i].found);
		free(c->v[i].advice);
	}
	if (c) {
		free(c->v);
		*c = (struct vtb_checks){ 0 };
	}
}

const struct vtb_check *vtb_checks_failed(const struct vtb_checks *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].status == VTB_CHECK_FAIL)
			return &c->v[i];
	return NULL;
}

/* What the checks share: where to read, what was found so far. */
struct doc {
	const struct vtb_doctor_opts *o;
	const char *root; /* "" for "/": paths are root + "/dev/null" */
	struct vtb_checks *out;
	bool oom;
	struct vtb_hv *hv; /* NULL: libvirt not reachable (or not asked) */
	bool vms;	   /* guests are planned (or no matrix says otherwise) */
	char *kernel;	   /* the guest kernel found, NULL: none */
};

/* Adds a check: @advice (NULL for none) as it is, what was found from
 * @fmt.  Out of memory is remembered and reported once, at the end. */
static void add(struct doc *d, const char *id, enum vtb_check_status st, const char *advice,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add(struct doc *d, const char *id, enum vtb_check_status st, const char *advice,
		const char *fmt, ...)
{
	struct vtb_checks *c = d->out;
	struct vtb_check *k;
	va_list ap;
	char *found = NULL;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct vtb_check *v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			d->oom = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&found, fmt, ap) < 0)
		found = NULL;
	va_end(ap);
	k = &c->v[c->n];
	k->id = id;
	k->status = st;
	k->found = found;
	k->advice = advice ? strdup(advice) : NULL;
	if (!found || (advice && !k->advice)) {
		free(found);
		free(k->advice);
		d->oom = true;
		return;
	}
	c->n++;
}

static char *at(const struct doc *d, const char *path)
{
	return vtb_asprintf("%s%s", d->root, path);
}

/* A whole small file under the root, trailing newline stripped; NULL
 * when it cannot be read. */
static char *read_at(const struct doc *d, const char *path)
{
	char *p = at(d, path);
	char *t = p ? vtb_read_file(p, 1 << 20) : NULL;

	free(p);
	return t;
}

static bool has_vms(const struct vtb_matrix *m)
{
	for (size_t i = 0; m && i < m->n_configs; i++)
		if (m->configs[i].kind == VTB_CONFIG_VM)
			return true;
	return false;
}

/* ---- /dev ----------------------------------------------------------- */

struct devnode {
	const char *id, *path;
	unsigned maj, min, mode; /* mode: the permission bits wanted at least */
};

static const struct devnode devnodes[] = {
	{ "dev-null", "/dev/null", 1, 3, 0666 },
	{ "dev-zero", "/dev/zero", 1, 5, 0666 },
	{ "dev-random", "/dev/random", 1, 8, 0666 },
	{ "dev-urandom", "/dev/urandom", 1, 9, 0666 },
};

static void check_dev(struct doc *d, const struct devnode *n)
{
	char *p = at(d, n->path);
	char *fix = vtb_asprintf("recreate it as root: rm -f %s && mknod -m %o %s c %u %u "
				 "(libvirt and QEMU fail on every boot otherwise)",
				 n->path, n->mode, n->path, n->maj, n->min);
	struct stat sb;

	if (!p || !fix) {
		d->oom = true;
	} else if (stat(p, &sb) < 0) {
		add(d, n->id, VTB_CHECK_FAIL, fix, "%s: %s", n->path, strerror(errno));
	} else if (!S_ISCHR(sb.st_mode)) {
		add(d, n->id, VTB_CHECK_FAIL, fix, "%s is %s, not the character device %u:%u",
		    n->path, S_ISREG(sb.st_mode) ? "a regular file" : vtb_file_kind(sb.st_mode),
		    n->maj, n->min);
	} else if (major(sb.st_rdev) != n->maj || minor(sb.st_rdev) != n->min) {
		add(d, n->id, VTB_CHECK_FAIL, fix, "%s is the character device %u:%u, not %u:%u",
		    n->path, major(sb.st_rdev), minor(sb.st_rdev), n->maj, n->min);
	} else if ((sb.st_mode & n->mode) != n->mode) {
		char *chmod = vtb_asprintf("chmod %o %s", n->mode, n->path);

		add(d, n->id, VTB_CHECK_FAIL, chmod ? chmod : fix, "%s has mode %04o, not %04o",
		    n->path, (unsigned)(sb.st_mode & 07777), n->mode);
		free(chmod);
	} else {
		add(d, n->id, VTB_CHECK_OK, NULL, "%s: character device %u:%u, mode %04o", n->path,
		    n->maj, n->min, (unsigned)(sb.st_mode & 07777));
	}
	free(p);
	free(fix);
}

/* /dev/kvm: absent is TCG (the kvm check says what that costs); present
 * it must be the KVM device, 10:232, readable and writable by its group
 * at least (QEMU runs in the kvm group or as root). */
static void check_dev_kvm(struct doc *d)
{
	char *p = at(d, "/dev/kvm");
	struct stat sb;

	if (!p) {
		d->oom = true;
		return;
	}
	if (stat(p, &sb) < 0)
		add(d, "dev-kvm", VTB_CHECK_INFO, NULL, "/dev/kvm: %s (guests run under TCG)",
		    strerror(errno));
	else if (!S_ISCHR(sb.st_mode) || major(sb.st_rdev) != 10 || minor(sb.st_rdev) != 232)
		add(d, "dev-kvm", VTB_CHECK_FAIL,
		    "remove it and reload the kvm module (modprobe -r kvm_intel kvm_amd; modprobe kvm_intel or kvm_amd), or recreate it: mknod -m 660 /dev/kvm c 10 232",
		    "/dev/kvm is %s, not the character device 10:232",
		    S_ISCHR(sb.st_mode) ? "another character device" : vtb_file_kind(sb.st_mode));
	else if ((sb.st_mode & 0066) == 0)
		add(d, "dev-kvm", VTB_CHECK_INFO, NULL,
		    "/dev/kvm has mode %04o: only its owner opens it (fine when QEMU runs as root; else chmod 660 /dev/kvm, group kvm)",
		    (unsigned)(sb.st_mode & 07777));
	else
		add(d, "dev-kvm", VTB_CHECK_OK, NULL,
		    "/dev/kvm: character device 10:232, mode %04o", (unsigned)(sb.st_mode & 07777));
	free(p);
}

/* ---- libvirt, virtlogd, QEMU, KVM ------------------------------------- */

static const char start_libvirt[] =
	"start the daemon: systemctl start libvirtd (or virtqemud); without systemd: scripts/libvirtd.sh start";

static void check_libvirt(struct doc *d)
{
	const char *uri = d->o->m ? d->o->m->uri : NULL;

	if (!d->vms && (d->o->flags & VTB_DOCTOR_CHEAP))
		return;
	if (vtb_hv_open(uri, &d->hv) < 0) {
		char *err = vtb_strdup(vtb_errmsg());

		add(d, "libvirt", VTB_CHECK_FAIL, start_libvirt, "%s", err ? err : "?");
		free(err);
		return;
	}
	add(d, "libvirt", VTB_CHECK_OK, NULL, "%s answers: libvirt %s", vtb_hv_uri(d->hv),
	    vtb_hv_libvirt_version(d->hv));
}

/* Whether something listens on the UNIX socket @path */
static bool socket_answers(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;
	bool ok;

	if (strlen(path) >= sizeof(a.sun_path))
		return false;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* The system daemon logs each guest's QEMU output through virtlogd: a
 * missing one fails every boot with "Failed to connect socket to
 * '/run/libvirt/virtlogd-sock'".  A session daemon starts its own. */
static void check_virtlogd(struct doc *d)
{
	char *p;

	if (!d->hv) {
		add(d, "virtlogd", VTB_CHECK_INFO, NULL, "not checked: libvirt is not reachable");
		return;
	}
	if (!vtb_hv_system(d->hv)) {
		add(d, "virtlogd", VTB_CHECK_INFO, NULL,
		    "%s: not the local system daemon (a session daemon starts its own virtlogd)",
		    vtb_hv_uri(d->hv));
		return;
	}
	p = at(d, "/run/libvirt/virtlogd-sock");
	if (!p) {
		d->oom = true;
		return;
	}
	if (socket_answers(p))
		add(d, "virtlogd", VTB_CHECK_OK, NULL, "/run/libvirt/virtlogd-sock answers");
	else
		add(d, "virtlogd", VTB_CHECK_FAIL,
		    "start it: systemctl start virtlogd; without systemd: scripts/libvirtd.sh start",
		    "/run/libvirt/virtlogd-sock does not answer: every guest boot would fail");
	free(p);
}

/* The first qemu-system-x86_64 on PATH, malloc'ed, or NULL */
static char *qemu_on_path(void)
{
	const char *path = getenv("PATH");
	char *dirs = vtb_strdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL, *dir;
	char *found = NULL;

	for (dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = vtb_asprintf("%s/qemu-system-x86_64", dir);

		if (p && access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(dirs);
	return found;
}

static void check_qemu(struct doc *d)
{
	const char *v = d->hv ? vtb_hv_qemu_version(d->hv) : "";
	char *bin;

	if (v && *v && strcmp(v, "0.0.0")) {
		add(d, "qemu", VTB_CHECK_OK, NULL, "libvirt runs QEMU %s", v);
		return;
	}
	bin = qemu_on_path();
	if (bin && !d->hv)
		add(d, "qemu", VTB_CHECK_OK, NULL, "%s (its version: once libvirt answers)", bin);
	else if (bin)
		add(d, "qemu", VTB_CHECK_WARN,
		    "check the daemon's qemu.conf and log (/var/log/libvirt/)",
		    "%s, but libvirt reports no QEMU version", bin);
	else
		add(d, "qemu", VTB_CHECK_FAIL, "install it: apt-get install qemu-system-x86",
		    "no qemu-system-x86_64 on PATH%s", d->hv ? " and libvirt reports none" : "");
	free(bin);
}

static char *stage_dir(void)
{
	const char *dir = getenv("VTBENCH_GUEST_DIR");

	return dir && *dir ? vtb_strdup(dir) : vtb_guest_default_dir();
}

/* The harness's own decision (vmboot.c): /dev/kvm, libvirt's kvm domain
 * type, then the probe boot's cached answer.  Presence alone proves
 * nothing, so without a cached answer it is "not probed yet". */
static void check_kvm(struct doc *d)
{
	const char *setting = d->o->m ? d->o->m->accel : NULL;
	char *dev = at(d, "/dev/kvm"), *dir = NULL, *accel = NULL, *why = NULL;
	int r;

	if (!dev) {
		d->oom = true;
		return;
	}
	if (setting && strcmp(setting, "auto")) {
		add(d, "kvm", VTB_CHECK_INFO, NULL, "accel = %s in the matrix: not probed",
		    setting);
	} else if (access(dev, F_OK) != 0) {
		add(d, "kvm", VTB_CHECK_WARN,
		    "enable VT-x/AMD-V in the firmware and load kvm_intel or kvm_amd; TCG numbers do not describe a KVM guest",
		    "no /dev/kvm: guests run under TCG (emulated, much slower)");
	} else if (!d->hv) {
		add(d, "kvm", VTB_CHECK_INFO, NULL,
		    "/dev/kvm exists, which proves nothing; not probed: libvirt is not reachable");
	} else if (!vtb_hv_kvm_listed(d->hv)) {
		add(d, "kvm", VTB_CHECK_WARN,
		    "check that qemu-system-x86 is installed and /dev/kvm usable by the daemon (virsh domcapabilities --virttype kvm)",
		    "libvirt offers no KVM domains here: guests run under TCG");
	} else if (!(dir = stage_dir())) {
		add(d, "kvm", VTB_CHECK_INFO, NULL, "no staging directory: %s", vtb_errmsg());
	} else if ((r = vtb_accel_cached(d->hv, dir, &accel, &why)) < 0) {
		d->oom = true;
	} else if (r == 0) {
		add(d, "kvm", VTB_CHECK_INFO, NULL,
		    "/dev/kvm and libvirt's KVM domains exist; not probed yet for this kernel, QEMU and libvirt (the next run probes with a short guest boot)");
	} else if (!strcmp(accel, "kvm")) {
		add(d, "kvm", VTB_CHECK_OK, NULL, "KVM: %s", why);
	} else {
		char *adv = vtb_asprintf(
			"fix what the probe says, then delete %s/accel.json so the next run probes again",
			dir);

		add(d, "kvm", VTB_CHECK_WARN, adv ? adv : "", "TCG: %s", why);
		free(adv);
	}
	free(dev);
	free(dir);
	free(accel);
	free(why);
}

/* ---- the guest ---------------------------------------------------------- */

static void check_kernel(struct doc *d)
{
	const char *configured = d->o->m ? d->o->m->kernel : NULL;
	struct vtb_kernel_choice k = { 0 };
	char *fetched = vtb_guest_default_fetched_dir();

	if (!fetched) {
		d->oom = true;
		return;
	}
	if (vtb_kernel_pick(configured, "/boot", fetched, false, &k) < 0) {
		add(d, "guest-kernel", VTB_CHECK_FAIL,
		    configured ? "fix [global] kernel = in the matrix"
			       : "run scripts/fetch-kernel.sh, or set kernel = in [global]",
		    "%s", vtb_errmsg());
	} else {
		add(d, "guest-kernel", VTB_CHECK_OK, NULL, "%s (%s, %s)", k.path, k.release,
		    k.source);
		d->kernel = k.path;
		k.path = NULL;
	}
	vtb_kernel_choice_release(&k);
	free(fetched);
	/* the [vm] kernel = images were read when the matrix was */
}

static void check_image(struct doc *d)
{
	const char *env = getenv("VTBENCH_GUEST_IMAGE");
	char *img = env ? vtb_strdup(env) : vtb_guest_default_initramfs();
	struct stat sb;

	if (!img) {
		d->oom = true;
		return;
	}
	if (stat(img, &sb) < 0 || !S_ISREG(sb.st_mode) || access(img, R_OK) < 0)
		add(d, "guest-image", VTB_CHECK_FAIL,
		    "build it: make guest (or set VTBENCH_GUEST_IMAGE)",
		    "the guest initramfs '%s' cannot be read", img);
	else
		add(d, "guest-image", VTB_CHECK_OK, NULL, "%s", img);
	free(img);
}

/* Whether @config (a kernel .config's text) sets @opt to y */
static bool config_y(const char *config, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = config; (p = strstr(p, opt)); p += n)
		if ((p == config || p[-1] == '\n') && !strncmp(p + n, "=y", 2))
			return true;
	return false;
}

/* From the stored probe of each configuration's kernel when the database
 * has one (run stores it with a boot), else from the .config beside the
 * kernel: the debugfs sched knobs need CONFIG_SCHED_DEBUG and DEBUG_FS. */
static void check_knobs(struct doc *d)
{
	const struct vtb_matrix *m = d->o->m;
	char *beside = d->kernel ? vtb_kernel_config_beside(d->kernel) : NULL;
	char *config = beside ? vtb_read_file(beside, 64u << 20) : NULL;
	size_t n_knobs = 0, n_known = 0;
	char *lacks = NULL;
	char kernel_sha[65] = "";

	for (size_t i = 0; m && i < m->n_configs && !lacks; i++) {
		const struct vtb_config *c = &m->configs[i];
		const char *sha = c->kernel_path ? c->kernel_sha256 : kernel_sha;
		char *txt = NULL, *why = NULL;
		json_t *probe;

		if (c->kind != VTB_CONFIG_VM || !vtb_sched_sets_knobs(c))
			continue;
		n_knobs++;
		if (!c->kernel_path && !kernel_sha[0] && d->kernel &&
		    vtb_sha256_file_hex(d->kernel, VTB_KERNEL_IMAGE_MAX, kernel_sha) < 0)
			kernel_sha[0] = '\0';
		if (!d->o->st || !sha[0] || vtb_store_kernel_probe(d->o->st, sha, &txt) < 0 || !txt)
			continue;
		probe = json_loads(txt, 0, NULL);
		if (probe && vtb_sched_knobs_lacking(c, probe, &why) == 1)
			lacks = vtb_asprintf("configuration %s (%s): its kernel %s", c->key,
					     c->label, why);
		n_known += probe != NULL;
		json_decref(probe);
		free(why);
		free(txt);
	}
	if (lacks) {
		add(d, "sched-knobs", VTB_CHECK_WARN,
		    "boot a kernel with the knob (CONFIG_SCHED_DEBUG=y for debugfs knobs) or change the profile: run skips that configuration",
		    "%s", lacks);
	} else if (m && !n_knobs) {
		add(d, "sched-knobs", VTB_CHECK_OK, NULL,
		    "no sched profile of the matrix sets a sysctl or debugfs knob");
	} else if (n_known && n_known == n_knobs) {
		add(d, "sched-knobs", VTB_CHECK_OK, NULL,
		    "the stored probes of the kernels have every knob the profiles set");
	} else if (config && !(config_y(config, "CONFIG_SCHED_DEBUG") &&
			       config_y(config, "CONFIG_DEBUG_FS"))) {
		add(d, "sched-knobs", VTB_CHECK_WARN,
		    "use a kernel built with CONFIG_SCHED_DEBUG=y and CONFIG_DEBUG_FS=y for profiles that set debugfs knobs",
		    "%s: no CONFIG_SCHED_DEBUG=y or CONFIG_DEBUG_FS=y: /sys/kernel/debug/sched knobs are missing",
		    beside);
	} else if (config) {
		add(d, "sched-knobs", VTB_CHECK_OK, NULL,
		    "%s: CONFIG_SCHED_DEBUG=y, CONFIG_DEBUG_FS=y (each knob is probed in the guest at its first boot)",
		    beside);
	} else {
		add(d, "sched-knobs", VTB_CHECK_INFO, NULL,
		    "no .config beside the kernel: its knobs are known once a boot stores its probe (plan --db says then)");
	}
	free(lacks);
	free(config);
	free(beside);
}

/* ---- memory ------------------------------------------------------------- */

/* "Key:   123 kB" of /proc/meminfo: the number, -1 when absent */
static long long meminfo_num(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* The most memory one configuration's guests take together (VMs of a
 * configuration boot side by side), over the runnable ones, or over
 * those with locked = yes when @locked (QEMU then allocates and pins it
 * all at start); *huge: whether any asks for hugepages */
static uint64_t largest_guest(const struct vtb_matrix *m, bool locked, const char **label,
			      bool *huge)
{
	uint64_t most = 0;

	*huge = false;
	for (size_t i = 0; m && i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		uint64_t b = c->req.memory_bytes * (uint64_t)(c->req.vms > 0 ? c->req.vms : 1);

		if (c->kind != VTB_CONFIG_VM || !c->runnable)
			continue;
		*huge |= c->req.hugepages;
		if (b > most && (!locked || c->req.locked)) {
			most = b;
			*label = c->label;
		}
	}
	return most;
}

/* Guest memory not locked is allocated as the guest touches it: more
 * than is available may boot, and swaps once a workload touches it (a
 * warn); locked memory that does not fit fails the boot. */
static void check_memory(struct doc *d)
{
	char *proc = at(d, "/proc");
	uint64_t total = 0, avail = 0, need, need_locked;
	const char *label = NULL, *label_locked = NULL;
	char *a = NULL, *t = NULL, *n = NULL, *nl = NULL;
	bool huge;

	if (!proc) {
		d->oom = true;
		return;
	}
	need = largest_guest(d->o->m, false, &label, &huge);
	need_locked = largest_guest(d->o->m, true, &label_locked, &huge);
	if (vtb_meminfo(proc, &total, &avail) < 0) {
		add(d, "memory", VTB_CHECK_WARN, "check that /proc is mounted", "%s", vtb_errmsg());
		goto out;
	}
	a = vtb_format_size(avail);
	t = vtb_format_size(total);
	n = vtb_format_size(need);
	nl = vtb_format_size(need_locked);
	if (!a || !t || !n || !nl)
		d->oom = true;
	else if (!d->o->m)
		add(d, "memory", VTB_CHECK_INFO, NULL,
		    "%s available of %s; no guest planned (give a MATRIX.conf to check its guests)",
		    a, t);
	else if (!need)
		add(d, "memory", VTB_CHECK_OK, NULL,
		    "%s available of %s; the matrix plans no runnable guest", a, t);
	else if (need_locked > avail)
		add(d, "memory", VTB_CHECK_FAIL,
		    "free memory, or lower memory = (or vms =) of that configuration",
		    "%s available, but '%s' locks %s for its guests", a, label_locked, nl);
	else if (need > avail)
		add(d, "memory", VTB_CHECK_WARN,
		    "free memory, or lower memory = (or vms =) of that configuration",
		    "%s available, but '%s' gives its guests %s: a workload that touches it all makes the host swap",
		    a, label, n);
	else if (need > avail / 10 * 8)
		add(d, "memory", VTB_CHECK_WARN,
		    "free memory: the host's page cache and daemons compete with the guests",
		    "%s available; '%s' gives its guests %s, more than 80%% of it", a, label, n);
	else
		add(d, "memory", VTB_CHECK_OK, NULL,
		    "%s available of %s; the largest planned guests take %s ('%s')", a, t, n,
		    label);
out:
	free(a);
	free(t);
	free(n);
	free(nl);
	free(proc);
}

static void check_hugepages(struct doc *d)
{
	char *text = read_at(d, "/proc/meminfo");
	const char *label = NULL;
	bool asked;
	uint64_t need = largest_guest(d->o->m, false, &label, &asked);
	long long total, freep, kb;

	if (!text) {
		add(d, "hugepages", asked ? VTB_CHECK_WARN : VTB_CHECK_INFO,
		    asked ? "check that /proc is mounted" : NULL, "cannot read /proc/meminfo");
		return;
	}
	total = meminfo_num(text, "HugePages_Total");
	freep = meminfo_num(text, "HugePages_Free");
	kb = meminfo_num(text, "Hugepagesize");
	free(text);
	if (total < 0 || freep < 0 || kb <= 0) {
		add(d, "hugepages", asked ? VTB_CHECK_WARN : VTB_CHECK_INFO,
		    asked ? "use a kernel with CONFIG_HUGETLBFS, or hugepages = no" : NULL,
		    "no hugepage counters in /proc/meminfo");
	} else if (!asked) {
		add(d, "hugepages", VTB_CHECK_INFO, NULL,
		    "%lld configured, %lld free, %lld kB each (the %s asks for none)", total, freep,
		    kb, d->o->m ? "matrix" : "host without a matrix");
	} else if ((uint64_t)freep * (uint64_t)kb * 1024 < need) {
		char *adv = vtb_asprintf(
			"reserve them: echo %llu > /proc/sys/vm/nr_hugepages (or hugepages = no)",
			(unsigned long long)(need / ((uint64_t)kb * 1024) +
					     (uint64_t)(total - freep)));

		add(d, "hugepages", VTB_CHECK_WARN, adv ? adv : "",
		    "%lld free of %lld (%lld kB each): '%s' needs %llu", freep, total, kb, label,
		    (unsigned long long)(need / ((uint64_t)kb * 1024)));
		free(adv);
	} else {
		add(d, "hugepages", VTB_CHECK_OK, NULL, "%lld free of %lld (%lld kB each)", freep,
		    total, kb);
	}
}

/* ---- the host's hygiene --------------------------------------------------- */

/* cgroup v2: the root's controllers; v1: the hierarchies mounted */
static void check_cgroups(struct doc *d)
{
	static const char *const want[] = { "cpuset", "cpu", "memory" };
	char *ctl = read_at(d, "/sys/fs/cgroup/cgroup.controllers");
	struct vtb_strbuf missing = VTB_STRBUF_INIT;

	if (ctl) {
		for (size_t i = 0; i < VTB_ARRAY_SIZE(want); i++) {
			size_t n = strlen(want[i]);
			bool found = false;

			for (const char *p = ctl; (p = strstr(p, want[i])); p += n)
				if ((p == ctl || p[-1] == ' ') &&
				    (!p[n] || p[n] == ' ' || p[n] == '\n'))
					found = true;
			if (!found &&
			    vtb_strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", want[i]))
				d->oom = true;
		}
		if (missing.len)
			add(d, "cgroups", VTB_CHECK_WARN,
			    "enable them for libvirt (a container: delegate them; cgroup_enable= on the kernel command line)",
			    "cgroup v2 without %s: libvirt cannot pin or limit guests with it",
			    vtb_strbuf_str(&missing));
		else
			add(d, "cgroups", VTB_CHECK_OK, NULL, "cgroup v2: %s", ctl);
	} else {
		char *v1 = at(d, "/sys/fs/cgroup/cpuset");
		struct stat sb;

		if (v1 && stat(v1, &sb) == 0 && S_ISDIR(sb.st_mode))
			add(d, "cgroups", VTB_CHECK_OK, NULL, "cgroup v1 (cpuset mounted)");
		else
			add(d, "cgroups", VTB_CHECK_WARN,
			    "mount cgroup2 on /sys/fs/cgroup (libvirt places and limits guests with it)",
			    "no cgroup controllers under /sys/fs/cgroup");
		free(v1);
	}
	vtb_strbuf_release(&missing);
	free(ctl);
}

static void check_clocksource(struct doc *d)
{
	char *cs = read_at(d, "/sys/devices/system/clocksource/clocksource0/current_clocksource");

	if (!cs)
		add(d, "clocksource", VTB_CHECK_INFO, NULL, "no clock source in sysfs");
	else if (!strcmp(cs, "tsc"))
		add(d, "clocksource", VTB_CHECK_OK, NULL, "tsc");
	else
		add(d, "clocksource", VTB_CHECK_WARN,
		    "use tsc when the CPU's TSC is stable (clocksource=tsc tsc=reliable on the kernel command line): other clock sources make every timestamp slower",
		    "%s, not tsc", cs);
	free(cs);
}

/* Governor, turbo and SMT as the host state snapshot reads them (the
 * one run stores with each campaign, hoststate.h): the same words here
 * as in what compare shows later. */
static void check_governor(struct doc *d, const json_t *gov)
{
	const char *g = json_string_value(gov);

	if (!g)
		add(d, "governor", VTB_CHECK_INFO, NULL,
		    "no cpufreq (a guest, or no frequency driver): the frequency is not ours to set");
	else if (!strcmp(g, "performance"))
		add(d, "governor", VTB_CHECK_OK, NULL, "performance on every CPU");
	else
		add(d, "governor", VTB_CHECK_WARN,
		    "cpupower frequency-set -g performance (the frequency then does not follow the load)",
		    "%s, not performance", g);
}

static void check_turbo(struct doc *d, const json_t *boost)
{
	if (json_is_false(boost))
		add(d, "turbo", VTB_CHECK_OK, NULL, "off");
	else if (json_is_true(boost))
		add(d, "turbo", VTB_CHECK_WARN,
		    "turn it off for the campaign: echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo, or echo 0 > /sys/devices/system/cpu/cpufreq/boost",
		    "on: the clock follows temperature and the other cores' load");
	else if (json_is_string(boost))
		add(d, "turbo", VTB_CHECK_INFO, NULL, "unknown state '%s'",
		    json_string_value(boost));
	else
		add(d, "turbo", VTB_CHECK_INFO, NULL,
		    "no turbo control in sysfs (a guest, or no frequency driver)");
}

static void check_smt(struct doc *d, const json_t *smt)
{
	const char *ctl = json_string_value(json_object_get(smt, "control"));
	const json_t *act = json_object_get(smt, "active");

	if (!ctl)
		add(d, "smt", VTB_CHECK_INFO, NULL, "no SMT control in sysfs");
	else if (json_is_true(act))
		add(d, "smt", VTB_CHECK_INFO, NULL,
		    "on (control %s): sibling threads share a core; the planner places vCPUs by core",
		    ctl);
	else
		add(d, "smt", VTB_CHECK_INFO, NULL, "off (control %s)", ctl);
}

static void check_settings(struct doc *d)
{
	json_t *st = vtb_hoststate_snapshot(d->root[0] ? d->root : "/");

	if (!st) {
		d->oom = true;
		return;
	}
	check_governor(d, json_object_get(st, "governor"));
	check_turbo(d, json_object_get(st, "boost"));
	check_smt(d, json_object_get(st, "smt"));
	json_decref(st);
}

/* A busy machine measures its own load: hyperfine and fio users expect
 * to be told.  More than one runnable task on average is a warn. */
static void check_load(struct doc *d)
{
	char *t = read_at(d, "/proc/loadavg");
	double l1 = 0, l5 = 0;

	if (!t || sscanf(t, "%lf %lf", &l1, &l5) != 2)
		add(d, "load", VTB_CHECK_INFO, NULL, "cannot read /proc/loadavg");
	else if (l1 >= 1.0)
		add(d, "load", VTB_CHECK_WARN,
		    "run campaigns on an idle host: other work shares the CPUs and caches measured",
		    "load average %.2f (1 min), %.2f (5 min)", l1, l5);
	else
		add(d, "load", VTB_CHECK_OK, NULL, "load average %.2f (1 min), %.2f (5 min)", l1,
		    l5);
	free(t);
}

/* A matrix without VM configurations needs no libvirt, QEMU, KVM nor
 * guest files: what those checks found is only information. */
static void not_needed(struct doc *d, size_t from)
{
	for (size_t i = from; i < d->out->n; i++) {
		struct vtb_check *k = &d->out->v[i];
		char *f;

		if (k->status < VTB_CHECK_WARN)
			continue;
		f = vtb_asprintf("not needed (the matrix has no VM configuration): %s", k->found);
		if (!f) {
			d->oom = true;
			return;
		}
		free(k->found);
		free(k->advice);
		k->found = f;
		k->advice = NULL;
		k->status = VTB_CHECK_INFO;
	}
}

int vtb_doctor(const struct vtb_doctor_opts *o, struct vtb_checks *out)
{
	const char *root = o->root ? o->root : getenv("VTBENCH_DOCTOR_ROOT");
	struct doc d = { .o = o, .out = out, .vms = !o->m || has_vms(o->m) };
	bool cheap = o->flags & VTB_DOCTOR_CHEAP;
	size_t first_vm;
	char *r = vtb_strdup(root && *root ? root : "");

	if (!r)
		return vtb_error("out of memory");
	/* "/" and "/x/" as "" and "/x": paths are joined with a leading '/' */
	for (size_t n = strlen(r); n && r[n - 1] == '/'; n--)
		r[n - 1] = '\0';
	d.root = r;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(devnodes); i++)
		check_dev(&d, &devnodes[i]);
	if (!cheap)
		check_dev_kvm(&d);
	first_vm = out->n;
	check_libvirt(&d);
	if (!cheap) {
		check_virtlogd(&d);
		check_qemu(&d);
		check_kvm(&d);
	}
	if (d.vms || !cheap) {
		check_kernel(&d);
		check_image(&d);
	}
	if (!cheap)
		check_knobs(&d);
	if (!d.vms)
		not_needed(&d, first_vm);
	check_memory(&d);
	if (!cheap) {
		check_hugepages(&d);
		check_cgroups(&d);
		check_clocksource(&d);
		check_settings(&d);
		check_load(&d);
	}
	vtb_hv_close(d.hv);
	free(d.kernel);
	free(r);
	return d.oom ? vtb_error("out of memory") : 0;
}
