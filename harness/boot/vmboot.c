/* SPDX-License-Identifier: MIT */
/*
 * Campaign-level VM setup and per-boot assembly.  The KVM probe exists
 * because /dev/kvm and libvirt's capabilities prove nothing: on some
 * machines (nested, or a host kernel without working KVM) QEMU aborts
 * or the guest hangs under KVM.  A probe boot with a no-op job decides,
 * and its answer is cached so a campaign pays for it once per host.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "domspec.h"
#include "domxml.h"
#include "guest.h"
#include "../matrix/digest.h"
#include "placement.h"
#include "../plan/plan.h"
#include "provision.h"
#include "../plan/sched.h"
#include "vmboot.h"

#define PROBE_TIMEOUT_NS (30ull * 1000000000ull)
#define PROBE_MEMORY (256ull << 20)

char *vtb_vm_cmdline(const char *nonce, const struct vtb_config *c)
{
	const char *kern = c ? vtb_params_get(&c->params, "kernel.cmdline") : NULL;
	const char *extra = c ? vtb_sched_cmdline(c) : NULL;

	/* panic=-1: reboot at once on a panic, which on_reboot=destroy
	 * turns into the end of the domain.  The kernel's parameters come
	 * after ours, the profile's last. */
	return vtb_asprintf("console=ttyS0 panic=-1 vtbench.nonce=%s%s%s%s%s", nonce,
			    kern ? " " : "", kern ? kern : "", extra ? " " : "",
			    extra ? extra : "");
}

/* The identity of kernel @k's image (its sha256 unless known) and of the
 * .config beside it unless @config names one. */
static int kernel_identity(struct vtb_vmkernel *k, const char *image, const char *config)
{
	char *beside = config ? NULL : vtb_kernel_config_beside(image);
	char hex[65];

	if (!k->sha256[0] && vtb_sha256_file_hex(image, VTB_KERNEL_IMAGE_MAX, k->sha256) < 0)
		return -1;
	if ((config || beside) &&
	    vtb_sha256_file_hex(config ? config : beside, VTB_KERNEL_IMAGE_MAX, hex) == 0)
		k->config_sha256 = vtb_strdup(hex);
	free(beside);
	return 0;
}

/* Kernel [0] is the staged one; one more per image [vm] kernel = names. */
static int stage_kernels(struct vtb_vmhost *vh, const struct vtb_matrix *m)
{
	size_t i, j;

	vh->kernels = calloc(m->n_configs + 1, sizeof(*vh->kernels));
	if (!vh->kernels)
		return vtb_error("out of memory");
	vh->kernels[0].staged = vtb_strdup(vh->stage->kernel);
	vh->kernels[0].release = vtb_strdup(vh->stage->release);
	vh->n_kernels = 1;
	if (!vh->kernels[0].staged || !vh->kernels[0].release)
		return vtb_error("out of memory");
	if (kernel_identity(&vh->kernels[0], vh->stage->kernel, NULL) < 0)
		return -1;
	for (i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		struct vtb_vmkernel *k;

		if (c->kind != VTB_CONFIG_VM || !c->kernel_path || !c->runnable)
			continue;
		for (j = 1; j < vh->n_kernels; j++)
			if (!strcmp(vh->kernels[j].path, c->kernel_path))
				break;
		if (j < vh->n_kernels)
			continue;
		k = &vh->kernels[vh->n_kernels++];
		k->path = c->kernel_path;
		memcpy(k->sha256, c->kernel_sha256, sizeof(k->sha256));
		if (vtb_guest_stage_kernel(vh->stage, c->kernel_path, c->kernel_sha256, &k->staged,
					   &k->release) < 0 ||
		    kernel_identity(k, c->kernel_path, c->kernel_config) < 0)
			return -1;
	}
	return 0;
}

