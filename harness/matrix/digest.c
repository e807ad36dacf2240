/* SPDX-License-Identifier: MIT */
/* SHA-256 through OpenSSL's EVP interface; nothing hand-rolled. */
#include "digest.h"

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
