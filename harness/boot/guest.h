/* SPDX-License-Identifier: MIT */
/*
 * Guest boot files: the initramfs (built by `make guest`), the guest
 * kernel, and the per-boot image (initramfs + an uncompressed newc cpio
 * holding /job.json).  Pure file work, no libvirt: provision.c hands the
 * resulting paths to the hypervisor.
 *
 * Where files go: a staging directory the hypervisor's user can read
 * (the system daemon runs QEMU as another user, e.g. libvirt-qemu), by
 * default /var/lib/vtbench/guest for root and $XDG_CACHE_HOME/vtbench/guest
 * (else ~/.cache/vtbench/guest) for other users; VTBENCH_GUEST_DIR
 * overrides (the caller reads it and passes it as the directory).
 * Kernels that others cannot read are copied there (0644).
 */
#ifndef VTB_GUEST_H
#define VTB_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- newc cpio writer (the kernel's initramfs format) ---- */
struct vtb_cpio {
	unsigned char *buf; /* owned */
	size_t len, cap;
	unsigned long next_ino;
};
void vtb_cpio_init(struct vtb_cpio *c);
/* Adds a regular file @name (no leading '/', e.g. "job.json") with @mode
 * permission bits (07777 at most), owner 0:0, mtime 0.  -1 with
 * vtb_error() on ENOMEM, a file over 4 GiB, or a bad name: empty,
 * absolute, with an empty or ".." component, or "TRAILER!!!". */
int vtb_cpio_add_file(struct vtb_cpio *c, const char *name, const void *data, size_t len,
		      unsigned mode);
/* Appends the TRAILER!!! entry and pads the archive with zeros to a
 * multiple of 512 bytes.  Add no file after it. */
int vtb_cpio_finish(struct vtb_cpio *c);
void vtb_cpio_release(struct vtb_cpio *c);

/* ---- kernels ---- */
/* Release ("6.1.0-57-amd64") read from a bzImage's setup header (the
 * kernel_version string), malloc'ed; NULL with vtb_error() when @path is
 * not a readable x86 bzImage ("'PATH' is not a Linux bzImage ..."). */
char *vtb_kernel_release(const char *path);

struct vtb_kernel_choice {
	char *path;    /* the kernel as chosen (configured or found) */
	char *release; /* from its header */
	char *source;  /* "kernel = in matrix", @boot_dir, "fetched by install-deps" */
	char *skipped; /* NULL, or "'PATH' (why); ..." for the vmlinuz-* passed
			* over: every one of a directory that gave no kernel,
			* and those named newer than the chosen one */
};
/*
 * Picks the guest kernel: @configured (kernel = in [global]) when set and
 * not empty; else the newest (by header release, strverscmp; equal
 * releases by name) vmlinuz-* in @boot_dir that is a bzImage this process
 * can read; else the same in @fetched_dir.  A NULL or missing directory
 * holds no kernel.  -1 with vtb_error() saying what to do when none
 * qualifies (set kernel =, or run scripts/fetch-kernel.sh), listing what
 * was passed over.  A configured kernel that is missing or not a bzImage
 * is an error naming it.  The caller owns @out (release it).
 *
 * @others_must_read does not narrow the choice: a kernel this process can
 * read but the hypervisor's user cannot (Ubuntu's 0600 /boot/vmlinuz-*
 * under qemu:///system, run as root) is copied by vtb_guest_stage() to
 * where it can.  A kernel this process cannot read is passed over.
 */
int vtb_kernel_pick(const char *configured, const char *boot_dir, const char *fetched_dir,
		    bool others_must_read, struct vtb_kernel_choice *out);
void vtb_kernel_choice_release(struct vtb_kernel_choice *k);

/* True when a user other than the owner can read @path: it is o+r (a
 * directory o+rx) and every directory above it is o+x, both along the
 * path as given and along its realpath().  Group bits and ACLs are not
 * consulted: we do not know the hypervisor's user.  False when @path
 * cannot be resolved. */
