// SPDX-License-Identifier: GPL-2.0
/* The operand of the commands that read one process's or target's logs: where, memory. */
#include <stddef.h>

#include "ctl.h"

int ctl_parse_operand(const struct ctl_command *cmd, const struct ctl_call *call,
		      const struct ctl_operand_options *opts, struct ctl_operand *out)
{
	const char *operand = call->operands[0];
	int given = 0;
	pid_t root;

	*out = (struct ctl_operand){ 0 };
	for (int k = TARGET_TREE; k <= TARGET_COMM; k++) {
		const char *user = k == TARGET_COMM ? call->option[opts->user].string : NULL;

		if (!call->option[opts->kind[k]].set)
			continue;
		if (!operand)
			return ctl_usage_error(cmd, "%s names a target: give its name",
					       call->option[opts->kind[k]].typed);
		given++;
		out->kind = target_kind_word(k);
		out->name = operand;
		out->target = target_number(k, operand, user);
		if (k == TARGET_TREE && !ctl_parse_pid(operand, &root))
			return ctl_usage_error(cmd, "'%s' is not a PID", operand);
	}
	if (given > 1)
		return ctl_usage_error(cmd, "--tree, --unit, --cgroup and --comm name different "
				       "things: give one of them");
	if (call->option[opts->user].set && !call->option[opts->kind[TARGET_COMM]].set)
		return ctl_usage_error(cmd, "--user names one user's command name: give it with "
				       "--comm");
	if (operand && !given && !ctl_parse_pid(operand, &out->pid))
		return ctl_usage_error(cmd, "'%s' is not a PID", operand);
	return -1;
}
