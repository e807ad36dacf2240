/* SPDX-License-Identifier: MIT */
/*
 * Host topology through hwloc, CPU identity through libcpuid.  hwloc's
 * logical order is its topology order (siblings of a core, then cores of
 * a cache, ...), so "compact" is simply the PUs in logical order; OS
 * numbers are never assumed to be adjacent for siblings.
 */
#include "hosttopo.h"

#include <errno.h>
#include <hwloc.h>
#include <libcpuid.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "digest.h"

/* The last-level cache: L3, else L2, else L1.  (An L4 on a few Intel
 * parts is a memory-side cache, not the LLC STREAM sizing means.) */
static hwloc_obj_type_t llc_type(hwloc_topology_t t)
{
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L3CACHE,
		HWLOC_OBJ_L2CACHE,
		HWLOC_OBJ_L1CACHE,
	};
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(types); i++) {
		if (hwloc_get_nbobjs_by_type(t, types[i]) > 0)
			return types[i];
	}
	return HWLOC_OBJ_TYPE_MAX;
}

static int host_llc_bytes(const struct vtb_host_ctx *ctx, const struct vtb_cpuset *cpus,
			  uint64_t *out)
{
	const struct vtb_hosttopo *h = ctx->priv;
	hwloc_topology_t t = h->topo;
	hwloc_obj_type_t type = llc_type(t);
	hwloc_bitmap_t seen;
	uint64_t sum = 0;
	size_t i;
	int ret = 0;

	if (type == HWLOC_OBJ_TYPE_MAX)
		return vtb_error("host topology '%s' has no cache information", h->source);
	seen = hwloc_bitmap_alloc();
	if (!seen)
		return vtb_error("out of memory");
	for (i = 0; i < cpus->n; i++) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t, (unsigned)cpus->cpus[i]);
		hwloc_obj_t c;

		if (!pu) {
			ret = vtb_error("CPU %d is not in the host topology", cpus->cpus[i]);
			goto out;
		}
		c = hwloc_get_ancestor_obj_by_type(t, type, pu);
		if (!c || hwloc_bitmap_isset(seen, c->logical_index))
			continue;
		hwloc_bitmap_set(seen, c->logical_index);
		sum += c->attr->cache.size;
	}
	if (!sum) {
		ret = vtb_error("host topology '%s' gives no LLC size for the CPUs used",
				h->source);
		goto out;
	}
	*out = sum;
out:
	hwloc_bitmap_free(seen);
	return ret;
}

static char *host_mems_of(const struct vtb_host_ctx *ctx, const struct vtb_cpuset *cpus)
{
	const struct vtb_hosttopo *h = ctx->priv;
	hwloc_topology_t t = h->topo;
	struct vtb_cpuset nodes = { NULL, 0 };
	hwloc_obj_t node = NULL;
	char *s;
	size_t i;

	while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node))) {
		for (i = 0; i < cpus->n; i++) {
			if (hwloc_bitmap_isset(node->cpuset, (unsigned)cpus->cpus[i])) {
				vtb_cpuset_add(&nodes, (int)node->os_index);
				break;
			}
		}
	}
	s = vtb_cpuset_format(&nodes);
	vtb_cpuset_release(&nodes);
	return s;
}

static void identify_cpu(struct vtb_hosttopo *h)
{
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;

	memset(&id, 0, sizeof(id));
	if (cpuid_get_raw_data(&raw) < 0 || cpu_identify(&raw, &id) < 0)
		return;
	h->cpu_vendor = strdup(id.vendor_str);
	h->cpu_model_name = strdup(id.brand_str);
	h->cpu_codename = strdup(id.cpu_codename);
	h->cpu_family = id.ext_family;
	h->cpu_model = id.ext_model;
}

/* Identity of the shape: per PU its OS number and the logical indexes of
 * its core, LLC, package and node.  Same shape, same digest. */
static int compute_digest(struct vtb_hosttopo *h)
{
	hwloc_topology_t t = h->topo;
	hwloc_obj_type_t lt = llc_type(t);
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	hwloc_obj_t pu = NULL;
	int ret = 0;

	while ((pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu))) {
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, pu);
		hwloc_obj_t llc = lt == HWLOC_OBJ_TYPE_MAX
					  ? NULL
					  : hwloc_get_ancestor_obj_by_type(t, lt, pu);
		hwloc_obj_t node = NULL;
		int nodeidx = -1;

		while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node))) {
			if (hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
				nodeidx = (int)node->logical_index;
				break;
			}
		}
		ret = vtb_strbuf_addf(&sb, "pu %u core %d llc %d/%llu pkg %d node %d\n",
				      pu->os_index, core ? (int)core->logical_index : -1,
				      llc ? (int)llc->logical_index : -1,
				      llc ? (unsigned long long)llc->attr->cache.size : 0ULL,
				      pkg ? (int)pkg->logical_index : -1, nodeidx);
		if (ret)
			goto out;
	}
	ret = vtb_sha256_hex(sb.buf ? sb.buf : "", sb.len, h->digest);
