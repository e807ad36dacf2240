/* SPDX-License-Identifier: MIT */
/*
 * Live proof of side-by-side boots and vCPU placement sampling, against
 * a real libvirt daemon (qemu:///system) and QEMU: two 1-vCPU guests of
 * one configuration (vms = 2, strict pinning, housekeeping none) boot
 * together on disjoint pCPUs, each runs a short timer cell, and the
 * host-side samples must show each vCPU on its planned pCPU, with the
 * live pinning read back equal to the plan.  While the guests run, the
 * cost of one /proc sample of one vCPU is measured (10000 reads).
 * Then the failure paths: a group whose second guest cannot be created
 * (its name is taken by the first) fails both before anything runs; a
 * stop request during a group boot interrupts both.  `virsh list --all`
 * afterwards shows that no domain is left.
 *
 * Not part of `make check` (it needs root, a daemon and 2 free CPUs):
 *   make build/tests/live/place_live && sudo build/tests/live/place_live [KERNEL]
 * Exit 0 when every check holds.
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/boot/domxml.h"
#include "../../harness/boot/guest.h"
#include "../../harness/host/hosttopo.h"
#include "../../harness/boot/placement.h"
#include "../../harness/plan/cfgplan.h"
#include "../../harness/plan/plan.h"
#include "../../harness/boot/provision.h"
#include "../../harness/boot/runner.h"
#include "../../harness/boot/vcpusample.h"
#include "../../harness/boot/vmboot.h"

static int failures;

static void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok    " : "NOT OK", what);
	failures += !ok;
}

struct cost {
	const char *name; /* the domain to measure */
	bool done;
	double us_per_read;
	int cpu;
};

/* Called about once a second during the boot: the first time, times
 * 10000 samples of the first guest's vCPU thread while it runs. */
static void tick(void *arg)
{
	struct cost *c = arg;
	struct vtb_vcpu_sampler *s = NULL;
	char *pidfile;
	int pid, cpus[1];
	uint64_t t0;
	const int reads = 10000;

	if (c->done)
		return;
	c->done = true;
	pidfile = vtb_asprintf("/run/libvirt/qemu/%s.pid", c->name);
	pid = pidfile ? vtb_vcpu_qemu_pid("/proc", pidfile, c->name) : -1;
	free(pidfile);
	if (pid < 0 || vtb_vcpu_sampler_open("/proc", pid, 1, &s) < 0) {
		fprintf(stderr, "cost: %s\n", vtb_errmsg());
		return;
	}
	t0 = vtb_now_ns();
	for (int i = 0; i < reads; i++)
		vtb_vcpu_sampler_cpus(s, cpus);
	c->us_per_read = (double)(vtb_now_ns() - t0) / reads / 1000.0;
	c->cpu = cpus[0];
	vtb_vcpu_sampler_free(s);
}

/* Stops the boot at its second tick. */
static void stop_tick(void *arg)
{
	volatile sig_atomic_t *stop = arg;
	static int ticks;

	if (++ticks == 2)
		*stop = 1;
}

/* Two guests of one name: the second cannot be created. */
static void name_clash(struct vtb_vmhost *vh)
{
	char *cmdline = vtb_vm_cmdline("00", NULL);
	struct vtb_domspec d = { .name = "vtbench-live-clash",
				 .cpu_model = vh->cpu_model,
				 .vcpus = 1,
				 .memory_bytes = 128ull << 20,
				 .kernel = vh->stage->kernel,
				 .initrd = vh->stage->initramfs,
				 .cmdline = cmdline };
	char *xml = vtb_domxml(&d);
	struct vtb_vm_spec specs[2] = { { .xml = xml, .name = d.name, .nonce = "00" },
					{ .xml = xml, .name = d.name, .nonce = "00" } };
	struct vtb_vm_group_req g = { .vms = specs, .n = 2, .timeout_ns = 60000000000ull };
	struct vtb_vm_result r[2];

	if (!xml || vtb_hv_reconnect(vh->hv) || vtb_hv_boot_group(vh->hv, &g, r)) {
		check(false, "a group with a name clash returns");
		return;
	}
	for (int k = 0; k < 2; k++)
		printf("clash vm%d: %s: %s\n", k, r[k].out.status, r[k].out.error);
	check(!strcmp(r[0].out.status, "failed") && !strcmp(r[1].out.status, "failed"),
	      "a guest that cannot be created fails the whole group");
	check(r[0].out.error && strstr(r[0].out.error, "not run: side-by-side guest 1"),
	      "the guest already created says which one could not start");
	check(r[0].live_xml != NULL, "the first guest had been created (and was destroyed)");
	for (int k = 0; k < 2; k++) {
		vtb_boot_outcome_release(&r[k].out);
		free(r[k].live_xml);
	}
	free(xml);
	free(cmdline);
}

