/* SPDX-License-Identifier: MIT */
/* SHA-256 digests (libcrypto) for matrix texts, keys and topologies. */
#ifndef VTB_DIGEST_H
#define VTB_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* Lowercase hex SHA-256 of @len bytes into @out (65 bytes); 0, or -1 with
 * vtb_error() when libcrypto fails. */
int vtb_sha256_hex(const void *data, size_t len, char out[65]);

/*
 * The same of the regular file @path of at most @max bytes, read in
 * chunks.  The file is stat()ed before it is opened, so a FIFO or a
 * device is never opened (that may block, or do something) and a file
 * past @max is never read; the open file is checked again and read no
 * further than @max.  -1 with vtb_error() naming the file when it is
 * not a regular file, is larger than @max or cannot be read.
 */
int vtb_sha256_file_hex(const char *path, uint64_t max, char out[65]);

#endif