out:
	vtb_strbuf_release(&sb);
	return ret;
}

static const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

int vtb_hosttopo_load(const char *spec, struct vtb_hosttopo **out)
{
	struct vtb_hosttopo *h;
	hwloc_topology_t t;
	hwloc_obj_t pu = NULL;
	cpu_set_t aff;
	struct stat stt;
	struct utsname uts;
	char host[256];
	int ret = -1;

	h = calloc(1, sizeof(*h));
	if (!h)
		return vtb_error("out of memory");
	if (hwloc_topology_init(&t) < 0) {
		free(h);
		return vtb_error("hwloc_topology_init failed");
	}
	h->topo = t;
	if (!spec) {
		h->local = true;
		h->source = strdup("local");
	} else if (stat(spec, &stt) == 0) {
		h->source = vtb_asprintf("xml:%s", spec);
		if (hwloc_topology_set_xml(t, spec) < 0) {
			vtb_error("cannot read hwloc XML '%s': %s", spec, strerror(errno));
			goto out;
		}
	} else {
		h->source = vtb_asprintf("synthetic:%s", spec);
		if (hwloc_topology_set_synthetic(t, spec) < 0) {
			vtb_error(
				"'%s' is neither a readable hwloc XML file nor a valid hwloc synthetic description (e.g. \"pack:2 l3:2(size=32MiB) core:4 pu:2\")",
				spec);
			goto out;
		}
	}
	errno = 0;
	if (hwloc_topology_load(t) < 0) {
		vtb_error("cannot load host topology '%s'%s%s", h->source, errno ? ": " : "",
			  errno ? strerror(errno) : "");
		goto out;
	}
	h->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	h->nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	h->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	h->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	h->llcs = llc_type(t) == HWLOC_OBJ_TYPE_MAX ? 0 : hwloc_get_nbobjs_by_type(t, llc_type(t));
	if (h->pus <= 0) {
		vtb_error("host topology '%s' has no CPUs", h->source);
		goto out;
	}
	h->compact = calloc((size_t)h->pus, sizeof(int));
	if (!h->compact) {
		vtb_error("out of memory");
		goto out;
	}
	CPU_ZERO(&aff);
	if (h->local && sched_getaffinity(0, sizeof(aff), &aff) < 0) {
		vtb_error("sched_getaffinity: %s", strerror(errno));
		goto out;
	}
	while ((pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu))) {
		if (h->local && (pu->os_index >= CPU_SETSIZE || !CPU_ISSET(pu->os_index, &aff)))
			continue;
		h->compact[h->n_compact++] = (int)pu->os_index;
	}
	if (h->local) {
		if (gethostname(host, sizeof(host)) == 0) {
			host[sizeof(host) - 1] = '\0';
			h->hostname = strdup(host);
		}
		if (uname(&uts) == 0)
			h->kernel = strdup(uts.release);
		identify_cpu(h);
	} else {
		h->hostname = strdup(h->source);
	}
	h->summary = vtb_asprintf("%d %s, %d %s, %d %s, %d %s, %d %s", h->packages,
				  plural(h->packages, "package", "packages"), h->nodes,
				  plural(h->nodes, "node", "nodes"), h->llcs,
				  plural(h->llcs, "LLC", "LLCs"), h->cores,
				  plural(h->cores, "core", "cores"), h->pus,
				  plural(h->pus, "PU", "PUs"));
	if (!h->source || !h->summary || !h->hostname) {
		vtb_error("out of memory");
		goto out;
	}
	if (compute_digest(h))
		goto out;
	h->ctx.host_cpus = (int)h->n_compact;
	h->ctx.host_nodes = h->nodes > 0 ? h->nodes : 1;
	h->ctx.host_llcs = h->llcs > 0 ? h->llcs : 1;
	h->ctx.compact = h->compact;
	h->ctx.n_compact = h->n_compact;
	h->ctx.llc_bytes = host_llc_bytes;
	h->ctx.mems_of = host_mems_of;
	h->ctx.priv = h;
	*out = h;
	h = NULL;
	ret = 0;
out:
	vtb_hosttopo_free(h);
	return ret;
}

void vtb_hosttopo_free(struct vtb_hosttopo *h)
{
	if (!h)
		return;
	if (h->topo)
		hwloc_topology_destroy(h->topo);
	free(h->source);
	free(h->hostname);
	free(h->kernel);
	free(h->cpu_vendor);
	free(h->cpu_model_name);
	free(h->cpu_codename);
	free(h->compact);
	free(h->summary);
	free(h);
}
