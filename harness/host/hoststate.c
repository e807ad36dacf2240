/* SPDX-License-Identifier: MIT */
/*
 * Host state snapshot and busy check.  Everything is read from files
 * under a root directory, so tests run against fake trees
 * (tests/fixtures/hoststate/) and the snapshot never depends on tools
 * that may be missing (cpupower, tuned-adm).  A missing or unreadable
 * file is a null value: a host without cpufreq or cpuidle is a state
 * worth recording, not an error.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hoststate.h"

#define SMALL_FILE (64 * 1024)
#define BIG_FILE (64 * 1024 * 1024) /* /proc/cpuinfo, /proc/stat of big hosts */

/* "@root/@rel" without doubled slashes; NULL on ENOMEM. */
static char *path_of(const char *root, const char *rel)
{
	size_t n = strlen(root);

	while (n > 0 && root[n - 1] == '/')
		n--;
	return vtb_asprintf("%.*s/%s", (int)n, root, rel);
}

/* Contents of @root/@rel, trimmed, or NULL when it cannot be read (the
 * error slot is left as it was: a missing file is not an error). */
static char *read_rel(const char *root, const char *rel, size_t max)
{
	char *path = path_of(root, rel), *text = NULL, *saved;
	size_t len;

	if (!path)
		return NULL;
	saved = vtb_strdup(vtb_errmsg());
	text = vtb_read_file(path, max);
	if (saved) {
		if (*saved)
			vtb_error("%s", saved);
		else
			vtb_error_clear();
	}
	free(saved);
	free(path);
	if (!text)
		return NULL;
	len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		text[--len] = '\0';
	return text;
}

/* Adds @value (stolen) to @obj; -1 on ENOMEM. */
static int put(json_t *obj, const char *key, json_t *value)
{
	if (!value || json_object_set_new(obj, key, value) < 0)
		return -1;
	return 0;
}

/* A string value; null when missing.  @text is freed. */
static json_t *str_value(char *text)
{
	json_t *v = text ? json_string(text) : json_null();

	free(text);
	return v;
}

/* An integer when the file holds one, else its text; null when missing. */
static json_t *int_value(char *text)
{
	char *end;
	long long n;

	if (!text)
		return json_null();
	errno = 0;
	n = strtoll(text, &end, 10);
	if (errno || end == text || *end)
		return str_value(text);
	free(text);
	return json_integer(n);
}

