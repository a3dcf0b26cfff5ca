// SPDX-License-Identifier: GPL-2.0
/* The guest suite, in running order: name, function, module parameters, timeout (s). */
#include "harness.h"
#include "tests.h"

const struct test tests[] = {
	{ "load_params",              test_load_params,                NULL,            20 },
	{ "proc_mode",                test_proc_mode,                  NULL,            10 },
	{ "proc_register_list",       test_proc_register_list,         NULL,            10 },
	{ "proc_errors",              test_proc_errors,                NULL,            10 },
	{ "proc_unprivileged",        test_proc_unprivileged,          NULL,            10 },
	{ "proc_opener_unprivileged", test_proc_opener_unprivileged,   NULL,            10 },
	{ "proc_opener_root",         test_proc_opener_root,           NULL,            10 },
	{ "proc_pidns",               test_proc_pidns,                 NULL,            10 },
	{ "header_fields",            test_header_fields,              NULL,            20 },
	{ "mmap_checks",              test_mmap_checks,                NULL,            10 },
	{ "ring_unwritable",          test_ring_unwritable,            NULL,            10 },
	{ "read_poll",                test_read_poll,                  NULL,            10 },
	{ "sample_rate",              test_sample_rate,                NULL,            20 },
	{ "fault_accuracy",           test_fault_accuracy,             NULL,            30 },
	{ "cpu_accuracy",             test_cpu_accuracy,               NULL,            30 },
	{ "threads_summed",           test_threads_summed,             NULL,            30 },
	{ "stat_unchanged",           test_stat_unchanged,             NULL,            30 },
	{ "exit_dropped",             test_exit_dropped,               NULL,            10 },
	{ "pid_reuse",                test_pid_reuse,                  NULL,            10 },
	{ "classic_protocol",         test_classic_protocol,           NULL,            30 },
	{ "classic_wrap",             test_classic_wrap,               "period_ms=1",   90 },
	{ "ring_missed",              test_ring_missed,                "period_ms=1",   90 },
	{ "unload_busy",              test_unload_busy,                NULL,            10 },
	{ "load_cycles",              test_load_cycles,                NULL,           120 },
	{ "work_locality",            test_work_locality,              NULL,           120 },
	{ "tool_errors",              test_tool_errors,                NULL,            10 },
	{ "daemon_logs_samples",      test_daemon_logs_samples,        NULL,            20 },
	{ "daemon_wakeups",           test_daemon_wakeups,             NULL,            40 },
	{ "daemon_rotation",          test_daemon_rotation,            NULL,            60 },
	{ "daemon_restart_resumes",   test_daemon_restart_resumes,     NULL,            20 },
	{ "daemon_module_reload",     test_daemon_module_reload,       NULL,            20 },
	{ "daemon_disk_full",         test_daemon_disk_full,           NULL,            20 },
	{ "daemon_pid_file",          test_daemon_pid_file,            NULL,            20 },
	{ "daemon_bad_config",        test_daemon_bad_config,          NULL,            20 },
	{ "ctl_without_module",       test_ctl_without_module,         NULL,            20 },
	{ "ctl_commands",             test_ctl_commands,               NULL,            30 },
	{ "fuzz_status",              test_fuzz_status,                NULL,           300 },
	{ "fuzz_mmap",                test_fuzz_mmap,                  NULL,           120 },
	{ "storm",                    test_storm,                      NULL,           180 },
};

const size_t nr_tests = sizeof(tests) / sizeof(tests[0]);