const struct vtb_vmkernel *vtb_vmhost_kernel(const struct vtb_vmhost *vh,
					     const struct vtb_config *c)
{
	for (size_t j = 1; c->kernel_path && j < vh->n_kernels; j++)
		if (!strcmp(vh->kernels[j].path, c->kernel_path))
			return &vh->kernels[j];
	return &vh->kernels[0];
}

static char *cache_key(struct vtb_hv *hv)
{
	struct utsname u;

	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	return vtb_asprintf("%s %s qemu-%s libvirt-%s %s", u.nodename, u.release,
			    vtb_hv_qemu_version(hv), vtb_hv_libvirt_version(hv), vtb_hv_uri(hv));
}

static bool cache_read(const struct vtb_vmhost *vh, const char *path, const char *key,
		       struct vtb_vmhost *out)
{
	json_t *j = json_load_file(path, 0, NULL);
	const char *k = NULL, *a = NULL, *why = NULL;
	bool hit = false;

	if (j && !json_unpack(j, "{s:s, s:s, s:s}", "key", &k, "accel", &a, "why", &why) &&
	    !strcmp(k, key) && (!strcmp(a, "kvm") || !strcmp(a, "tcg"))) {
		out->accel = vtb_strdup(a);
		out->accel_why = vtb_asprintf("%s (cached in %s)", why, path);
		hit = out->accel && out->accel_why;
	}
	(void)vh;
	json_decref(j);
	return hit;
}

/* Written to a private temporary file and renamed: never through a
 * name someone else could have planted a symlink at. */
static void cache_write(const char *path, const char *key, const char *accel, const char *why)
{
	json_t *j = json_pack("{s:s, s:s, s:s}", "key", key, "accel", accel, "why", why);
	char *tmp = vtb_asprintf("%s.XXXXXX", path);
	int fd = tmp ? mkstemp(tmp) : -1;

	if (j && fd >= 0 && json_dumpfd(j, fd, JSON_INDENT(2)) == 0 && fchmod(fd, 0644) == 0 &&
	    close(fd) == 0) {
		fd = -1;
		if (rename(tmp, path) != 0)
			unlink(tmp);
	} else if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	json_decref(j);
}

int vtb_accel_cached(struct vtb_hv *hv, const char *dir, char **accel, char **why)
{
	struct vtb_vmhost got = { 0 };
	char *key = cache_key(hv);
	char *path = vtb_asprintf("%s/accel.json", dir);
	int ret = -1;

	*accel = *why = NULL;
	if (!key || !path) {
		vtb_error("out of memory");
		goto out;
	}
	ret = cache_read(NULL, path, key, &got) ? 1 : 0;
	*accel = got.accel;
	*why = got.accel_why;
out:
	free(key);
	free(path);
	return ret;
}

/* Boots a no-op job with @kvm or TCG: 1 when its records end well, 0
 * when not (*why says how), -1 on a harness failure. */
