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

/* The items joined by "; " (malloc'ed; "" for none), NULL on ENOMEM.
 * @xname is the side the items call "x", @bname "base". */
char *vtb_ev_words(const json_t *items, const char *xname, const char *bname);

#endif