static void note(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "note: %s\n", msg);
}

int main(int argc, char **argv)
{
	const char *kernel = argc > 1 ? argv[1] : getenv("VTBENCH_KERNEL");
	struct vtb_hosttopo *h = NULL;
	struct vtb_matrix *m = NULL;
	struct vtb_vmhost *vh = NULL;
	const struct vtb_plan *plan = NULL;
	const struct vtb_config *c = NULL;
	struct vtb_vmboot_vm vms[2];
	struct vtb_vmboot_result res[2];
	char uuid[2][37], nonce[2][33], *job[2] = { NULL, NULL }, *text;
	static volatile sig_atomic_t stop;
	struct cost cost = { 0 };
	sigset_t waitmask;
	bool input;
	size_t i;

	text = vtb_asprintf("[global]\n"
			    "reps = 1\n"
			    "timeout = 3m\n"
			    "accel = tcg\n"
			    "housekeeping = none\n"
			    "placement_interval = 50ms\n"
			    "%s%s%s"
			    "[baseline]\nenabled = no\n"
			    "[vm]\nvcpus = 1\ntopology = cores\npinning = strict\n"
			    "memory = 256M\nvms = 2\n"
			    "[workload t]\ntype = timer\nduration = 3s\n",
			    kernel ? "kernel = " : "", kernel ? kernel : "", kernel ? "\n" : "");
	if (!text || vtb_hosttopo_load(NULL, &h) ||
	    vtb_matrix_parse("live.conf", text, strlen(text), &h->ctx, &m)) {
		fprintf(stderr, "setup: %s\n", vtb_errmsg());
		return 2;
	}
	for (i = 0; i < m->n_configs; i++)
		if (m->configs[i].kind == VTB_CONFIG_VM)
			c = &m->configs[i];
	if (!c || !(plan = c->plan)) { /* planned once, after the matrix was read */
		fprintf(stderr, "plan: %s\n", c ? "not planned" : "no VM configuration");
		return 2;
	}
	printf("configuration: %s\n", c->label);
	for (i = 0; i < 2; i++) {
		char *cpus = vtb_cpuset_format(&plan->vm[i].cpus);

		printf("plan: vm%zu vCPU 0 -> pCPU %s\n", i, cpus);
		free(cpus);
	}
	check(plan->vm[0].cpus.n == 1 && plan->vm[1].cpus.n == 1 &&
		      plan->vm[0].cpus.cpus[0] != plan->vm[1].cpus.cpus[0],
	      "the two guests are planned on disjoint pCPUs");
	sigemptyset(&waitmask);
	{
		struct vtb_probe_ctl ctl = { .note = note, .stop = &stop, .waitmask = &waitmask };

		if (vtb_vmhost_open(m, &ctl, &vh, &input)) {
			fprintf(stderr, "vmhost: %s\n", vtb_errmsg());
			return 2;
		}
	}
	printf("accelerator: %s (%s)\n", vh->accel, vh->accel_why);
	for (i = 0; i < 2; i++) {
		if (vtb_uuid(uuid[i]) || vtb_random_hex(nonce[i], 16))
			return 2;
		job[i] = vtb_job_json(c, nonce[i], uuid[i], 0, true);
		if (!job[i])
			return 2;
		vms[i] = (struct vtb_vmboot_vm){ .uuid = uuid[i],
						 .nonce = nonce[i],
						 .job_json = job[i] };
	}
	{
		char name[64];
		uint64_t t0 = vtb_now_ns();
		struct vtb_vmboot_group_req r = { .config = c,
						  .model = &h->model,
						  .vms = vms,
						  .n = 2,
						  .timeout_ns = m->timeout_ns,
						  .placement_interval_ns = m->placement_interval_ns,
						  .stop = &stop,
						  .waitmask = &waitmask,
						  .tick = tick,
						  .tick_arg = &cost };

		snprintf(name, sizeof(name), "vtbench-%s", uuid[0]);
		cost.name = name;
		if (vtb_vm_boot_group(vh, &r, res)) {
			fprintf(stderr, "boot: %s\n", vtb_errmsg());
			return 3;
		}
		printf("group boot took %.1f s\n", (double)(vtb_now_ns() - t0) * 1e-9);
	}
	for (i = 0; i < 2; i++) {
		json_t *p = json_loads(res[i].placement, 0, NULL), *v0;
		const char *planned, *seen, *pin;
		char want[16], what[128];

		printf("vm%zu: status %s%s%s\n", i, res[i].out.status, res[i].out.error ? ": " : "",
		       res[i].out.error ? res[i].out.error : "");
		printf("vm%zu: placement %s\n", i, res[i].placement);
		printf("vm%zu: claims %s\n", i, res[i].claims);
		printf("vm%zu: %llu samples, %.1f us each in the boot loop (1 vCPU, read + accumulate)\n",
		       i, (unsigned long long)res[i].samples,
		       res[i].samples ? (double)res[i].sampling_ns / (double)res[i].samples / 1e3
				      : 0.0);
		snprintf(what, sizeof(what), "vm%zu ran ok", i);
		check(!strcmp(res[i].out.status, "ok"), what);
		v0 = json_array_get(json_object_get(p, "vcpus"), 0);
		snprintf(want, sizeof(want), "%d", plan->vm[i].cpus.cpus[0]);
		planned = json_string_value(json_object_get(v0, "planned"));
		seen = json_string_value(json_object_get(v0, "cpus_seen"));
		pin = json_string_value(json_array_get(json_object_get(p, "live_pins"), 0));
		snprintf(what, sizeof(what), "vm%zu: samples come from /proc", i);
		check(p && !strcmp(json_string_value(json_object_get(p, "source")), "proc"), what);
		snprintf(what, sizeof(what), "vm%zu: more than 20 samples", i);
		check(json_integer_value(json_object_get(p, "samples")) > 20, what);
		snprintf(what, sizeof(what), "vm%zu: planned pCPU %s", i, want);
		check(planned && !strcmp(planned, want), what);
		snprintf(what, sizeof(what), "vm%zu: the vCPU was only seen on pCPU %s", i, want);
		check(seen && !strcmp(seen, want), what);
		snprintf(what, sizeof(what), "vm%zu: off_planned is 0", i);
		check(json_is_number(json_object_get(v0, "off_planned")) &&
			      json_number_value(json_object_get(v0, "off_planned")) == 0.0,
		      what);
		snprintf(what, sizeof(what), "vm%zu: live pinning read back from libvirt is %s", i,
			 want);
		check(pin && !strcmp(pin, want), what);
		snprintf(what, sizeof(what), "vm%zu: migrations and run delay measured", i);
		check(json_is_integer(json_object_get(v0, "migrations")) &&
			      json_is_integer(json_object_get(v0, "run_delay_ns")),
		      what);
		json_decref(p);
	}
	name_clash(vh);
	{
		static volatile sig_atomic_t stop2;
		struct vtb_vmboot_result r2[2];
		struct vtb_vmboot_group_req r = { .config = c,
						  .model = &h->model,
						  .vms = vms,
						  .n = 2,
						  .timeout_ns = m->timeout_ns,
						  .placement_interval_ns = m->placement_interval_ns,
						  .stop = &stop2,
						  .waitmask = &waitmask,
						  .tick = stop_tick,
						  .tick_arg = (void *)&stop2 };

		/* new boot uuids: the first group's images are gone */
		for (i = 0; i < 2; i++)
			if (vtb_uuid(uuid[i]))
				return 2;
		if (vtb_vm_boot_group(vh, &r, r2)) {
			check(false, "a stopped group returns");
		} else {
			printf("stopped: vm0 %s, vm1 %s\n", r2[0].out.status, r2[1].out.status);
			check(!strcmp(r2[0].out.status, "interrupted") &&
				      !strcmp(r2[1].out.status, "interrupted"),
			      "a stop request interrupts every guest of the group");
		}
		for (i = 0; i < 2; i++)
			vtb_vmboot_result_release(&r2[i]);
	}
	if (cost.done && cost.us_per_read > 0)
		printf("cost: one /proc sample of one vCPU = %.2f us (10000 reads while the guest ran; it was on CPU %d)\n",
		       cost.us_per_read, cost.cpu);
	check(cost.us_per_read > 0, "the sampling cost was measured");
	for (i = 0; i < 2; i++) {
		vtb_vmboot_result_release(&res[i]);
		free(job[i]);
	}
	vtb_vmhost_free(vh);
	vtb_matrix_free(m);
	vtb_hosttopo_free(h);
	free(text);
	printf("%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}
