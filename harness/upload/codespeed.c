/* SPDX-License-Identifier: MIT */
/*
 * The Codespeed sink (codespeed+http[s]://): once per campaign, a POST
 * of /result/add/json/ with one result per configuration, cell and
 * metric.  Codespeed creates what it needs but the environment, which
 * its refusal's hint says how to create.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upload-priv.h"

/* "YYYY-MM-DD HH:MM:SS", UTC: the form Django's DateTimeField parses. */
static int cs_date(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		return vtb_error("cannot format the time %lld", (long long)ns);
	return 0;
}

static char *cs_exe_base(const struct up_boot *b)
{
	if (strcmp(b->kind, "vm"))
		return vtb_strdup("baremetal");
	return vtb_asprintf("vm-%s-%s-%s", b->topology ? b->topology : "none",
			    b->pinning ? b->pinning : "none", b->sched ? b->sched : "none");
}

/*
 * The executable: "baremetal" or "vm-TOPOLOGY-PINNING-SCHED".  Codespeed
 * keeps one result per (revision, executable, benchmark, environment), so
 * two configurations of the campaign that share a name (baselines on 1
 * and 4 CPUs, VMs differing in vcpus) would overwrite each other: those
 * get "-<N>cpu" appended, and a warning if even that does not tell them
 * apart.
 */
static char *cs_executable(struct sink *sk, const struct up_boot *b)
{
	char *base = cs_exe_base(b), *r;
	bool clash = false, clash2 = false;

	if (!base)
		return NULL;
	for (size_t i = 0; i < sk->n_aggr; i++) {
		const struct up_boot *o = sk->aggr[i].first;
		char *ob;

		if (!strcmp(o->config_key, b->config_key))
			continue;
		ob = cs_exe_base(o);
		if (!ob) {
			free(base);
			return NULL;
		}
		if (!strcmp(ob, base)) {
			clash = true;
			clash2 |= o->cpus == b->cpus;
		}
		free(ob);
	}
	if (!clash)
		return base;
	if (clash2 && !sk->warned_clash)
		up_note(sk,
			"configurations '%s' and others share the Codespeed executable '%s-%dcpu': Codespeed keeps only the last of their results",
			b->config_label, base, b->cpus);
	sk->warned_clash |= clash2;
	r = vtb_asprintf("%s-%dcpu", base, b->cpus);
	free(base);
	return r;
}

/*
 * POST /result/add/json/ with the form field json: an array of results,
 * one per configuration, cell and metric (the mean of the campaign's
 * boots, with stddev, min and max).  Codespeed creates project, branch,
 * executable, benchmark and revision as needed, but not the environment.
 */
static int cs_results(struct sink *sk, struct vtb_strbuf *body, long *points)
{
	char rev_date[32], res_date[32];
	json_t *arr = json_array();
	char *dump = NULL, *esc = NULL;
	int ret = -1;

	*points = 0;
	if (!arr)
		return vtb_error("out of memory");
	if (cs_date(sk->started_ns, rev_date, sizeof(rev_date)) < 0 ||
	    cs_date(sk->ended_ns ? sk->ended_ns : sk->agg_ts, res_date, sizeof(res_date)) < 0)
		goto out;
	for (size_t i = 0; i < sk->n_aggr; i++) {
		const struct up_aggr *a = &sk->aggr[i];
		const struct up_boot *b = a->first;
		bool vm = !strcmp(b->kind, "vm");
		const char *commit = vm ? b->guest_kernel : sk->host_kernel;
		char *exe, *bench;
		json_t *it;

		if (!isfinite(a->st.amean)) {
			if (!sk->warned_float)
				up_note(sk, "metric '%s': a mean that is not finite is not sent",
					a->sample->metric);
			sk->warned_float = true;
			continue;
		}
		exe = cs_executable(sk, b);
		bench = vtb_asprintf("%s.%s", a->sample->cell_name, a->sample->metric);
		if (!exe || !bench) {
			free(exe);
			free(bench);
			vtb_error("out of memory");
			goto out;
		}
		it = json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:b, s:s, s:s}",
			"project", "vtbench", "executable", exe, "benchmark", bench, "environment",
			sk->hostname, "commitid", commit && *commit ? commit : "unknown", "branch",
			"default", "result_value", json_real(a->st.amean), "std_dev",
			up_json_real(a->st.stddev), "min", up_json_real(a->st.min), "max",
			up_json_real(a->st.max), "units", a->sample->unit, "lessisbetter",
			!a->sample->better, "revision_date", rev_date, "result_date", res_date);
		free(exe);
		free(bench);
		if (!it || json_array_append_new(arr, it)) {
			vtb_error("out of memory");
			goto out;
		}
		(*points)++;
	}
	if (!*points) {
		ret = 0;
		goto out;
	}
	dump = json_dumps(arr, JSON_COMPACT);
	esc = dump ? up_url_escape(dump) : NULL;
	if (!esc || vtb_strbuf_addf(body, "json=%s", esc)) {
		vtb_error("out of memory");
		goto out;
	}
	ret = 0;
out:
	free(esc);
	free(dump);
	json_decref(arr);
	return ret;
}

/* Codespeed refuses a result whose environment it does not know (HTTP 400
 * "Environment NAME not found"); it is created once, by hand. */
static char *cs_hint(struct sink *sk, long status, const char *message)
{
	if (status != 400 || !message || !strstr(message, "Environment") ||
	    !strstr(message, "not found"))
		return NULL;
	return vtb_asprintf(
		"; create the environment '%s' in Codespeed first: its admin (/admin/, Environments -> Add, name '%s'), or on the server: python manage.py shell -c \"from codespeed.models import Environment; Environment.objects.get_or_create(name='%s')\"",
		sk->hostname, sk->hostname, sk->hostname);
}

/* codespeed+http(s)://HOST[:PORT][/PREFIX]/: POST PREFIX/result/add/json/ */
static int codespeed_endpoint(struct sink *sk)
{
	char *prefix = up_path_escaped(sk->path);

	free(sk->endpoint);
	sk->endpoint = prefix ? vtb_asprintf("%s%s/result/add/json/", sk->base, prefix) : NULL;
	free(prefix);
	return sk->endpoint ? 0 : -1;
}

const struct vtb_sink_ops up_codespeed_ops = {
	.name = "codespeed",
	.scheme = "codespeed",
	.url = "codespeed+http[s]://HOST[:PORT]/",
	.summary =
		"Codespeed: POST /result/add/json/, one result per configuration, cell and metric (mean, std_dev, min, max), once per campaign",
	.auth_scheme = "Bearer",
	.content_type = "application/x-www-form-urlencoded",
	.method = "POST",
	.item = "aggregates",
	/* Codespeed keeps one result per revision, executable, benchmark
	 * and environment, but a resend after a later campaign on the same
	 * kernel would put the older results back over the newer */
	.resend = NULL,
	.endpoint = codespeed_endpoint,
	.aggregates = cs_results,
	.hint = cs_hint,
};
