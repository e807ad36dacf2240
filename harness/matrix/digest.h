/* SPDX-License-Identifier: MIT */
/* SHA-256 digests (libcrypto) for matrix texts, keys and topologies. */
#ifndef VTB_DIGEST_H
#define VTB_DIGEST_H

#include <stddef.h>

/* Lowercase hex SHA-256 of @len bytes into @out (65 bytes); 0, or -1 with
 * vtb_error() when libcrypto fails. */
int vtb_sha256_hex(const void *data, size_t len, char out[65]);

/* The same of the file @path, read in chunks; -1 with vtb_error() naming
 * the file when it cannot be read. */
int vtb_sha256_file_hex(const char *path, char out[65]);

#endif
