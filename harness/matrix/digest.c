/* SPDX-License-Identifier: MIT */
/* SHA-256 through OpenSSL's EVP interface; nothing hand-rolled. */
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

int vtb_sha256_file_hex(const char *path, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char *buf = malloc(1 << 16);
	unsigned int n = 0, i;
	int fd = -1, ret = -1;
	ssize_t got;

	out[0] = '\0';
	if (!ctx || !buf) {
		ret = vtb_error("out of memory");
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = vtb_error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
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
