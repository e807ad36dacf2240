/* SPDX-License-Identifier: MIT */
/*
 * vCPU thread sampling from /proc.  A sample must be negligible next to
 * the guest it watches: each vCPU's stat file is opened once and re-read
 * with pread() at offset 0 (procfs regenerates it on every read from the
 * start), which costs one system call and no path lookup per vCPU.  When
 * descriptors run out (hundreds of vCPUs side by side) a vCPU falls back
 * to open/read/close per sample.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "../../common/vtbutil.h"
#include "vcpusample.h"

/* A stat line is about 300 bytes (52 numeric fields and a 16-byte comm
 * at most): a full buffer means something else and is an error. */
#define STAT_MAX 2048
#define SCHED_MAX (64 * 1024)
#define COMM_MAX 64

struct vtb_vcpu_sampler {
	char *task_dir; /* PROC/PID/task */
	int n;
	int *tid;
	int *fd; /* stat, -1: opened per sample */
};

int vtb_vcpu_comm_index(const char *comm)
{
	const char *p = comm;
	long v;
	char *end;

	if (strncmp(p, "CPU ", 4))
		return -1;
	p += 4;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v < 0 || v > 1000000 || *end != '/' || !end[1])
		return -1;
	return (int)v;
}

int vtb_vcpu_stat_cpu(const char *text)
{
	const char *p = strrchr(text, ')');
	int field = 2; /* the comm */
	long v;
	char *end;

	if (!p)
		return -1;
	p++;
	/* fields 3 to 38 are skipped, 39 is read */
	while (field < 38) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			return -1;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		field++;
	}
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v > 1 << 24 || (*end != ' ' && *end != '\n' && *end))
		return -1;
	return (int)v;
}

static int parse_u64(const char *p, uint64_t *out)
{
	unsigned long long v;
	char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end && !isspace((unsigned char)*end)))
		return -1;
	*out = v;
	return 0;
}