static int probe_boot(struct vtb_vmhost *vh, bool kvm, const struct vtb_probe_ctl *ctl, char **why)
{
	struct vtb_boot_outcome out = { 0 };
	struct vtb_domspec d = { 0 };
	char nonce[33], uuid[37], name[64];
	char *job = NULL, *img = NULL, *cmdline = NULL, *xml = NULL, *live = NULL;
	const char *what = kvm ? "a KVM probe boot" : "a TCG control boot";
	int ret = -1;

	*why = NULL;
	if (vtb_random_hex(nonce, 16) || vtb_uuid(uuid))
		return -1;
	snprintf(name, sizeof(name), "vtbench-probe-%s", uuid);
	job = vtb_asprintf("{\"schema\":1,\"nonce\":\"%s\",\"cells\":[]}", nonce);
	img = job ? vtb_guest_boot_image(vh->stage, uuid, job) : NULL;
	cmdline = vtb_vm_cmdline(nonce, NULL);
	if (!img || !cmdline)
		goto out;
	d = (struct vtb_domspec){ .name = name,
				  .kvm = kvm,
				  .cpu_model = kvm ? "host-passthrough" : "kvm64",
				  .vcpus = 1,
				  .memory_bytes = PROBE_MEMORY,
				  .kernel = vh->stage->kernel,
				  .initrd = img,
				  .cmdline = cmdline };
	xml = vtb_domxml(&d);
	if (!xml || vtb_hv_reconnect(vh->hv))
		goto out;
	{
		struct vtb_vm_req req = { .xml = xml,
					  .name = name,
					  .nonce = nonce,
					  .timeout_ns = PROBE_TIMEOUT_NS,
					  .stop = ctl ? ctl->stop : NULL,
					  .waitmask = ctl ? ctl->waitmask : NULL };

		if (vtb_hv_boot(vh->hv, &req, &out, &live))
			goto out;
	}
	if (!strcmp(out.status, "interrupted")) {
		vtb_error("interrupted during %s", what);
		goto out;
	}
	for (char *c = out.error; c && *c; c++)
		if (*c == '\n')
			*c = ' ';
	if (!strcmp(out.status, "ok"))
		*why = vtb_asprintf("%s powered off cleanly", what);
	else
		*why = vtb_asprintf("%s %s: %s", what,
				    !strcmp(out.status, "timeout") ? "hung" : "failed",
				    out.error ? out.error : "?");
	ret = *why ? !strcmp(out.status, "ok") : vtb_error("out of memory");
out:
	if (img)
		unlink(img);
	vtb_boot_outcome_release(&out);
	free(live);
	free(xml);
	free(cmdline);
	free(img);
	free(job);
	return ret;
}

static int set_accel(struct vtb_vmhost *vh, const char *accel, const char *why)
{
	vh->accel = vtb_strdup(accel);
	vh->accel_why = vtb_strdup(why);
	return vh->accel && vh->accel_why ? 0 : vtb_error("out of memory");
}

/*
 * KVM only when a KVM boot powers off cleanly.  A failed KVM probe is
 * trusted (and cached as "tcg") only when a TCG control boot of the same
 * image works: otherwise the cause is not KVM (a broken kernel, image
 * or daemon), and caching it would hide KVM forever after the fix.
 */
static int decide_accel(struct vtb_vmhost *vh, const char *setting, const struct vtb_probe_ctl *ctl)
{
	char *key = NULL, *cache = NULL, *why = NULL, *why2 = NULL, *both = NULL;
	int r, ret = -1;

	if (setting && !strcmp(setting, "tcg"))
		return set_accel(vh, "tcg", "accel = tcg in the matrix");
	if (setting && !strcmp(setting, "kvm"))
		return set_accel(vh, "kvm", "accel = kvm in the matrix");
	/* existence only: QEMU, not this process, opens it */
	if (access("/dev/kvm", F_OK) != 0)
		return set_accel(vh, "tcg", "no /dev/kvm");
	if (!vtb_hv_kvm_listed(vh->hv))
		return set_accel(vh, "tcg", "libvirt offers no KVM domains here");
	key = cache_key(vh->hv);
	cache = vtb_asprintf("%s/accel.json", vh->stage->dir);
	if (!key || !cache) {
		vtb_error("out of memory");
		goto out;
	}
	if (cache_read(vh, cache, key, vh)) {
		ret = 0;
		goto out;
	}
	if (ctl && ctl->note)
		ctl->note(
			"probing KVM with a short guest boot (/dev/kvm exists, which proves nothing)",
			ctl->arg);
	r = probe_boot(vh, true, ctl, &why);
	if (r < 0)
		goto out;
	if (r == 1) {
		if (set_accel(vh, "kvm", why))
			goto out;
		cache_write(cache, key, "kvm", why);
		ret = 0;
		goto out;
	}
	r = probe_boot(vh, false, ctl, &why2);
	if (r < 0)
		goto out;
	if (r == 0) {
		vtb_error("guests do not boot here: %s; and %s", why, why2);
		goto out;
	}
	both = vtb_asprintf("%s, while a TCG control boot worked", why);
	if (!both || set_accel(vh, "tcg", both))
		goto out;
	cache_write(cache, key, "tcg", both);
	ret = 0;
out:
	free(both);
	free(why2);
	free(why);
	free(key);
	free(cache);
	return ret;
}

