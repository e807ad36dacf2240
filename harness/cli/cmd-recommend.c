/* SPDX-License-Identifier: MIT */
/* vtbench recommend (stub while it is written) */
#include "cmd.h"

const struct vtb_cli recommend_cli = {
	.cmd = "recommend",
	.usage = "[options]",
	.about = "x\n",
};

int cmd_recommend(struct vtb_cmd_env *env)
{
	(void)env;
	return VTB_EXIT_USAGE;
}
