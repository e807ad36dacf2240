/* SPDX-License-Identifier: MIT */
/*
 * The generic JSON sink (http[s]://): once per campaign, a POST of the
 * campaign as one document (schema VTB_UPLOAD_JSON_SCHEMA), with the
 * campaign's uuid as its Idempotency-Key: a receiver may store what it
 * gets twice, so the request is recorded in flight before it goes, and a
 * receiver that honours the key can take --resend-in-flight safely.
 */
#include <stdlib.h>
#include <string.h>

#include "../compare/compare.h"
#include "upload-priv.h"

/*
 * Every string of @j (values and keys) cut to @max bytes: compare's
 * document holds texts of the database (host, kernel, labels, params).
 * -1: out of memory.
 */
static int cap_strings(json_t *j, size_t max)
{
	const char *k;
	json_t *v;
	void *tmp;
	size_t i;

	if (json_is_string(j)) {
		char *c;
		int r;

		if (json_string_length(j) <= max)
			return 0;
		c = vtb_upload_text(json_string_value(j), max);
		r = c ? json_string_set(j, c) : -1;
		free(c);
		return r;
	}
	json_array_foreach(j, i, v)
	{
		if (cap_strings(v, max) < 0)
			return -1;
	}
	json_object_foreach_safe(j, tmp, k, v)
	{
		char *c;
		int r;

		if (cap_strings(v, max) < 0)
			return -1;
		if (strlen(k) <= max)
			continue;
		c = vtb_upload_text(k, max);
		/* the capped key is short: visited again, it stays as it is */
		r = c ? json_object_set(j, c, v) : -1;
		if (!r)
			r = json_object_del(j, k);
		free(c);
		if (r)
			return -1;
	}
	return 0;
}

/*
 * The campaign as one JSON document: {"schema": "vtbench-upload/1",
 * "campaign", "host", "compare": the compare --format json document (null
 * with "compare_error" when compare has nothing to say), "boots": every
 * boot with its raw samples}.
 */
static int json_campaign(struct sink *sk, struct vtb_strbuf *body, long *points)
{
	struct vtb_compare_opts co;
	json_t *doc = NULL, *top = NULL, *boots = NULL;
	bool bad_input = false;
	char *dump = NULL;
	int ret = -1;

	*points = 0;
	vtb_compare_opts_default(&co);
	co.campaign = sk->campaign_uuid;
	top = json_pack("{s:s, s:s, s:s}", "schema", VTB_UPLOAD_JSON_SCHEMA, "campaign",
			sk->campaign_uuid, "host", sk->hostname);
	boots = json_array();
	if (!top || !boots)
		goto oom;
	if (vtb_compare_build(sk->st, "the database", NULL, NULL, &co, &doc, &bad_input) < 0) {
		if (!bad_input)
			goto out;
		char *why = vtb_upload_text(vtb_errmsg(), VTB_UPLOAD_DOC_TEXT_MAX);
		int r = !why || json_object_set_new(top, "compare", json_null()) ||
			json_object_set_new(top, "compare_error", json_string(why));

		free(why);
		if (r)
			goto oom;
	} else {
		int r = cap_strings(doc, VTB_UPLOAD_DOC_TEXT_MAX);

		if (!r) {
			/* set_new takes the reference, even when it fails */
			r = json_object_set_new(top, "compare", doc);
			doc = NULL;
		}
		if (r)
			goto oom;
	}
	for (size_t i = 0; i < sk->n_boots; i++) {
		const struct up_boot *b = &sk->boots[i];
		json_t *samples = json_array(), *jb;

		if (!samples)
			goto oom;
		for (size_t j = 0; j < b->n; j++) {
			const struct up_sample *s = &b->s[j];
			json_t *js = json_pack("{s:s, s:s, s:s, s:s, s:o}", "cell", s->cell_name,
					       "cell_key", s->cell_key, "metric", s->metric, "unit",
					       s->unit, "value", up_json_real(s->value));

			if (!js || json_array_append_new(samples, js)) {
				json_decref(samples);
				goto oom;
			}
			(*points)++;
		}
		jb = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:o}", "uuid", b->uuid,
			       "config", b->config_key, "config_label", b->config_label, "kind",
			       b->kind, "rep", b->rep, "vm_index", b->vm_index, "status", b->status,
			       "samples", samples);
		if (!jb || json_array_append_new(boots, jb))
			goto oom;
	}
	if (json_object_set(top, "boots", boots))
		goto oom;
	free(sk->idempotency_key);
	sk->idempotency_key = vtb_asprintf("\"%s\"", sk->campaign_uuid);
	if (!sk->idempotency_key)
		goto oom;
	dump = json_dumps(top, JSON_COMPACT);
	if (!dump || vtb_strbuf_addstr(body, dump))
		goto oom;
	ret = 0;
	goto out;
oom:
	vtb_error("out of memory");
out:
	free(dump);
	json_decref(doc);
	json_decref(boots);
	json_decref(top);
	return ret;
}

/* http(s)://HOST[:PORT]/PATH: POST there */
static int json_endpoint(struct sink *sk)
{
	char *path = up_path_escaped(sk->path);

	free(sk->endpoint);
	sk->endpoint = path ? vtb_asprintf("%s%s%s", sk->base, path, *path ? "" : "/") : NULL;
	free(path);
	return sk->endpoint ? 0 : -1;
}

const struct vtb_sink_ops up_json_ops = {
	.name = "json",
	.scheme = "http",
	.url = "http[s]://HOST[:PORT]/PATH",
	.summary =
		"generic JSON: POST of the campaign (compare's JSON document and every boot's samples), once per campaign",
	.auth_scheme = "Bearer",
	.content_type = "application/json",
	.method = "POST",
	.item = "aggregates",
	/* a receiver may keep each document it gets */
	.resend = NULL,
	.tls_by_scheme = true,
	.endpoint = json_endpoint,
	.aggregates = json_campaign,
};