int vtb_vmhost_open(const struct vtb_matrix *m, const struct vtb_probe_ctl *ctl,
		    struct vtb_vmhost **out, bool *input)
{
	struct vtb_vmhost *vh;
	char *initramfs = NULL, *fetched = NULL;
	const char *dir = getenv("VTBENCH_GUEST_DIR");
	int ret = -1;

	*out = NULL;
	*input = false;
	vh = calloc(1, sizeof(*vh));
	if (!vh)
		return vtb_error("out of memory");
	if (vtb_hv_open(m->uri, &vh->hv))
		goto out;
	vh->stage = calloc(1, sizeof(*vh->stage));
	initramfs = getenv("VTBENCH_GUEST_IMAGE") ? vtb_strdup(getenv("VTBENCH_GUEST_IMAGE"))
						  : vtb_guest_default_initramfs();
	fetched = vtb_guest_default_fetched_dir();
	if (!vh->stage || !initramfs || !fetched) {
		vtb_error("out of memory");
		goto out;
	}
	if (vtb_guest_stage(dir && *dir ? dir : NULL, m->kernel, "/boot", fetched, initramfs,
			    vtb_hv_system(vh->hv), vh->stage)) {
		*input = true;
		goto out;
	}
	if (stage_kernels(vh, m) < 0) {
		*input = true;
		goto out;
	}
	vtb_guest_sweep(vh->stage, 24 * 3600);
	if (decide_accel(vh, m->accel, ctl))
		goto out;
	vh->cpu_model = vtb_strdup(!strcmp(vh->accel, "kvm") ? "host-passthrough" : "kvm64");
	if (!vh->cpu_model) {
		vtb_error("out of memory");
		goto out;
	}
	*out = vh;
	vh = NULL;
	ret = 0;
out:
	vtb_vmhost_free(vh);
	free(initramfs);
	free(fetched);
	return ret;
}

void vtb_vmhost_free(struct vtb_vmhost *vh)
{
	if (!vh)
		return;
	vtb_hv_close(vh->hv);
	if (vh->stage) {
		vtb_guest_stage_release(vh->stage);
		free(vh->stage);
	}
	for (size_t i = 0; i < vh->n_kernels; i++) {
		free(vh->kernels[i].staged);
		free(vh->kernels[i].release);
		free(vh->kernels[i].config_sha256);
	}
	free(vh->kernels);
	free(vh->accel);
	free(vh->accel_why);
	free(vh->cpu_model);
	free(vh);
}

void vtb_vmboot_result_release(struct vtb_vmboot_result *r)
{
	if (!r)
		return;
	vtb_boot_outcome_release(&r->out);
	free(r->live_xml);
	free(r->placement);
	free(r->claims);
	free(r->cell_host);
	memset(r, 0, sizeof(*r));
}

/* What one VM of a group needs until the boot is over. */
struct vmprep {
	char name[64];
	char *img, *cmdline, *xml;
	struct vtb_plan_domstore st;
	struct vtb_placement *placement;
};

static void vmprep_release(struct vmprep *v)
{
	if (v->img)
		unlink(v->img);
	free(v->img);
	free(v->cmdline);
	free(v->xml);
	vtb_plan_domstore_release(&v->st);
	vtb_placement_free(v->placement);
}

