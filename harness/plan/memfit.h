/* SPDX-License-Identifier: MIT */
/*
 * Memory feasibility, decided when the matrix is resolved (so `plan` and
 * `run` say it before anything boots): each cell's memory need (the
 * workload's memory_need hook, workload.h) against where it runs, the
 * guest's available memory for VM configurations (its memory minus what
 * the guest kernel and the agent keep, vtb_guest_reserve()) and the
 * memory of the host nodes a baseline is bound to.  A cell that cannot
 * fit makes its configuration not runnable, with the figures and the key
 * to change.  membw's size = auto is resolved here too, like for like: a
 * VM configuration and its baselines get the same array size, 4 x LLC or
 * the largest that fits all of them, with a note on the cell.  Pure: the
 * host is the struct vtb_host_ctx of conf.h.
 */
#ifndef VTB_MEMFIT_H
#define VTB_MEMFIT_H

#include <stdint.h>

#include "../matrix/conf.h"

/*
 * What a guest of @memory bytes and @vcpus vCPUs does not offer its
 * workloads: memory the firmware and the guest kernel take before
 * MemTotal, the kernel's own use, and the agent and its initramfs, i.e.
 * @memory - MemAvailable as the agent reads it, plus a safety margin.
 * Measured with Debian 12's kernel (docs/guest-runs.md "Memory feasibility").
 */
uint64_t vtb_guest_reserve(uint64_t memory, long vcpus);

/*
 * Resolves membw's size = auto of every configuration of @m (like for
 * like across each VM configuration and its baselines) and marks the
 * configurations whose cells cannot fit as not runnable (why_not names
 * the cell, the need, the memory and the keys to change).  Configurations
 * already not runnable are left alone.  -1 with vtb_error() on ENOMEM.
 */
int vtb_matrix_fit_memory(struct vtb_matrix *m, const struct vtb_host_ctx *host);

#endif
