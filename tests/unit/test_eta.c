/* SPDX-License-Identifier: MIT */
/*
 * The eta of run and explore and plan's per-boot model (harness/boot/
 * eta.c): the model's seconds per kind and cell, each configuration's
 * own boots before its kind's before the model, and a running boot past
 * its expectation raising what the boots to come of its configuration
 * (and of its kind, while none of that kind has finished) are expected
 * to take: the eta that read "0:01" while a 20 s VM boot ran.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "../../harness/plan/eta.h"
#include "../../harness/matrix/conf.h"

/* 0, 1: baselines; 2, 3: VMs; no cells */
static struct vtb_config cfgs[4];

static void setup(void)
{
	memset(cfgs, 0, sizeof(cfgs));
	cfgs[2].kind = cfgs[3].kind = VTB_CONFIG_VM;
}

TestSuite(eta, .init = setup);

Test(eta, model_by_kind_and_accelerator)
{
	cr_expect_float_eq(vtb_eta_model(&cfgs[0], true), VTB_ETA_BASELINE_S, 1e-9);
	cr_expect_float_eq(vtb_eta_model(&cfgs[2], true), VTB_ETA_VM_KVM_S, 1e-9);
	cr_expect_float_eq(vtb_eta_model(&cfgs[2], false), VTB_ETA_VM_TCG_S, 1e-9);
}

Test(eta, own_boots_then_kind_then_model)
{
	struct vtb_eta e;

	cr_assert_eq(vtb_eta_init(&e, cfgs, 4, false), 0);
	cr_expect_float_eq(vtb_eta_expect(&e, 1), VTB_ETA_BASELINE_S, 1e-9);
	vtb_eta_add(&e, 0, 2);
	vtb_eta_add(&e, 0, 4);
	cr_expect_float_eq(vtb_eta_expect(&e, 0), 3, 1e-9, "its own mean");
	cr_expect_float_eq(vtb_eta_expect(&e, 1), 3, 1e-9, "its kind's");
	/* a baseline's 3 s says nothing about a VM boot */
	cr_expect_float_eq(vtb_eta_expect(&e, 2), VTB_ETA_VM_TCG_S, 1e-9, "the model");
	vtb_eta_add(&e, 1, 5);
	cr_expect_float_eq(vtb_eta_expect(&e, 1), 5, 1e-9);
	vtb_eta_release(&e);
}

Test(eta, left_counts_each_boot_at_its_expectation)
{
	struct vtb_eta e;
	size_t rest[] = { 0, 2, 1 };

	cr_assert_eq(vtb_eta_init(&e, cfgs, 4, true), 0);
	vtb_eta_add(&e, 0, 2);
	/* the VM running 4 s of its 10: 6 more; then 2 + 10 + 2 */
	cr_expect_float_eq(vtb_eta_left(&e, 3, 4, rest, 3, 0), 6 + 2 + 10 + 2, 1e-9);
	/* between boots; two more boots of unknown configuration at the
	 * mean of the known ones (14 / 3 each) */
	cr_expect_float_eq(vtb_eta_left(&e, SIZE_MAX, 0, rest, 3, 2), 14 + 2 * 14.0 / 3, 1e-9);
	vtb_eta_release(&e);
}

Test(eta, an_overrunning_boot_raises_what_comes)
{
	struct vtb_eta e;
	size_t rest[] = { 3, 2, 0 };

	cr_assert_eq(vtb_eta_init(&e, cfgs, 4, true), 0);
	vtb_eta_add(&e, 0, 2);
	/* VM 2 has run 30 s of an expected 10: nothing left of it by the
	 * model, but the VM boots to come (no VM has finished) take 30 */
	cr_expect_float_eq(vtb_eta_left(&e, 2, 30, rest, 3, 0), 0 + 30 + 30 + 2, 1e-9);
	/* once a VM boot finished in 12 s, the other VM's boots go by it;
	 * the same configuration's still by what this one has taken */
	vtb_eta_add(&e, 3, 12);
	cr_expect_float_eq(vtb_eta_left(&e, 2, 30, rest, 3, 0), 0 + 12 + 30 + 2, 1e-9);
	vtb_eta_release(&e);
}