/* "always [madvise] never" -> "madvise"; text without brackets as is. */
static json_t *choice_value(char *text)
{
	char *open, *close;
	json_t *v;

	if (!text)
		return json_null();
	open = strchr(text, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return str_value(text);
	v = json_stringn(open + 1, (size_t)(close - open - 1));
	free(text);
	return v;
}

static json_t *file_str(const char *root, const char *rel)
{
	return str_value(read_rel(root, rel, SMALL_FILE));
}

static json_t *file_int(const char *root, const char *rel)
{
	return int_value(read_rel(root, rel, SMALL_FILE));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is @name "cpu" followed by digits only? */
static bool is_cpu_dir(const char *name)
{
	if (strncmp(name, "cpu", 3) || !name[3])
		return false;
	for (const char *p = name + 3; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/* Distinct scaling governors of all CPUs, sorted, comma-joined. */
static json_t *governors(const char *root)
{
	char *dirpath = path_of(root, "sys/devices/system/cpu"), **seen = NULL;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t n = 0;
	json_t *ret = NULL;
	struct dirent *de;
	DIR *dir = NULL;

	if (!dirpath)
		goto out;
	dir = opendir(dirpath);
	if (!dir) {
		ret = json_null();
		goto out;
	}
	while ((de = readdir(dir))) {
		char *rel, *gov, **grown;
		bool dup = false;

		if (!is_cpu_dir(de->d_name))
			continue;
		rel = vtb_asprintf("sys/devices/system/cpu/%s/cpufreq/scaling_governor",
				   de->d_name);
		if (!rel)
			goto out;
		gov = read_rel(root, rel, SMALL_FILE);
		free(rel);
		if (!gov)
			continue;
		for (size_t i = 0; i < n && !dup; i++)
			dup = !strcmp(seen[i], gov);
		if (dup) {
			free(gov);
			continue;
		}
		grown = realloc(seen, (n + 1) * sizeof(*seen));
		if (!grown) {
			free(gov);
			goto out;
		}
		seen = grown;
		seen[n++] = gov;
	}
	if (!n) {
		ret = json_null();
		goto out;
	}
	qsort(seen, n, sizeof(*seen), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (vtb_strbuf_addf(&sb, "%s%s", i ? "," : "", seen[i]) < 0)
			goto out;
	ret = json_string(vtb_strbuf_str(&sb));
out:
	if (dir)
		closedir(dir);
	for (size_t i = 0; i < n; i++)
		free(seen[i]);
	free(seen);
	free(dirpath);
	vtb_strbuf_release(&sb);
	return ret;
}

/* cpufreq/boost (1 = on), else intel_pstate/no_turbo (1 = off). */
static json_t *boost(const char *root)
{
	char *text = read_rel(root, "sys/devices/system/cpu/cpufreq/boost", SMALL_FILE);
	bool inverted = false;
	json_t *v;

	if (!text) {
		text = read_rel(root, "sys/devices/system/cpu/intel_pstate/no_turbo", SMALL_FILE);
		inverted = true;
	}
	if (!text)
		return json_null();
	if (!strcmp(text, "0") || !strcmp(text, "1"))
		v = json_boolean((text[0] == '1') != inverted);
	else
		v = json_string(text);
	free(text);
	return v;
}

/* Driver, governor, and cpu0's states in order: name -> "enabled" or
 * "disabled" (the state's `disable` flag). */
static json_t *cpuidle(const char *root)
{
	json_t *obj = json_object(), *states = NULL, *gov;
	char *rel = NULL, *name = NULL, *disable = NULL;

	if (!obj)
		return NULL;
	if (put(obj, "driver", file_str(root, "sys/devices/system/cpu/cpuidle/current_driver")) < 0)
		goto fail;
	gov = file_str(root, "sys/devices/system/cpu/cpuidle/current_governor");
	if (json_is_null(gov)) {
		json_decref(gov);
		/* kernels before 5.x only have the read-only file */
		gov = file_str(root, "sys/devices/system/cpu/cpuidle/current_governor_ro");
	}
	if (put(obj, "governor", gov) < 0)
		goto fail;
	for (int i = 0;; i++) {
		rel = vtb_asprintf("sys/devices/system/cpu/cpu0/cpuidle/state%d/name", i);
		if (!rel)
			goto fail;
		name = read_rel(root, rel, SMALL_FILE);
		free(rel);
		rel = NULL;
		if (!name)
			break;
		rel = vtb_asprintf("sys/devices/system/cpu/cpu0/cpuidle/state%d/disable", i);
		if (!rel)
			goto fail;
		disable = read_rel(root, rel, SMALL_FILE);
		free(rel);
		rel = NULL;
		if (!states && !(states = json_object()))
			goto fail;
		if (put(states, name,
			disable ? json_string(strcmp(disable, "0") ? "disabled" : "enabled")
				: json_null()) < 0)
			goto fail;
		free(name);
		free(disable);
		name = disable = NULL;
	}
	if (put(obj, "states", states ? states : json_null()) < 0) {
		states = NULL;
		goto fail;
	}
	return obj;
fail:
	free(rel);
	free(name);
	free(disable);
	json_decref(states);
	json_decref(obj);
	return NULL;
}

/* Every file of the vulnerabilities directory: name -> text, or null. */
static json_t *vulnerabilities(const char *root)
{
	static const char rel[] = "sys/devices/system/cpu/vulnerabilities";
	char *dirpath = path_of(root, rel), *file = NULL;
	json_t *obj = NULL, *ret = NULL;
	struct dirent *de;
	DIR *dir = NULL;

	if (!dirpath)
		goto out;
	dir = opendir(dirpath);
	if (!dir) {
		ret = json_null();
		goto out;
	}
	if (!(obj = json_object()))
		goto out;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		file = vtb_asprintf("%s/%s", rel, de->d_name);
		if (!file || put(obj, de->d_name, file_str(root, file)) < 0)
			goto out;
		free(file);
		file = NULL;
	}
	ret = obj;
	obj = NULL;
out:
	if (dir)
		closedir(dir);
	free(file);
	free(dirpath);
	json_decref(obj);
	return ret;
}

/* Value of the first "microcode : 0x..." line of /proc/cpuinfo. */
static json_t *microcode(const char *root)
{
	char *text = read_rel(root, "proc/cpuinfo", BIG_FILE), *line, *save = NULL;
	json_t *v = NULL;

	if (!text)
		return json_null();
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon, *val, *end;

		if (strncmp(line, "microcode", 9) || !(colon = strchr(line, ':')))
			continue;
		val = colon + 1;
		while (isspace((unsigned char)*val))
			val++;
		end = val + strlen(val);
		while (end > val && isspace((unsigned char)end[-1]))
			*--end = '\0';
		v = json_string(val);
		break;
	}
	free(text);
	return v ? v : json_null();
}

json_t *vtb_hoststate_snapshot(const char *root)
{
	json_t *st = json_object(), *thp = NULL, *ksm = NULL, *smt = NULL, *active;
	int ok = 0;

	if (!st)
		goto out;
	ok |= put(st, "kernel", file_str(root, "proc/sys/kernel/osrelease"));
	ok |= put(st, "cmdline", file_str(root, "proc/cmdline"));
	ok |= put(st, "governor", governors(root));
	ok |= put(st, "boost", boost(root));
	ok |= put(st, "cpuidle", cpuidle(root));
	/* groups are filled before they are handed to @st (put() steals) */
	if ((thp = json_object())) {
		ok |= put(thp, "enabled",
			  choice_value(read_rel(root, "sys/kernel/mm/transparent_hugepage/enabled",
						SMALL_FILE)));
		ok |= put(thp, "defrag",
			  choice_value(read_rel(root, "sys/kernel/mm/transparent_hugepage/defrag",
						SMALL_FILE)));
	}
	ok |= put(st, "thp", thp);
	if ((ksm = json_object()))
		ok |= put(ksm, "run", file_int(root, "sys/kernel/mm/ksm/run"));
	ok |= put(st, "ksm", ksm);
	ok |= put(st, "numa_balancing", file_int(root, "proc/sys/kernel/numa_balancing"));
	if ((smt = json_object())) {
		ok |= put(smt, "control", file_str(root, "sys/devices/system/cpu/smt/control"));
		active = file_int(root, "sys/devices/system/cpu/smt/active");
		if (json_is_integer(active)) {
			json_t *b = json_boolean(json_integer_value(active) != 0);

			json_decref(active);
			active = b;
		}
		ok |= put(smt, "active", active);
	}
	ok |= put(st, "smt", smt);
	ok |= put(st, "vulnerabilities", vulnerabilities(root));
	ok |= put(st, "microcode", microcode(root));
	ok |= put(st, "isolated", file_str(root, "sys/devices/system/cpu/isolated"));
	ok |= put(st, "nohz_full", file_str(root, "sys/devices/system/cpu/nohz_full"));
out:
	if (!st || ok) {
		json_decref(st);
		vtb_error("out of memory");
		return NULL;
	}
	return st;
}

/* A value as a diff line shows it: strings bare, the rest as JSON. */
static int add_value(struct vtb_strbuf *sb, const json_t *v)
{
	char *text;
	int ret;

	if (!v)
		return vtb_strbuf_addstr(sb, "(absent)");
	if (json_is_string(v))
		return vtb_strbuf_addstr(sb, json_string_length(v) ? json_string_value(v) : "\"\"");
	text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (!text)
		return -1;
	ret = vtb_strbuf_addstr(sb, text);
	free(text);
	return ret;
}

/* Sorted union of the keys of two objects (either may be NULL). */
static const char **key_union(const json_t *a, const json_t *b, size_t *n)
{
	size_t cap = json_object_size(a) + json_object_size(b), k = 0;
	const json_t *objs[2] = { a, b };
	const char **keys = malloc((cap ? cap : 1) * sizeof(*keys));
	const char *key;
	json_t *v;

	if (!keys)
		return NULL;
	for (int o = 0; o < 2; o++) {
		if (!objs[o])
			continue;
		json_object_foreach((json_t *)objs[o], key, v)
		{
			bool dup = false;

			for (size_t i = 0; i < k && !dup; i++)
				dup = !strcmp(keys[i], key);
			if (!dup)
				keys[k++] = key;
		}
	}
	qsort(keys, k, sizeof(*keys), cmp_str);
	*n = k;
	return keys;
}

static int diff_into(struct vtb_strbuf *sb, const char *prefix, const json_t *a, const json_t *b)
{
	const char **keys = NULL;
	char *path = NULL;
	size_t n;
	int ret = -1;

	if (a && b && json_equal((json_t *)a, (json_t *)b))
		return 0;
	if (!(json_is_object(a) && json_is_object(b))) {
		if (vtb_strbuf_addf(sb, "%s%s: ", sb->len ? "\n" : "", prefix) < 0 ||
		    add_value(sb, a) < 0 || vtb_strbuf_addstr(sb, " -> ") < 0 ||
		    add_value(sb, b) < 0)
			return -1;
		return 0;
	}
	keys = key_union(a, b, &n);
	if (!keys)
		goto out;
	for (size_t i = 0; i < n; i++) {
		free(path);
		path = *prefix ? vtb_asprintf("%s.%s", prefix, keys[i]) : vtb_strdup(keys[i]);
		if (!path || diff_into(sb, path, json_object_get(a, keys[i]),
				       json_object_get(b, keys[i])) < 0)
			goto out;
	}
	ret = 0;
out:
	free(path);
	free(keys);
	return ret;
}

char *vtb_hoststate_diff(const json_t *before, const json_t *after)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;

	if (diff_into(&sb, "", before, after) < 0) {
		vtb_strbuf_release(&sb);
		vtb_error("out of memory");
		return NULL;
	}
	if (!sb.len)
		return NULL;
	return vtb_strbuf_detach(&sb);
}

/* Per-CPU counters of one /proc/stat. */
struct cpu_times {
	int cpu;
	unsigned long long busy, total;
};

static int parse_stat(const char *text, struct cpu_times **out, size_t *n)
{
	struct cpu_times *times = NULL;
	size_t count = 0;
	const char *line = text;
	int ret = -1;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		unsigned long long v[8] = { 0 };
		struct cpu_times *grown;
		int cpu, used = 0, fields;
		char *copy;

		if (!strncmp(line, "cpu", 3) && isdigit((unsigned char)line[3])) {
			copy = strndup(line, len);
			if (!copy) {
				vtb_error("out of memory");
				goto out;
			}
			/* user nice system idle iowait irq softirq steal; guest
			 * time is already counted in user and nice */
			fields = sscanf(copy, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu%n",
					&cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
					&v[7], &used);
			free(copy);
			if (fields < 5) {
				vtb_error("malformed /proc/stat line '%.*s'", (int)len, line);
				goto out;
			}
			grown = realloc(times, (count + 1) * sizeof(*times));
			if (!grown) {
				vtb_error("out of memory");
				goto out;
			}
			times = grown;
			times[count].cpu = cpu;
			times[count].total = 0;
			for (int i = 0; i < 8; i++)
				times[count].total += v[i];
			times[count].busy = times[count].total - v[3] - v[4];
			count++;
		}
		line = nl ? nl + 1 : NULL;
	}
	*out = times;
	*n = count;
	times = NULL;
	ret = 0;
out:
	free(times);
	return ret;
}

static const struct cpu_times *find_times(const struct cpu_times *t, size_t n, int cpu)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].cpu == cpu)
			return &t[i];
	return NULL;
}

