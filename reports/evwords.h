/* SPDX-License-Identifier: MIT */
/*
 * The largest differences of two configurations' scheduler evidence
 * (vtb_compare_evidence_diff()'s items) said in words, for compare's and
 * recommend's reports: "c3 balanced at MC 4.1x as often as c2 (12/s,
 * 2.9/s); 38% of c3's wake-ups were remote, 3% of c2's".
 */
#ifndef VTB_EVWORDS_H
#define VTB_EVWORDS_H

#include <jansson.h>
#include <stddef.h>

/* a figure of vtb_ev_num() with its suffix, NUL included, in every form */
#define VTB_EV_NUM_MAX 48

/* @v as the evidence prints it: "12", "1.2", "0.05", "3.2e+15" past a
 * billion, then @suffix ("%": at most 4 bytes, else none); "-" when @v
 * is not finite.  @buf, or the constant "-". */
const char *vtb_ev_num(double v, const char *suffix, char buf[VTB_EV_NUM_MAX]);

/* The first @n bytes of level key @key as the kernel writes level names
 * ("mc" -> "MC"), malloc'ed; NULL on ENOMEM. */
char *vtb_ev_level(const char *key, size_t n);

/* The items joined by "; " (malloc'ed; "" for none), NULL on ENOMEM.
 * @xname is the side the items call "x", @bname "base". */
char *vtb_ev_words(const json_t *items, const char *xname, const char *bname);

#endif
