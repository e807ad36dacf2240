/* SPDX-License-Identifier: MIT */
/* SHA-256 through OpenSSL's EVP interface; nothing hand-rolled. */
#include "digest.h"

#include <openssl/evp.h>
#include <stdio.h>

void vtb_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL))
		n = 0;
	for (i = 0; i < n && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[2 * i] = '\0';
}