int vtb_hoststate_busy_from(const char *stat_before, const char *stat_after,
			    const struct vtb_cpuset *cpus, double threshold, char **out)
{
	struct cpu_times *before = NULL, *after = NULL;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t nb = 0, na = 0, n;
	int ret = -1;

	*out = NULL;
	if (parse_stat(stat_before, &before, &nb) < 0 || parse_stat(stat_after, &after, &na) < 0)
		goto out;
	n = cpus ? cpus->n : na;
	for (size_t i = 0; i < n; i++) {
		int cpu = cpus ? cpus->cpus[i] : after[i].cpu;
		const struct cpu_times *b = find_times(before, nb, cpu);
		const struct cpu_times *a = find_times(after, na, cpu);
		unsigned long long dbusy, dtotal;
		double busy;
		int rc;

		if (!a || !b) {
			rc = vtb_strbuf_addf(&sb, "%scpu%d offline", sb.len ? "\n" : "", cpu);
		} else {
			/* counters only grow; a reset (CPU hotplug) reads as idle */
			dtotal = a->total > b->total ? a->total - b->total : 0;
			dbusy = a->busy > b->busy ? a->busy - b->busy : 0;
			busy = dtotal ? (double)dbusy / (double)dtotal : 0.0;
			if (busy <= threshold)
				continue;
			rc = vtb_strbuf_addf(&sb, "%scpu%d %.0f%% busy", sb.len ? "\n" : "", cpu,
					     busy * 100.0);
		}
		if (rc < 0) {
			vtb_error("out of memory");
			goto out;
		}
	}
	if (sb.len)
		*out = vtb_strbuf_detach(&sb);
	ret = 0;
out:
	vtb_strbuf_release(&sb);
	free(before);
	free(after);
	return ret;
}

int vtb_hoststate_busy(const char *root, const struct vtb_cpuset *cpus, int interval_ms,
		       double threshold, char **out)
{
	char *path = path_of(root, "proc/stat"), *before = NULL, *after = NULL;
	struct timespec ts = { interval_ms / 1000, (interval_ms % 1000) * 1000000L };
	int ret = -1;

	*out = NULL;
	if (!path) {
		vtb_error("out of memory");
		goto out;
	}
	if (!(before = vtb_read_file(path, BIG_FILE)))
		goto out;
	while (interval_ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (!(after = vtb_read_file(path, BIG_FILE)))
		goto out;
	ret = vtb_hoststate_busy_from(before, after, cpus, threshold, out);
out:
	free(path);
	free(before);
	free(after);
	return ret;
}
