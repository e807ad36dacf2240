/* SPDX-License-Identifier: MIT */
/*
 * Upload's HTTP client, the only libcurl user: a sink URL taken apart,
 * the credentials, and a request sent with retries.
 *
 * Retries: connection errors, timeouts, 429 (its Retry-After honoured)
 * and 5xx are retried with exponential backoff and full jitter, bounded
 * in attempts and in time per batch; other answers fail at once with the
 * server's message.  Credentials come from the environment or a private
 * file, go only into request headers and are never printed or stored.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upload-priv.h"

int up_http_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK
		       ? vtb_error("cannot initialise libcurl")
		       : 0;
}

/* ---- URL ---- */

/*
 * The decoded path goes into request paths (escaped again segment by
 * segment) and into messages: a "." or ".." segment (curl removes the
 * literal ones, not "%2E%2E") would reach the server as path traversal,
 * and a control character (%0d%0a) would split a line.
 */
static int bad_path(const char *url, const char *path)
{
	for (const char *p = path; p && *p;) {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return vtb_error("'%s': a '.' or '..' path segment (%%2E%%2E) is refused",
					 url);
		p += n + (p[n] == '/');
	}
	for (const unsigned char *c = (const unsigned char *)path; c && *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return vtb_error(
				"'%s': the path holds an encoded control character (%%%02X)", url,
				*c);
	return 0;
}

int up_url_split(const char *url, struct up_url *u)
{
	CURLU *h = curl_url();
	char *user = NULL, *pass = NULL, *query = NULL, *frag = NULL;
	int ret = -1;

	memset(u, 0, sizeof(*u));
	if (!h)
		return vtb_error("out of memory");
	if (curl_url_set(h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
	    curl_url_get(h, CURLUPART_SCHEME, &u->scheme, 0) != CURLUE_OK ||
	    curl_url_get(h, CURLUPART_HOST, &u->host, 0) != CURLUE_OK) {
		vtb_error("cannot parse the URL '%s'", url);
		goto out;
	}
	curl_url_get(h, CURLUPART_USER, &user, 0);
	curl_url_get(h, CURLUPART_PASSWORD, &pass, 0);
	curl_url_get(h, CURLUPART_QUERY, &query, 0);
	curl_url_get(h, CURLUPART_FRAGMENT, &frag, 0);
	curl_url_get(h, CURLUPART_PORT, &u->port, 0);
	if (curl_url_get(h, CURLUPART_PATH, &u->path, CURLU_URLDECODE) != CURLUE_OK) {
		/* libcurl refuses to decode %00 and other control characters */
		vtb_error(
			"'%s': the path holds an encoded NUL or control character (%%00, %%0d, %%0a ...)",
			url);
		goto out;
	}
	if (bad_path(url, u->path) < 0)
		goto out;
	if (user || pass) {
		vtb_error(
			"credentials in the URL are refused (they would end up in logs and the database): use VTBENCH_UPLOAD_TOKEN, VTBENCH_UPLOAD_USER and VTBENCH_UPLOAD_PASSWORD, or --token-file");
		goto out;
	}
	if (query || frag) {
		vtb_error("'%s': a sink URL takes no query or fragment", url);
		goto out;
	}
	ret = 0;
out:
	curl_free(user);
	curl_free(pass);
	curl_free(query);
	curl_free(frag);
	curl_url_cleanup(h);
	if (ret)
		up_url_release(u);
	return ret;
}

void up_url_release(struct up_url *u)
{
	curl_free(u->scheme);
	curl_free(u->host);
	curl_free(u->port);
	curl_free(u->path);
	memset(u, 0, sizeof(*u));
}

char *up_url_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *r = vtb_strdup(e);

	curl_free(e);
	return r;
}

char *up_path_escaped(const char *path)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *p = path;
	int r = vtb_strbuf_add(&sb, "", 0);

	while (*p && !r) {
		size_t n = strcspn(p, "/");
		char *seg = strndup(p, n), *e = seg ? up_url_escape(seg) : NULL;

		r = e ? vtb_strbuf_addf(&sb, "/%s", e) : -1;
		free(seg);
		free(e);
		p += n;
		if (*p == '/')
			p++;
	}
	if (r) {
		vtb_strbuf_release(&sb);
		vtb_error("out of memory");
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/* ---- credentials ---- */

void up_free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* The token of --token-file: the file must deny others every access. */
static char *read_token_file(const char *path)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct stat stbuf;
	char buf[512];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		vtb_error("cannot open the token file '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &stbuf) < 0 || !S_ISREG(stbuf.st_mode)) {
		vtb_error("the token file '%s' is not a regular file", path);
		goto fail;
	}
	if (stbuf.st_mode & (S_IRWXG | S_IRWXO)) {
		vtb_error("the token file '%s' is accessible to others (mode %04o): chmod 600 '%s'",
			  path, (unsigned)(stbuf.st_mode & 07777), path);
		goto fail;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (vtb_strbuf_add(&sb, buf, (size_t)n)) {
			vtb_error("out of memory");
			goto fail;
		}
	explicit_bzero(buf, sizeof(buf));
	if (n < 0) {
		vtb_error("cannot read the token file '%s': %s", path, strerror(errno));
		goto fail;
	}
	close(fd);
	while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r' ||
			  sb.buf[sb.len - 1] == ' '))
		sb.buf[--sb.len] = '\0';
	if (!sb.len || strpbrk(sb.buf, "\r\n")) {
		up_free_secret(vtb_strbuf_detach(&sb));
		vtb_error("the token file '%s' must hold one line, the token", path);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
fail:
	close(fd);
	up_free_secret(vtb_strbuf_detach(&sb));
	return NULL;
}

int up_load_credentials(struct sink *sk)
{
	const char *tok = getenv("VTBENCH_UPLOAD_TOKEN");
	const char *user = getenv("VTBENCH_UPLOAD_USER");
	const char *pass = getenv("VTBENCH_UPLOAD_PASSWORD");
	char *token = NULL;

	if (sk->o->token_file) {
		token = read_token_file(sk->o->token_file);
		if (!token)
			return -1;
	} else if (tok && *tok) {
		if (strpbrk(tok, "\r\n"))
			return vtb_error("VTBENCH_UPLOAD_TOKEN holds a line break");
		token = strdup(tok);
		if (!token)
			return vtb_error("out of memory");
	}
	if (token) {
		sk->auth_header = vtb_asprintf("Authorization: %s %s", sk->ops->auth_scheme, token);
		up_free_secret(token);
		return sk->auth_header ? 0 : vtb_error("out of memory");
	}
	if ((user && *user) != (pass && *pass))
		return vtb_error("VTBENCH_UPLOAD_USER and VTBENCH_UPLOAD_PASSWORD go together");
	if (user && *user) {
		sk->user = strdup(user);
		sk->password = strdup(pass);
		if (!sk->user || !sk->password)
			return vtb_error("out of memory");
	}
	return 0;
}

/* ---- HTTP with retries ---- */

struct resp {
	struct vtb_strbuf body;
};

static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct resp *r = arg;
	size_t n = size * nmemb;

	/* enough of the server's message to quote it */
	if (r->body.len < 4096 && vtb_strbuf_add(&r->body, p, n < 4096 ? n : 4096))
		return 0;
	return n;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void up_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Connection-level failures worth another attempt: the server may be
 * restarting or briefly overloaded.  TLS verification failures and bad
 * options are not. */
static bool curl_retryable(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

/* The server's message, on one line, bounded. */
static char *server_message(const struct resp *r)
{
	char *m = vtb_strdup(r->body.len ? r->body.buf : "");

	if (!m)
		return NULL;
	for (char *p = m; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	if (strlen(m) > 500)
		strcpy(m + 497, "...");
	return m;
}

long vtb_upload_retry_delay(long backoff_ms, long attempt, long long retry_after_s, double u)
{
	long w = backoff_ms < 1 ? 1 : backoff_ms, d;

	if (retry_after_s > 0)
		return (retry_after_s < VTB_UPLOAD_MAX_RETRY_AFTER_S
				? (long)retry_after_s
				: VTB_UPLOAD_MAX_RETRY_AFTER_S) *
		       1000;
	for (long i = 1; i < attempt && w < VTB_UPLOAD_MAX_DELAY_MS; i++)
		w *= 2;
	if (w > VTB_UPLOAD_MAX_DELAY_MS)
		w = VTB_UPLOAD_MAX_DELAY_MS;
	if (!(u >= 0) || u >= 1)
		u = 0;
	/* a double draw scaled: gsl_rng_uniform_int() aborted (GSL's error
	 * handler) once its bound passed 2^32, at attempt 15 of --backoff 10m */
	d = w / 2 + (long)(u * (double)(w - w / 2));
	return d > VTB_UPLOAD_MAX_DELAY_MS ? VTB_UPLOAD_MAX_DELAY_MS : d;
}

/* The request, ready to be performed but for where its answer goes:
 * headers in *hdrs (the caller frees them), libcurl's errors in @errbuf.
 * NULL when out of memory. */
static CURL *http_handle(struct sink *sk, const char *body, size_t len, char *errbuf,
			 struct curl_slist **hdrs)
{
	const struct vtb_upload_opts *o = sk->o;
	char *ctype = vtb_asprintf("Content-Type: %s", sk->ops->content_type);
	char *key = sk->idempotency_key ? vtb_asprintf("Idempotency-Key: %s", sk->idempotency_key)
					: NULL;
	CURL *h = ctype && (key || !sk->idempotency_key) ? curl_easy_init() : NULL;

	*hdrs = h ? curl_slist_append(NULL, ctype) : NULL;
	if (*hdrs)
		*hdrs = curl_slist_append(*hdrs, "Expect:");
	if (*hdrs && sk->auth_header)
		*hdrs = curl_slist_append(*hdrs, sk->auth_header);
	if (*hdrs && key)
		*hdrs = curl_slist_append(*hdrs, key);
	free(ctype);
	free(key);
	if (!*hdrs) {
		curl_easy_cleanup(h);
		return NULL;
	}
	curl_easy_setopt(h, CURLOPT_URL, sk->endpoint);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "vtbench/" VTB_VERSION);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	if (strcmp(sk->ops->method, "POST"))
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, sk->ops->method);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	/* verification stays on: there is no option to turn it off */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, o->cacert);
	if (sk->user) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, sk->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, sk->password);
	}
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	return h;
}

