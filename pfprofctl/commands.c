// SPDX-License-Identifier: GPL-2.0
/* pfprofctl: the table of its commands, which main() and the tests walk. */
#include <string.h>

#include "ctl.h"

const struct ctl_command *const ctl_commands[] = {
	&ctl_add_command, &ctl_del_command, &ctl_list_command, &ctl_status_command,
	&ctl_follow_command, &ctl_top_command, &ctl_run_command, &ctl_plot_command,
	&ctl_where_command, &ctl_memory_command, &ctl_page_command, &ctl_swap_command,
	&ctl_physical_command, &ctl_heatmap_command, NULL
};

const struct ctl_command *ctl_find_command(const char *name)
{
	for (size_t i = 0; ctl_commands[i]; i++)
		if (!strcmp(ctl_commands[i]->name, name))
			return ctl_commands[i];
	return NULL;
}
