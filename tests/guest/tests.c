// SPDX-License-Identifier: GPL-2.0
/* The guest suite, in running order, with each test's module parameters. */
#include "harness.h"
#include "tests.h"

const struct test tests[] = {
	{ "load_params",	NULL,		20,	test_load_params },
	{ "proc_mode",		NULL,		10,	test_proc_mode },
	{ "proc_register_list",	NULL,		10,	test_proc_register_list },
	{ "proc_errors",	NULL,		10,	test_proc_errors },
	{ "proc_unprivileged",	NULL,		10,	test_proc_unprivileged },
	{ "proc_opener_unprivileged", NULL,	10,	test_proc_opener_unprivileged },
	{ "proc_opener_root",	NULL,		10,	test_proc_opener_root },
	{ "proc_pidns",		NULL,		10,	test_proc_pidns },
	{ "header_fields",	NULL,		20,	test_header_fields },
	{ "mmap_checks",	NULL,		10,	test_mmap_checks },
	{ "ring_unwritable",	NULL,		10,	test_ring_unwritable },
	{ "read_poll",		NULL,		10,	test_read_poll },
	{ "sample_rate",	NULL,		20,	test_sample_rate },
	{ "fault_accuracy",	NULL,		30,	test_fault_accuracy },
	{ "cpu_accuracy",	NULL,		30,	test_cpu_accuracy },
	{ "threads_summed",	NULL,		30,	test_threads_summed },
	{ "stat_unchanged",	NULL,		30,	test_stat_unchanged },
	{ "exit_dropped",	NULL,		10,	test_exit_dropped },
	{ "pid_reuse",		NULL,		10,	test_pid_reuse },
	{ "classic_protocol",	NULL,		30,	test_classic_protocol },
	{ "classic_wrap",	"period_ms=1",	90,	test_classic_wrap },
	{ "ring_missed",	"period_ms=1",	90,	test_ring_missed },
	{ "unload_busy",	NULL,		10,	test_unload_busy },
	{ "load_cycles",	NULL,		120,	test_load_cycles },
	{ "work_locality",	NULL,		120,	test_work_locality },
	{ "tool_errors",	NULL,		10,	test_tool_errors },
	{ "daemon_logs_samples", NULL,		20,	test_daemon_logs_samples },
	{ "daemon_wakeups",	NULL,		40,	test_daemon_wakeups },
	{ "daemon_rotation",	NULL,		60,	test_daemon_rotation },
	{ "daemon_restart_resumes", NULL,	20,	test_daemon_restart_resumes },
	{ "daemon_module_reload", NULL,		20,	test_daemon_module_reload },
	{ "daemon_disk_full",	NULL,		20,	test_daemon_disk_full },
	{ "daemon_pid_file",	NULL,		20,	test_daemon_pid_file },
	{ "daemon_bad_config",	NULL,		20,	test_daemon_bad_config },
	{ "ctl_without_module",	NULL,		20,	test_ctl_without_module },
	{ "ctl_commands",	NULL,		30,	test_ctl_commands },
	{ "fuzz_status",	NULL,		300,	test_fuzz_status },
	{ "fuzz_mmap",		NULL,		120,	test_fuzz_mmap },
	{ "storm",		NULL,		180,	test_storm },
};

const size_t nr_tests = sizeof(tests) / sizeof(tests[0]);
