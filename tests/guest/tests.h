/* SPDX-License-Identifier: GPL-2.0 */
/* Every test of the guest suite; tests.c lists them in running order. */
#ifndef PFPROF_GUEST_TESTS_H
#define PFPROF_GUEST_TESTS_H

void test_load_params(void);
void test_load_cycles(void);
void test_proc_mode(void);
void test_proc_register_list(void);
void test_proc_errors(void);
void test_proc_unprivileged(void);
void test_proc_opener_unprivileged(void);
void test_proc_opener_root(void);
void test_proc_pidns(void);
void test_header_fields(void);
void test_classic_protocol(void);
void test_classic_wrap(void);
void test_ring_missed(void);
void test_mmap_checks(void);
void test_ring_unwritable(void);
void test_read_poll(void);
void test_unload_busy(void);
void test_sample_rate(void);
void test_fault_accuracy(void);
void test_cpu_accuracy(void);
void test_threads_summed(void);
void test_stat_unchanged(void);
void test_exit_dropped(void);
void test_pid_reuse(void);
void test_work_locality(void);
void test_records_match_stat(void);
void test_records_exec_name(void);
void test_records_exit(void);
void test_records_thousand(void);
void test_records_slow_reader(void);
void test_records_v1_reader(void);
void test_records_system_counters(void);
void test_records_pid_reuse(void);
void test_records_off(void);
void test_top_batch(void);
void test_top_terminal(void);
void test_tool_errors(void);
void test_daemon_logs_samples(void);
void test_daemon_wakeups(void);
void test_daemon_rotation(void);
void test_daemon_restart_resumes(void);
void test_daemon_module_reload(void);
void test_daemon_disk_full(void);
void test_daemon_pid_file(void);
void test_daemon_bad_config(void);
void test_ctl_without_module(void);
void test_ctl_commands(void);
void test_fuzz_status(void);
void test_fuzz_mmap(void);
void test_storm(void);

#endif /* PFPROF_GUEST_TESTS_H */