/*
 * After failed attempt @attempt (@why: what failed): whether to try
 * again, and after how long (*delay, ms).  When not, vtb_error() says
 * why: an answer that will not change, the attempts or the time spent.
 */
static bool retry(struct sink *sk, CURL *h, CURLcode c, long code, long attempt, int64_t deadline,
		  const char *why, long *delay)
{
	const struct vtb_upload_opts *o = sk->o;
	curl_off_t retry_after = 0;

	/* of the 4xx answers only a timeout (408) and too many requests
	 * (429) may change on their own */
	if (c != CURLE_OK ? !curl_retryable(c) : code != 408 && code != 429 && code < 500) {
		vtb_error("%s", why);
		return false;
	}
	if (attempt >= o->attempts) {
		vtb_error("%s (gave up after %ld attempts)", why, attempt);
		return false;
	}
	if (code == 429 && curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &retry_after))
		retry_after = 0;
	*delay = vtb_upload_retry_delay(o->backoff_ms, attempt,
					code == 429 ? (long long)retry_after : 0,
					gsl_rng_uniform(sk->rng));
	if (mono_ms() + *delay > deadline) {
		vtb_error("%s (gave up: waiting %ld ms more would pass the retry time of %ld ms)",
			  why, *delay, o->max_time_ms);
		return false;
	}
	return true;
}