int vtb_vcpu_sched_field(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && (p[klen] == ' ' || p[klen] == ':')) {
			const char *colon = strchr(p, ':');
			const char *nl = strchr(p, '\n');

			if (!colon || (nl && colon > nl))
				return -1;
			return parse_u64(colon + 1, out);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int vtb_vcpu_sched_migrations(const char *text, uint64_t *out)
{
	return vtb_vcpu_sched_field(text, "se.nr_migrations", out);
}

/* The next decimal field of a schedstat line at *@p, advancing it. */
static int next_field(const char **p, uint64_t *out)
{
	const char *s = *p, *e;

	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	for (e = s; isdigit((unsigned char)*e); e++)
		;
	if (*e && *e != ' ' && *e != '\n')
		return -1;
	if (parse_u64(s, out))
		return -1;
	*p = e;
	return 0;
}

int vtb_vcpu_schedstat_fields(const char *text, uint64_t out[3])
{
	const char *p = text;

	for (int i = 0; i < 3; i++)
		if (next_field(&p, &out[i]))
			return -1;
	return 0;
}

int vtb_vcpu_schedstat_delay(const char *text, uint64_t *out)
{
	uint64_t f[3];
	const char *p = text;

	/* older kernels without the slice count still have the first two */
	if (next_field(&p, &f[0]) || next_field(&p, &f[1]))
		return -1;
	*out = f[1];
	return 0;
}

int vtb_vcpu_qemu_pid(const char *proc_root, const char *pidfile, const char *name)
{
	char *text = vtb_read_file(pidfile, 64), *path = NULL, *want = NULL, *end;
	struct vtb_strbuf cmd = VTB_STRBUF_INIT;
	long pid = -1;
	ssize_t n;
	char buf[4096];
	int fd = -1, ret = -1;

	if (!text)
		return -1;
	errno = 0;
	pid = strtol(text, &end, 10);
	if (errno || end == text || *end || pid < 1 || pid > INT32_MAX) {
		vtb_error("'%s' holds no pid", pidfile);
		goto out;
	}
	/* the command line is NUL-separated and may be long: read it whole */
	path = vtb_asprintf("%s/%ld/cmdline", proc_root, pid);
	want = vtb_asprintf("guest=%s", name);
	if (!path || !want) {
		vtb_error("out of memory");
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		vtb_error("cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (cmd.len + (size_t)n > (1u << 20) || vtb_strbuf_add(&cmd, buf, (size_t)n)) {
			vtb_error("cannot read '%s'", path);
			goto out;
		}
	for (size_t i = 0; i < cmd.len; i += strlen(cmd.buf + i) + 1) {
		const char *arg = cmd.buf + i;
		size_t w = strlen(want);

		if (!strncmp(arg, want, w) && (arg[w] == ',' || !arg[w])) {
			ret = (int)pid;
			goto out;
		}
	}
	vtb_error("process %ld (from '%s') is not guest '%s'", pid, pidfile, name);
out:
	if (fd >= 0)
		close(fd);
	vtb_strbuf_release(&cmd);
	free(text);
	free(path);
	free(want);
	return ret;
}

int vtb_vcpu_qemu_pidfd(const char *proc_root, const char *pidfile, const char *name)
{
	int pid = vtb_vcpu_qemu_pid(proc_root, pidfile, name), fd;

	if (pid < 0)
		return -1;
	fd = pidfd_open(pid, 0);
	if (fd < 0)
		return vtb_error("cannot open a pidfd of process %d (guest '%s'): %s", pid, name,
				 strerror(errno));
	/* the pid named that QEMU before the open: if it still does after,
	 * the descriptor holds that QEMU (the pid could not have been freed
	 * and reused in between while the process lived on at it) */
	if (vtb_vcpu_qemu_pid(proc_root, pidfile, name) != pid) {
		close(fd);
		return vtb_error("process %d of guest '%s' went away while it was opened", pid,
				 name);
	}
	return fd;
}

static char *task_path(const struct vtb_vcpu_sampler *s, int v, const char *file)
{
	return vtb_asprintf("%s/%d/%s", s->task_dir, s->tid[v], file);
}

int vtb_vcpu_sampler_open(const char *proc_root, int pid, int n_vcpus,
			  struct vtb_vcpu_sampler **out)
{
	struct vtb_vcpu_sampler *s;
	struct dirent *de;
	DIR *d = NULL;
	int v, ret = -1;

	*out = NULL;
	if (n_vcpus < 1 || pid < 1)
		return vtb_error("no vCPUs to sample (pid %d, %d vCPUs)", pid, n_vcpus);
	s = calloc(1, sizeof(*s));
	if (!s)
		return vtb_error("out of memory");
	s->n = n_vcpus;
	s->task_dir = vtb_asprintf("%s/%d/task", proc_root, pid);
	s->tid = malloc((size_t)n_vcpus * sizeof(int));
	s->fd = malloc((size_t)n_vcpus * sizeof(int));
	if (!s->task_dir || !s->tid || !s->fd) {
		vtb_error("out of memory");
		goto out;
	}
	for (v = 0; v < n_vcpus; v++)
		s->tid[v] = s->fd[v] = -1;
	d = opendir(s->task_dir);
	if (!d) {
		vtb_error("cannot read '%s': %s", s->task_dir, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		char *path, *comm;
		long tid;
		char *end;
		int idx;

		errno = 0;
		tid = strtol(de->d_name, &end, 10);
		if (errno || *end || tid < 1 || tid > INT32_MAX)
			continue;
		path = vtb_asprintf("%s/%ld/comm", s->task_dir, tid);
		if (!path) {
			vtb_error("out of memory");
			goto out;
		}
		/* a thread may end while we look: skip it */
		comm = vtb_read_file(path, COMM_MAX);
		free(path);
		if (!comm)
			continue;
		idx = vtb_vcpu_comm_index(comm);
		if (idx >= 0 && idx < n_vcpus) {
			if (s->tid[idx] >= 0) {
				vtb_error("two threads of process %d are named '%s' (%d and %ld)",
					  pid, comm, s->tid[idx], tid);
				free(comm);
				goto out;
			}
			s->tid[idx] = (int)tid;
		}
		free(comm);
	}
	for (v = 0; v < n_vcpus; v++)
		if (s->tid[v] < 0) {
			vtb_error(
				"no thread named 'CPU %d/...' in '%s' (QEMU without debug-threads=on?)",
				v, s->task_dir);
			goto out;
		}
	for (v = 0; v < n_vcpus; v++) {
		char *path = task_path(s, v, "stat");

		if (!path) {
			vtb_error("out of memory");
			goto out;
		}
		s->fd[v] = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd[v] < 0 && errno != EMFILE && errno != ENFILE) {
			vtb_error("cannot open '%s': %s", path, strerror(errno));
			free(path);
			goto out;
		}
		free(path);
	}
	*out = s;
	s = NULL;
	ret = 0;
out:
	if (d)
		closedir(d);
	vtb_vcpu_sampler_free(s);
	return ret;
}

void vtb_vcpu_sampler_free(struct vtb_vcpu_sampler *s)
{
	int v;

	if (!s)
		return;
	for (v = 0; s->fd && v < s->n; v++)
		if (s->fd[v] >= 0)
			close(s->fd[v]);
	free(s->fd);
	free(s->tid);
	free(s->task_dir);
	free(s);
}

int vtb_vcpu_sampler_n(const struct vtb_vcpu_sampler *s)
{
	return s->n;
}

int vtb_vcpu_sampler_tid(const struct vtb_vcpu_sampler *s, int vcpu)
{
	return vcpu >= 0 && vcpu < s->n ? s->tid[vcpu] : -1;
}

/* One vCPU's stat line into @buf (STAT_MAX bytes); -1 when unreadable. */
static int read_stat(struct vtb_vcpu_sampler *s, int v, char *buf)
{
	ssize_t n;

	if (s->fd[v] >= 0) {
		n = pread(s->fd[v], buf, STAT_MAX, 0);
	} else {
		char *path = task_path(s, v, "stat");
		int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;

		free(path);
		if (fd < 0)
			return -1;
		n = read(fd, buf, STAT_MAX);
		close(fd);
	}
	if (n <= 0 || n >= STAT_MAX)
		return -1;
	buf[n] = '\0';
	return 0;
}

int vtb_vcpu_sampler_cpus(struct vtb_vcpu_sampler *s, int *cpus)
{
	char buf[STAT_MAX + 1];
	int v, got = 0;

	for (v = 0; v < s->n; v++) {
		cpus[v] = read_stat(s, v, buf) ? -1 : vtb_vcpu_stat_cpu(buf);
		got += cpus[v] >= 0;
	}
	return got;
}

int vtb_vcpu_sampler_counters(struct vtb_vcpu_sampler *s, struct vtb_vcpu_counters *c)
{
	int v, got = 0;

	for (v = 0; v < s->n; v++) {
		char *p1 = task_path(s, v, "sched"), *p2 = task_path(s, v, "schedstat");
		char *sched = p1 ? vtb_read_file(p1, SCHED_MAX) : NULL;
		char *stat = p2 ? vtb_read_file(p2, STAT_MAX) : NULL;

		memset(&c[v], 0, sizeof(c[v]));
		uint64_t f[3];

		c[v].ok = sched && stat && !vtb_vcpu_sched_migrations(sched, &c[v].migrations) &&
			  !vtb_vcpu_schedstat_delay(stat, &c[v].run_delay_ns);
		/* the rest is evidence: absent on an odd kernel, the boot goes on */
		if (c[v].ok && !vtb_vcpu_schedstat_fields(stat, f) &&
		    !vtb_vcpu_sched_field(sched, "nr_involuntary_switches", &c[v].invol)) {
			c[v].run_ns = f[0];
			c[v].slices = f[2];
			c[v].full = true;
		}
		got += c[v].ok;
		free(sched);
		free(stat);
		free(p1);
		free(p2);
	}
	return got;
}
