/* SPDX-License-Identifier: GPL-2.0 */
/* Every test of the guest suite, by the file it is in; tests.c lists them in running order. */
#ifndef PFPROF_GUEST_TESTS_H
#define PFPROF_GUEST_TESTS_H

/* t_load.c */
void test_load_params(void);
void test_load_cycles(void);
void test_load_beside_activity(void);
void test_load_rt_refused(void);
void test_unload_busy(void);

/* t_status.c */
void test_proc_mode(void);
void test_proc_register_list(void);
void test_proc_errors(void);
void test_proc_unprivileged(void);
void test_proc_opener_unprivileged(void);
void test_proc_opener_root(void);
void test_proc_pidns(void);
void test_tree_skips_unreadable(void);

/* t_access.c */
void test_owner_ends_target(void);
void test_admin_group_first(void);
void test_user_quota_and_numbers(void);
void test_admin_takes_registration(void);
void test_rejudged_at_exec(void);
void test_rejudged_at_exec_alone(void);
void test_rejudged_dumpable(void);
void test_caps_not_subset(void);
void test_tree_deep_chain(void);
void test_owner_per_userns(void);
void test_container_root_keeps(void);
void test_status_lists_readable(void);
void test_cgroup_opener_ns(void);
void test_name_of_one_user(void);
void test_maps_users(void);

/* t_shared_host.c */
void test_users_beside_root(void);
void test_tree_x_beside_forks(void);
void test_records_beside_root(void);
void test_walks_beside_root(void);
void test_reads_beside_root(void);

/* t_ring.c */
void test_header_fields(void);
void test_classic_protocol(void);
void test_classic_wrap(void);
void test_ring_missed(void);
void test_mmap_checks(void);
void test_ring_unwritable(void);
void test_read_poll(void);

/* t_sampling.c */
void test_sample_rate(void);
void test_fault_accuracy(void);
void test_cpu_accuracy(void);
void test_threads_summed(void);
void test_stat_unchanged(void);
void test_exit_dropped(void);
void test_pid_reuse(void);

/* t_records.c */
void test_records_match_stat(void);
void test_records_exec_name(void);
void test_records_exit(void);
void test_records_thousand(void);
void test_records_slow_reader(void);
void test_records_idle(void);
void test_records_v1_reader(void);
void test_records_system_counters(void);
void test_records_pid_reuse(void);
void test_records_off(void);

/* t_targets.c */
void test_tree_counts_children(void);
void test_tree_after_idle(void);
void test_tree_maps_short_lived(void);
void test_tree_churn(void);
void test_tree_commands(void);
void test_cgroup_follows(void);
void test_cgroup_cpu_matches(void);
void test_targets_pidns(void);
void test_comm_follows(void);

/* t_faults.c */
void test_faults_anon_region(void);
void test_faults_registered_again(void);
void test_faults_threads(void);
void test_faults_unload(void);
void test_faults_exec(void);
void test_faults_storm(void);
void test_faults_perf_agrees(void);
void test_faults_lock_held(void);
void test_faults_swap_in(void);
/* t_pages.c */
void test_pages_swap(void);
void test_pages_swap_target(void);
void test_pages_swap_shmem(void);
void test_pages_swap_cgroup_unmapped(void);
void test_pages_unmapped_unasked(void);
void test_pages_file_refaults(void);
void test_pages_file_evictions(void);
void test_daemon_file_refaults(void);
void test_daemon_file_evictions(void);
void test_pages_swap_shmem_shared(void);
void test_pages_memory_needed(void);

/* t_faults_placed.c */
void test_faults_tree_joiner(void);
void test_faults_comm_joiner(void);
void test_faults_fork_first_tick(void);
void test_faults_fork_server(void);
void test_faults_fork_server_quick(void);
void test_faults_fork_server_exec(void);
void test_faults_fork_unload(void);
void test_faults_exec_layout(void);
void test_faults_pid_reuse(void);
void test_faults_many_mappings(void);
void test_faults_unmapped_before_tick(void);
void test_faults_overlay_file(void);
void test_faults_threads_max(void);

/* t_stalls.c */
void test_stalls_swapping(void);
void test_stalls_threads_exit(void);

/* t_latency.c */
void test_latency_known_waits(void);
void test_latency_per_mapping(void);
void test_latency_opt_in(void);

/* t_tools.c */
void test_work_locality(void);
void test_tool_errors(void);
void test_work_course_defaults(void);
void test_work_registration(void);
void test_handout_literal(void);

/* t_ctl.c */
void test_top_batch(void);
void test_top_json(void);
void test_top_terminal(void);
void test_ctl_without_module(void);
void test_ctl_commands(void);

/* t_daemon_logs.c */
void test_daemon_logs_samples(void);
void test_daemon_wakeups(void);
void test_daemon_rotation(void);
void test_daemon_restart_resumes(void);
void test_daemon_disk_full(void);
void test_daemon_module_reload(void);
void test_daemon_pid_file(void);
void test_daemon_bad_config(void);

/* t_daemon_targets.c */
void test_daemon_tree_kept(void);
void test_daemon_user_comm(void);
void test_daemon_pages_log(void);
void test_daemon_pages_unmapped(void);
void test_daemon_refault_distances(void);
void test_daemon_memory_log(void);
void test_ctl_physical(void);
void test_daemon_faults_tree(void);
void test_daemon_faults_log(void);
void test_daemon_user_budget(void);

/* t_daemon_metrics.c */
void test_daemon_prometheus(void);
void test_daemon_delay_accounting(void);
void test_daemon_latency(void);

/* t_damon.c */
void test_damon_random_hot(void);
void test_damon_target_exit(void);
void test_damon_sliding_window(void);

/* t_heatmap.c */
void test_heatmap_record(void);
void test_heatmap_record_many(void);
void test_heatmap_record_targets(void);
void test_heatmap_record_survives(void);
void test_heatmap_record_rotates(void);

/* t_fuzz.c */
void test_fuzz_status(void);
void test_fuzz_mmap(void);

/* t_storm.c */
void test_storm(void);

#endif /* PFPROF_GUEST_TESTS_H */