/* VM @k's domain XML and placement accumulator. */
static int vmprep_make(struct vtb_vmhost *vh, const struct vtb_vmboot_group_req *r,
		       const struct vtb_plan *plan, size_t k, struct vmprep *v)
{
	const struct vtb_vmboot_vm *vm = &r->vms[k];
	struct vtb_domspec d = { 0 };

	snprintf(v->name, sizeof(v->name), "vtbench-%s", vm->uuid);
	v->img = vtb_guest_boot_image(vh->stage, vm->uuid, vm->job_json);
	v->cmdline = vtb_vm_cmdline(vm->nonce, r->config);
	if (!v->img || !v->cmdline)
		return -1;
	d.name = v->name;
	d.uuid = vm->uuid;
	d.kvm = !strcmp(vh->accel, "kvm");
	d.cpu_model = vh->cpu_model;
	d.memory_bytes = r->config->req.memory_bytes;
	d.kernel = vtb_vmhost_kernel(vh, r->config)->staged;
	d.initrd = v->img;
	d.cmdline = v->cmdline;
	if (plan) {
		if (vtb_plan_domspec(plan, (int)k, &d, &v->st) < 0)
			return -1;
	} else {
		d.vcpus = r->config->req.vcpus;
		if (vtb_vtopo_shape(&r->config->req, &d.sockets, &d.dies, &d.cores, &d.threads))
			return vtb_error("%s: topology needs a plan", r->config->label);
	}
	v->xml = vtb_domxml(&d);
	if (!v->xml)
		return -1;
	return vtb_placement_new(plan, (int)k, plan ? r->model : NULL, d.vcpus,
				 r->placement_interval_ns, &v->placement);
}

int vtb_vm_boot_group(struct vtb_vmhost *vh, const struct vtb_vmboot_group_req *r,
		      struct vtb_vmboot_result *res)
{
	/* planned once, when the matrix was loaded: carried, never made again */
	const struct vtb_plan *plan = r->model ? r->config->plan : NULL;
	struct vmprep *prep = NULL;
	struct vtb_vm_spec *specs = NULL;
	struct vtb_vm_result *hres = NULL;
	size_t k, n = r->n;
	int ret = -1;

	for (k = 0; k < n; k++)
		memset(&res[k], 0, sizeof(res[k]));
	if (!n)
		return vtb_error("no VMs to boot");
	if (plan && (size_t)plan->req.vms != n)
		return vtb_error("the plan has %d VMs side by side, not %zu", plan->req.vms, n);
	prep = calloc(n, sizeof(*prep));
	specs = calloc(n, sizeof(*specs));
	hres = calloc(n, sizeof(*hres));
	if (!prep || !specs || !hres) {
		vtb_error("out of memory");
		goto out;
	}
	for (k = 0; k < n; k++) {
		if (vmprep_make(vh, r, plan, k, &prep[k]) < 0)
			goto out;
		specs[k] = (struct vtb_vm_spec){ .xml = prep[k].xml,
						 .name = prep[k].name,
						 .nonce = r->vms[k].nonce,
						 .placement = prep[k].placement,
						 .n_cells = r->config->n_cells };
	}
	if (vtb_hv_reconnect(vh->hv))
		goto out;
	{
		struct vtb_vm_group_req g = { .vms = specs,
					      .n = n,
					      .timeout_ns = r->timeout_ns,
					      .sample_ns = r->placement_interval_ns,
					      .evidence = r->evidence,
					      .stop = r->stop,
					      .waitmask = r->waitmask,
					      .tick = r->tick,
					      .tick_arg = r->tick_arg };

		ret = vtb_hv_boot_group(vh->hv, &g, hres);
	}
	for (k = 0; k < n; k++) {
		res[k].out = hres[k].out;
		res[k].live_xml = hres[k].live_xml;
		res[k].samples = hres[k].samples;
		res[k].sampling_ns = hres[k].sampling_ns;
		res[k].cell_host = hres[k].cell_host;
		memset(&hres[k], 0, sizeof(hres[k]));
		if (ret < 0)
			continue;
		res[k].placement = vtb_placement_json(prep[k].placement);
		res[k].claims = plan ? vtb_placement_claims_json(plan, (int)k) : NULL;
		if (!res[k].placement || (plan && !res[k].claims))
			ret = -1;
	}
out:
	for (k = 0; prep && k < n; k++)
		vmprep_release(&prep[k]);
	free(prep);
	free(specs);
	free(hres);
	return ret;
}