int up_http_send(struct sink *sk, const char *body, size_t len, long *retries, long *requests,
		 long *status, char **message)
{
	const struct vtb_upload_opts *o = sk->o;
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE];
	int64_t deadline = mono_ms() + o->max_time_ms;
	CURL *h = http_handle(sk, body, len, errbuf, &hdrs);
	int ret = -1;

	*status = 0;
	*message = NULL;
	if (!h)
		return vtb_error("out of memory");
	for (long attempt = 1;; attempt++) {
		struct resp r = { VTB_STRBUF_INIT };
		CURLcode c;
		long code = 0, delay = 0;
		char *why;

		errbuf[0] = '\0';
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
		c = curl_easy_perform(h);
		(*requests)++;
		if (c == CURLE_OK)
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		*status = code;
		if (c == CURLE_OK && code >= 200 && code < 300) {
			vtb_strbuf_release(&r.body);
			ret = 0;
			break;
		}
		free(*message);
		*message = server_message(&r);
		vtb_strbuf_release(&r.body);
		if (c != CURLE_OK)
			why = vtb_asprintf("%s", errbuf[0] ? errbuf : curl_easy_strerror(c));
		else
			why = vtb_asprintf("HTTP %ld from %s%s%s", code, sk->base,
					   *message && **message ? ": " : "",
					   *message ? *message : "");
		if (!why) {
			vtb_error("out of memory");
			break;
		}
		if (!retry(sk, h, c, code, attempt, deadline, why, &delay)) {
			free(why);
			break;
		}
		up_note(sk, "%s; retrying in %ld ms (attempt %ld of %ld)", why, delay, attempt + 1,
			o->attempts);
		free(why);
		(*retries)++;
		up_sleep_ms(delay);
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return ret;
}
