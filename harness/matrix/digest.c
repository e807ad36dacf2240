/* SPDX-License-Identifier: MIT */
/* SHA-256 through OpenSSL's EVP interface; nothing hand-rolled. */
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include "../../common/vtbutil.h"

int vtb_sha256_hex(const void *data, size_t len, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	out[0] = '\0';
	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		return vtb_error("sha-256 failed");
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}

/* Whether @st is a regular file of at most @max bytes; else -1 with
 * vtb_error(). */
static int file_fits(const char *path, const struct stat *st, uint64_t max)
{
	if (!S_ISREG(st->st_mode))
		return vtb_error("'%s' is not a regular file", path);
	if ((uint64_t)st->st_size > max)
		return vtb_error("'%s' is too large (%" PRIu64 " bytes, limit %" PRIu64 ")", path,
				 (uint64_t)st->st_size, max);
	return 0;
}

int vtb_sha256_file_hex(const char *path, uint64_t max, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char *buf = malloc(1 << 16);
	unsigned int n = 0, i;
	int fd = -1, ret = -1;
	uint64_t total = 0;
	struct stat st;
	ssize_t got;

	out[0] = '\0';
	if (!ctx || !buf) {
		ret = vtb_error("out of memory");
		goto out;
	}
	if (stat(path, &st) < 0) {
		ret = vtb_error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (file_fits(path, &st, max) < 0)
		goto out;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = vtb_error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	/* replaced since the stat() */
	if (fstat(fd, &st) < 0) {
		ret = vtb_error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (file_fits(path, &st, max) < 0)
		goto out;
	if (!EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		ret = vtb_error("sha-256 failed");
		goto out;
	}
	while ((got = read(fd, buf, 1 << 16)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = vtb_error("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		/* grown since the fstat() */
		total += (uint64_t)got;
		if (total > max) {
			ret = vtb_error("'%s' is too large (more than %" PRIu64 " bytes)", path,
					max);
			goto out;
		}
		if (!EVP_DigestUpdate(ctx, buf, (size_t)got)) {
			ret = vtb_error("sha-256 failed");
			goto out;
		}
	}
	if (!EVP_DigestFinal_ex(ctx, md, &n) || n != 32) {
		ret = vtb_error("sha-256 failed");
		goto out;
	}
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	EVP_MD_CTX_free(ctx);
	return ret;
}