bool vtb_guest_readable(const char *path);

/* ---- staging ---- */
struct vtb_guest_stage {
	char *dir;	      /* staging directory (absolute, created 0755) */
	char *kernel;	      /* kernel path the hypervisor opens */
	char *initramfs;      /* base initramfs path (as built by make guest) */
	char *release;	      /* guest kernel release */
	char *kernel_source;  /* as vtb_kernel_choice.source */
	char *kernel_skipped; /* as vtb_kernel_choice.skipped (NULL: none) */
	bool others_must_read;
};
/*
 * Prepares a campaign's guest files: creates @dir with its parents (NULL:
 * vtb_guest_default_dir()), picks the kernel (vtb_kernel_pick), and when
 * @others_must_read (qemu:///system) copies a kernel others cannot read
 * (as vmlinuz-<release>) and an initramfs others cannot read into @dir
 * with mode 0644, through a temporary name, keeping an identical copy
 * already there; then checks that @dir, the kernel and the initramfs pass
 * vtb_guest_readable(); -1 with vtb_error() naming the path and what to
 * do otherwise.  Without @others_must_read the files are used in place.
 * @initramfs: the image built by `make guest`; missing is an error that
 * says "run make guest".  All paths in @out are absolute and resolved;
 * @out is zeroed on failure and owned by the caller on success.
 */
int vtb_guest_stage(const char *dir, const char *configured_kernel, const char *boot_dir,
		    const char *fetched_dir, const char *initramfs, bool others_must_read,
		    struct vtb_guest_stage *out);
void vtb_guest_stage_release(struct vtb_guest_stage *s);

/*
 * Another guest kernel for the campaign staged in @s (a [vm] kernel =
 * value): @path's release (vtb_kernel_release()) in *release and the path
 * the hypervisor opens in *staged: @path resolved, or a copy in the
 * staging directory (vmlinuz-<release>-<first 16 digits of @sha256>) when
 * the hypervisor's user could not read it.  -1 with vtb_error() naming
 * the path; both malloc'ed on success.
 */
int vtb_guest_stage_kernel(const struct vtb_guest_stage *s, const char *path, const char *sha256,
			   char **staged, char **release);

/*
 * Writes the per-boot image: the base initramfs, zero padding to a
 * 4-byte boundary (the kernel looks for a following archive only at
 * 4-byte aligned offsets), then an uncompressed newc cpio holding
 * /job.json = @job_json.  The file is STAGE_DIR/boot-<uuid>.img, mode
 * 0644, written to STAGE_DIR/boot-<uuid>.img.tmp and renamed.
 * @boot_uuid must be 1 to 64 hex digits and '-' (it names the file); the
 * base image must be a regular file of at most 256 MiB.  Returns the path
 * (malloc'ed) or NULL with vtb_error().
 */
char *vtb_guest_boot_image(const struct vtb_guest_stage *s, const char *boot_uuid,
			   const char *job_json);
/* Removes boot-*.img (and boot-*.img.tmp) files whose mtime is more
 * than @age_s seconds ago from the staging directory (left by a killed
 * harness); returns how many, or -1 with vtb_error() when the directory
 * cannot be listed. */
int vtb_guest_sweep(const struct vtb_guest_stage *s, long age_s);

/* Default locations, relative to the running vtbench binary
 * (/proc/self/exe): BINDIR/guest/initramfs.cpio.gz, else
 * BINDIR/../share/vtbench/guest/initramfs.cpio.gz; the fetched kernel
 * directory BINDIR/guest/kernel/boot, else
 * BINDIR/../share/vtbench/guest/kernel/boot.  malloc'ed; the first
 * candidate when none exists (so the error names it). */
char *vtb_guest_default_initramfs(void);
char *vtb_guest_default_fetched_dir(void);
/* The default staging directory described at the top (malloc'ed), or
 * NULL with vtb_error() when neither root nor HOME gives one. */
char *vtb_guest_default_dir(void);

#endif
