/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mp3: page-fault and CPU-time profiler, user/kernel ABI.
 *
 * This is the only definition of everything user space shares with the
 * mp3.ko module: the control file, the character device and the layout of
 * the two regions that the device maps.
 *
 * Control file /proc/mp3/status
 *   write "R <pid>"   register the process <pid> (a thread-group id)
 *   write "R <pid> maps"
 *                    the same, and its records say in which mappings its
 *                    faults are (version 5, MP3_RECORD_FAULTS); its threads
 *                    get kernel perf counters, so ENOMEM and perf's errors
 *                    are possible too. An administrator's (EPERM for other
 *                    users, unless root set the module parameter
 *                    maps_users), as is "M"
 *   write "R <pid> latency", "R <pid> maps latency"
 *                    the same, and its records say how long its faults
 *                    took (version 8, MP3_RECORD_LATENCY). While any process
 *                    is so registered, every fault on the machine passes a
 *                    kernel return probe: an administrator's only (EPERM
 *                    for other users), as is "L"
 *   write "R <pid> pages"
 *                    the same, and its records say which of its pages it
 *                    sends to swap and takes back (version 10,
 *                    MP3_RECORD_SWAP; version 11: its shared memory's
 *                    too), and which pages of files it reads again after
 *                    reclaim dropped them (version 13, MP3_RECORD_REFAULT).
 *                    While any process is so registered, reclaim, every
 *                    swap-in fault, every page the page cache takes in
 *                    and every file page reclaim evicts on the machine
 *                    pass kernel probes: an administrator's only (EPERM for
 *                    other users), as is "S"; EOPNOTSUPP on a kernel
 *                    without memory cgroups (a swap-out's process is its
 *                    memory map's owner, which they keep); the errors of
 *                    register_kprobe() and tracepoint_probe_register()
 *                    (ENOENT: this kernel lacks a hook the trace needs)
 *   write "U <pid>"   unregister it (its registrant's owner, or an
 *                    administrator; see Owners below)
 *   write "T <pid> <target>"
 *                    register the process <pid> and its tree: its
 *                    descendants now, and every process forked in the tree
 *                    from then on, from the fork on; their records carry
 *                    <target> (1 .. 2^31 - 1, the registrar's own number)
 *   write "C <cgroup-id> <target>"
 *                    register every process in the cgroup v2 directory
 *                    whose id is <cgroup-id> (its inode number under
 *                    /sys/fs/cgroup) or below it, now and whenever one is
 *                    forked or moved there; one moved out leaves. Their
 *                    records carry <target>
 *   write "N <target> <comm>"
 *                    register every process whose command name (comm, as
 *                    in /proc/<pid>/comm: 1 to 15 bytes, the rest of the
 *                    line) is <comm>, now, at its fork and at an exec that
 *                    gives it that name; one renamed (an exec of another
 *                    program, prctl(PR_SET_NAME)) leaves. A process renamed
 *                    to <comm> without an exec joins at its next exec only.
 *                    Their records carry <target>
 *   write "P <target> <uid> <comm>"
 *                    as "N", but only the processes whose real uid is <uid>
 *                    (0 .. 2^32 - 2, as the opener's user namespace numbers
 *                    users; EINVAL for one it does not map) join, and leave
 *                    when the name no longer fits: another user's program
 *                    of that name does not, whoever's target it is. The uid
 *                    is judged where the name is (registration, fork,
 *                    exec, rename, cgroup move). Version 9; an older module
 *                    answers EINVAL
 *   write "X <target>"
 *                    unregister every process of <target>, and its cgroup
 *                    or name
 *   write "M <target>"
 *                    the records of <target>'s processes, present and
 *                    future, say in which mappings their faults are, as
 *                    "R <pid> maps" does for one process, until the target
 *                    is unregistered; judged like "X" (the target's owner
 *                    or an administrator; each process is judged as its
 *                    counters are attached). A process that joins later
 *                    gets its counters at the next sample: the faults it
 *                    took until then are in an MP3_MAPPING_UNRESOLVED
 *                    record. ENOENT: <target> has no process, cgroup nor
 *                    name; ENOMEM and perf's errors as for "R <pid> maps",
 *                    the processes without counters being tried again at
 *                    each sample
 *   write "L <target>"
 *                    the records of <target>'s processes, present and
 *                    future, say how long their faults took, as "R <pid>
 *                    latency" does for one process, until the target is
 *                    unregistered; judged like "M". ENOENT: <target> has no
 *                    process, cgroup nor name; ENOMEM: no memory for the
 *                    probe or a process's times (one that joins later
 *                    without that memory has none: its faults are not
 *                    timed); the errors of register_kretprobe() (EOPNOTSUPP: a kernel
 *                    without kprobes); the same for "R <pid> latency"
 *   write "S <target> [charged]"
 *                    the records of <target>'s processes, present and
 *                    future, say which of their pages they send to swap and
 *                    take back, as "R <pid> pages" does for one process,
 *                    until the target is unregistered; judged like "M"
 *                    (version 10; an older module answers EINVAL). With
 *                    "charged" (version 13; an older module answers
 *                    EINVAL), a cgroup's target also gets the page events
 *                    of no process of the pages charged to the cgroup: its
 *                    shmem that reclaim writes out while no traced process
 *                    maps it (MP3_RECORD_CGROUP_SWAP), its file pages that
 *                    reclaim evicts (MP3_RECORD_CGROUP_EVICT), below.
 *                    EINVAL: <target> is not a cgroup's; EBUSY: it has
 *                    pages without "charged" ("X" it first); ENOENT: the
 *                    kernel has no __filemap_remove_folio() to probe
 *   read             registered PIDs, one per line
 *   PIDs are numbered in the PID namespace of the /proc mount the file was
 *   opened through, as /proc/<pid> of that mount numbers them.
 *   One command per write(); leading/trailing white space is ignored.
 *   Commands are judged by the credentials of whoever opened the file, not
 *   of whoever writes to it (as proc's own files do).
 *   Errors: EINVAL malformed or longer than MP3_STATUS_MAX_WRITE bytes,
 *   ESRCH no such process, EPERM the opener may not read that process
 *   (ptrace read rules; U, X, M, L: it does not own it), EEXIST already
 *   registered, ENOENT not registered (X: no process, cgroup nor name of
 *   that target; C: no such cgroup, or one outside the cgroup namespace of
 *   the opener or of the writer), EEXIST (C, N, P: that cgroup or name has
 *   that target already), EBUSY (C, N, P: another cgroup or name has that
 *   target: "X" it first; T, C, N, P: another owner has that target), ENOSPC
 *   (C: MP3_CGROUPS_MAX cgroups are followed already, N: MP3_COMMS_MAX
 *   names; for a user not an administrator, MP3_GROUPS_PER_USER of the
 *   kind, or users together hold all but MP3_GROUPS_RESERVED), EAGAIN
 *   ("R <pid> maps", "M": a process needed counters for more threads in
 *   one go than the module's maps_threads_max parameter, 8192 by default,
 *   allows, or kept creating threads while they were made; "R" is
 *   refused, "M" makes the rest at the next samples), EINTR ("R <pid>
 *   maps", "M": the writer was killed while counters were made; T, C, N:
 *   while the processes were looked at, the root or group staying added).
 *   Owners: what a command registers belongs to its opener. Administrators
 *   (CAP_SYS_PTRACE over the initial user namespace: root, pfprofd) are
 *   one owner, every other user (by fs uid) another. Only a target's owner,
 *   or an administrator, ends it (U, X) or changes it (M); a user's T, C or
 *   N of a number another owner has fails with EBUSY, while an
 *   administrator's ends the user's target and takes the number.
 *   A process matching several cgroups and names joins, of those whose
 *   opener may read it, an administrator's first, then the one added
 *   first. An administrator's group takes a process from a user's
 *   registration (R, T, C, N) when it is added, or when the process moves
 *   or execs into it.
 *   Every registration is judged by its opener's credentials as they were
 *   at the command, again whenever its process may have changed: at an
 *   exec (setuid, not dumpable), and at each sample that visits it
 *   (PR_SET_DUMPABLE, setuid()); a process that became unreadable to its
 *   opener leaves, counted in the header's follow_skipped, and none of its
 *   faults from then on is placed in a mapping. A tree's descendants are
 *   judged like its root. Later judgements know one capability only:
 *   CAP_SYS_PTRACE over the initial user namespace, judged at the command;
 *   without it, only the opener's own dumpable processes that hold no
 *   capability it lacked stay. A child the module has no memory for is
 *   counted in follow_missed.
 *
 * Character device (major MP3_CHRDEV_MAJOR, minor 0, /dev/mp3) and mmap:
 *   offset MP3_CLASSIC_OFFSET  the classic region (read-write, see below)
 *   offset MP3_RING_OFFSET     the versioned region (read-only)
 *   A mapping must start at a region's offset and must not extend past its
 *   end; anything else fails with EINVAL. Asking for write access to the
 *   versioned region fails with EPERM.
 *   read() of 8 bytes returns the versioned header's head and remembers it
 *   for this open file; poll() reports EPOLLIN while head is beyond the
 *   value last read. read() blocks until that is so, or fails with EAGAIN
 *   under O_NONBLOCK.
 *
 * Every sample covers one sampling period and holds the sums, over all
 * registered processes and all their threads, of what happened in it.
 * From version 2 the versioned region also carries, per sample, one record
 * per registered process (struct mp3_proc_record) and the system-wide
 * paging counters; from version 4, with MP3_RING_ACTIVE_ONLY, one per
 * process that may have changed in the period.
 */
#ifndef _UAPI_LINUX_MP3_H
#define _UAPI_LINUX_MP3_H

#include <linux/types.h>

#define MP3_PROC_DIR		"mp3"
#define MP3_PROC_STATUS		"status"
#define MP3_STATUS_PATH		"/proc/mp3/status"
#define MP3_STATUS_MAX_WRITE	64
/* Cgroups ("C") and names ("N") followed at once: every fork and exec looks at each. */
#define MP3_CGROUPS_MAX		256
#define MP3_COMMS_MAX		256
/*
 * Of each kind, what one user without CAP_SYS_PTRACE over the initial user
 * namespace may follow, and what is kept for those with it (root, pfprofd)
 * whatever the others follow.
 */
#define MP3_GROUPS_PER_USER	16
#define MP3_GROUPS_RESERVED	64

#define MP3_CHRDEV_MAJOR	423
#define MP3_CHRDEV_MINOR	0
#define MP3_DEVICE_NAME		"mp3"
#define MP3_DEVICE_PATH		"/dev/mp3"

/*
 * Classic region: MP3_CLASSIC_SAMPLES samples of four unsigned longs in
 * MP3_CLASSIC_PAGES pages (4 KiB pages: MP3_CLASSIC_SIZE bytes). Every slot
 * starts as all ones (-1). Sample n goes to slot n % MP3_CLASSIC_SAMPLES;
 * its jiffies field is stored last, after a write barrier, so a reader that
 * sees a jiffies value other than -1 sees the whole sample. Readers may
 * write -1 back into slots they consumed; the kernel never reads this region.
 */
#define MP3_CLASSIC_OFFSET	0
#define MP3_CLASSIC_SAMPLES	12000
#define MP3_CLASSIC_PAGES	128
#define MP3_CLASSIC_SIZE	(MP3_CLASSIC_PAGES * 4096)
#define MP3_CLASSIC_EMPTY	(~0UL)

struct mp3_classic_sample {
	__kernel_ulong_t jiffies;	/* jiffies when the sample was taken */
	__kernel_ulong_t minor_faults;	/* minor faults in the period */
	__kernel_ulong_t major_faults;	/* major faults in the period */
	__kernel_ulong_t cpu_jiffies;	/* utime + stime in the period */
};

/*
 * Versioned region, mapped read-only at MP3_RING_OFFSET: struct
 * mp3_ring_header at byte 0, then hdr->capacity samples of hdr->sample_size
 * bytes starting at byte hdr->data_offset. Map hdr->region_size bytes.
 *
 * Compatibility: a reader built for version V may use the region when
 * magic == MP3_RING_MAGIC and compat_version <= V. Newer versions only add
 * fields at the end of the header or of a sample (sample_size grows).
 *
 * Reader protocol (single writer, any number of readers):
 *  1. h = load-acquire(hdr->head): samples 0 .. h-1 have been published.
 *  2. Sample n lives in slot n % capacity. Samples before h - capacity have
 *     been overwritten: a reader whose next wanted sample is t < h - capacity
 *     missed (h - capacity - t) samples and continues from h - capacity.
 *  3. To copy sample n: s1 = load-acquire(slot->seq); copy the slot;
 *     read barrier; s2 = slot->seq. The copy is valid only if
 *     s1 == s2 == n; otherwise the writer lapped the reader during the copy
 *     and sample n is missed too.
 *  4. load_id changes whenever the module is loaded: positions saved under
 *     another load_id are meaningless.
 * The writer stores seq = MP3_SEQ_WRITING, write barrier, the sample, then
 * store-release seq = n, then store-release head = n + 1.
 *
 * Version 2 (compat_version stays 1: a version 1 reader sees the same
 * header and samples, only longer) adds per-process records. They live in a
 * second ring of the same region: hdr->record_capacity slots of
 * hdr->record_size bytes from byte hdr->record_offset, numbered by
 * hdr->record_head like the samples by hdr->head. Sample n names its records
 * first_record .. first_record + nr_records - 1, written (each with the
 * seq protocol above, its seq being the record's number) before sample n is
 * published; a record whose seq or sample field is not what the reader
 * expects was overwritten and is lost. Kernel memory is fixed whatever the
 * number of processes: one process costs one record per sample, and a reader
 * that falls more than record_capacity records behind loses the oldest, as
 * it loses samples. Why fixed slots in a second ring rather than records
 * inside the samples: a sample keeps one size (version 1 readers index
 * slots by it) while the number of processes varies from 0 to thousands.
 * A process's name (comm) is sent as an MP3_RECORD_COMM record when it is
 * registered and when it changes (exec); MP3_RECORD_COUNTS records carry
 * the counters of every sample. A module loaded with records=off writes no
 * records: nr_records is 0 in every sample.
 *
 * Version 3 appends target to the records (record_size grows; a reader
 * takes record_size from the header and, from a version 2 module, reads
 * target as 0) and counts in follow_skipped and follow_missed the
 * processes of trees it could not follow. A process's last period, up to
 * its exit, is in the sample after it exits, even if its parent has reaped
 * it by then.
 *
 * Version 4 adds header flags. With MP3_RING_ACTIVE_ONLY (the module's
 * default, sampler=events) a sample visits only the processes that may
 * have changed in its period: those a thread of which was runnable or
 * running. A registered process without a counts record in a sample did
 * nothing in it (all its counts are 0); it has no record at all while it
 * sleeps, and nr_procs counts the processes visited. Each process still
 * gets its MP3_RECORD_COMM record (and counts) in the first sample after it
 * is registered, and an MP3_RECORD_LEFT record when it leaves (exits, is
 * unregistered, leaves its group), after its last counts: readers know the
 * registered processes from those two. A reader that lost records may
 * have lost a LEFT one: the process's absence from /proc tells then. As a
 * version 3 reader would take a process without records for gone,
 * compat_version is 4 with this flag; without it (sampler=visit) the ring
 * is as version 3 describes (compat_version 1) and has no LEFT records.
 *
 * Readers skip records of a type they do not know: a version adds types
 * without changing compat_version.
 *
 * Version 5 says where the faults of a process registered with "R <pid>
 * maps", or of a target given "M", are: per sample, MP3_RECORD_FAULTS
 * records of the mappings it took faults in since the last sample, with
 * the mapping's first address, its kind (MP3_MAPPING_*, in the record's
 * mapping field) and its file's inode, as /proc/<pid>/maps shows them at
 * the time of the sample; a mapping may have several records in one
 * sample, to be added up. A fault may be in the faults records of a later
 * sample than the one whose counts record counts it: the next, or up to 20
 * later while a writer holds the process's mmap lock at the samples
 * between; the sums agree over samples that end that long after the
 * process's last fault. Faults the sampler could not place (the address
 * space busy for 20 samples or gone, the address unmapped since, taken
 * in a memory map the process no longer has (before an exec, or by an
 * earlier process with the same PID: a fault is placed only in the map it
 * was taken in), or taken by a process that joined a target with "M"
 * before its counters (one forked into it makes them on its way to its
 * first instruction, others get them at the next sample)) are in a record
 * of kind MP3_MAPPING_UNRESOLVED, start 0. The memory map of a process
 * with counters is held until the sample after it exits, so that its last
 * faults are placed too.
 * The faults are those the kernel's software perf events see: every fault
 * counted in the COUNTS records except those taken on behalf of the process
 * without its registers (get_user_pages(): /proc/<pid>/mem,
 * process_vm_readv(), ptrace, some O_DIRECT and futex paths), and those a
 * thread created during the registration, or a process while its counters
 * are being created, takes before they count. faults_dropped counts those
 * lost because a CPU's buffer was full, because more than 4096 processes
 * took faults in one period, or because a fault waited for the mmap lock of
 * a process that left meanwhile. See docs/design/faults.md.
 *
 * Version 6 bounds the faults records of one process in one sample: at
 * most MP3_FAULT_RECORDS_MAX, its unresolved record included, whatever the
 * number of mappings it faulted in, so that one process cannot fill the
 * record ring and overwrite the other processes' records. The faults of
 * the mappings past the bound are added to its MP3_MAPPING_UNRESOLVED
 * record and counted in the header's faults_summed (0 from a version 5
 * module, whose header has no such field). A process's unresolved faults
 * are in one record per sample, after its other faults records, and in a
 * second in the sample that creates the counters of a process that
 * joined a target with "M" (those it took before them).
 *
 * Version 7 says how long the processes waited for memory and for block
 * I/O: with MP3_RING_STALLS (the kernel has delay accounting,
 * CONFIG_TASK_DELAY_ACCT), each MP3_RECORD_COUNTS record carries the time
 * its process's threads, exited ones included, spent in each kind of wait
 * during the sample's period (struct mp3_stalls), and each sample their
 * sums. The kernel measures them only while delay accounting is on (the
 * sysctl kernel.task_delayacct, or the boot parameter delayacct; off by
 * default since Linux 5.14): a reader that finds it off knows the times of
 * that while as unknown, not as none. They are the waits taskstats reports
 * for the same threads (its *_delay_total fields, what getdelays(8)
 * prints), counted from the process's registration, in whole microseconds
 * of the running sums, so that no rounding adds up over samples. A
 * process's threads each add their own waits: the sum can exceed the
 * period. Without the flag (a kernel without delay accounting, or a module
 * before version 7) the fields are absent or 0 and mean nothing.
 *
 * Version 8 says how long the faults of a process registered with "R <pid>
 * latency", or of a target given "L", took: from the entry into the
 * kernel's fault handler (handle_mm_fault()) to its return, the attempts
 * of one fault added up (a fault that waits for a page lock or for I/O
 * without the mmap lock returns VM_FAULT_RETRY and is handled again: the
 * wait is in the first attempt, the count in the last). Per sample, one
 * MP3_RECORD_LATENCY record per kind (minor, major as the counts records
 * tell them apart) and bucket of duration in which the process completed
 * faults in the sample's period, after its counts record; none for a
 * process that completed none. Bucket b holds the faults that took less
 * than 2^(MP3_LATENCY_SHIFT + b) ns and, but for bucket 0, at least half
 * that; the last bucket, MP3_LATENCY_BUCKETS - 1, also all longer ones.
 * The faults timed are those the counts records count (faults taken on
 * the process's behalf by get_user_pages() included), once the
 * registration is in place; a fault in flight at a sample may be timed in
 * the next one's records while its count is in this one's: the sums
 * agree over samples. Faults that find the probe's room full (the
 * module's latency_active parameter: timed faults in flight at once) are
 * not timed; the header's latency_missed counts them, those of processes
 * not timed too: an upper bound.
 * A process with both latency and maps ("R <pid> maps latency", or a
 * target given "M" and "L") has, in its MP3_RECORD_FAULTS records, the
 * time its faults in each mapping took (fault_time, in the place of the
 * stalls, which counts records only carry): the faults placed there whose
 * time was joined to their place. A fault is timed when the fault handler
 * returns and placed from the perf event raised just before; a thread
 * moved to another CPU between the two leaves the fault's time out of its
 * mapping's (it is in the process's MP3_RECORD_LATENCY records all the
 * same).
 *
 * Version 9 bounds what each owner's registrations write into the record
 * ring, so that no user overwrites another owner's records: in one sample,
 * the processes a user who is not an administrator registered (with every
 * registration of the user namespaces that user made: see Owners above)
 * write at most the module's records_per_user parameter (1024 by default)
 * of records, and all users together at most MP3_USERS_RECORDS; the
 * records of administrators' registrations are not bounded. A reader that
 * keeps within record_capacity / MP3_USERS_RECORDS samples (32) of the
 * head, less what administrators' registrations write, loses no record
 * whatever users register. A record past a bound is not written: it is
 * counted in the header's records_dropped and, per owner, in an
 * MP3_RECORD_DROPPED record of the same sample (tgid and target 0,
 * dropped.records), written after the sample's other records. Records
 * also say whose they are: owner, the user who pays for the process's
 * registration as numbered in the initial user namespace, and flags
 * (MP3_RECORD_ADMIN: an administrator's registration; owner is then 0),
 * and the faults records the device of the mapping's file (dev), which
 * with the inode names one file.
 * At most MP3_DROPPED_OWNERS owners are told apart in one sample; the
 * records dropped of the others are in one more MP3_RECORD_DROPPED record
 * whose owner is MP3_OWNER_OTHERS. Readers of an older version skip the
 * new type, and see every other record as before.
 *
 * Version 10 says which pages a process registered with "R <pid> pages",
 * or of a target given "S", sends to swap and takes back: an
 * MP3_RECORD_SWAP record per event, written at the first sample after
 * it, a sample's in the order of their time_ns (since version 11; version
 * 10 wrote each CPU's in turn, so that a page's swap-out on one CPU could
 * follow its swap-in on another). A swap-out (MP3_SWAP_OUT) is a page of the process that reclaim
 * unmapped from it and wrote out (to the device, to zswap, or, since
 * 6.12, noted as zero-filled without a write): the events are those of
 * the kernel's mm_vmscan_write_folio tracepoint, each given to the
 * processes that mapped the page when reclaim unmapped it, one record
 * each, but one per target: of the processes of one target that mapped
 * it, the first gets the record (since version 11; version 10 gave each
 * one). A swap-in (MP3_SWAP_IN) is a fault of the process on a page it
 * had in swap, with MP3_SWAP_READ when the fault read the page (from the
 * device, zswap or the zero map: the kernel's major faults of the kind)
 * rather than finding it still in memory, in the swap cache. Both say the
 * page's slot (swap.device, the kernel's index of the swap area as
 * swapon gave it, and swap.offset, its page within it: a page written
 * out and read back has the same slot in both), the virtual page
 * (swap.address, in the process's memory map at the time; 0 where not
 * known), the time (swap_time.time_ns, CLOCK_MONOTONIC) and the pages
 * (swap_time.pages: 1, more for a large folio); a swap-in, the time the
 * faulting thread spent in the swap fault (swap_time.stall_ns, its
 * attempts added up as for latency). The mapping field says which
 * memory: MP3_MAPPING_ANON (private anonymous), or since version 11
 * MP3_MAPPING_SHMEM (tmpfs, memfd, SysV, shared anonymous: version 10
 * traced anonymous pages only; a version 10 reader that does not look at
 * mapping counts these with the others, as the process's swap events
 * they are). A shmem page that no traced process maps when it is written
 * out has no swap-out (version 13: but a followed cgroup's, below); nor
 * has a page reclaim frees without a write (read
 * back earlier and unchanged, its copy in swap still good: the kernel's
 * pswpout does not count it either), whose next swap-in reads the slot
 * again. Events the module could not keep (its per-CPU
 * room for a sample's events full, or the process gone before the sample)
 * are counted in the header's swap_dropped.
 *
 * Version 12 raises version 6's bound from 64 faults records of a process
 * in a sample to 256, and says it in the header (fault_records_max; 0
 * from an older module, whose bound is 64). A process forked from a large
 * program (Apache's workers, PostgreSQL's backends) takes its first
 * faults in the code and data of every library and module it runs, over
 * 64 mappings in its first sample: the faults past the bound were summed
 * as unresolved. A reader never sized anything by the bound; one that
 * checks it takes the header's.
 *
 * Version 13 says, for the same processes, which pages of files they read
 * again after reclaim had dropped them from the page cache: an
 * MP3_RECORD_REFAULT record per refault (the kernel's
 * workingset_refault_file), given to the process whose thread brought the
 * page back (by a fault, read(2) or the readahead either started), written
 * at the first sample after it in time order with the swap events. It
 * says the file (refault.inode, and the record's dev as for
 * MP3_RECORD_FAULTS: the file's own, as stat(2) of the file gives them;
 * for a file of overlayfs, its upper or lower file's), the page
 * (refault.index: its offset in the file in pages), the time
 * (swap_time.time_ns) and the pages (swap_time.pages: 1, more for a large
 * folio); mapping is MP3_MAPPING_FILE; swap_time.stall_ns is 0 (the
 * read's time is not measured here). Refaults the module could not keep
 * are counted in swap_dropped. Readers of an older version skip the new
 * type, and see every other record as before.
 *
 * Version 13 also gives a followed cgroup given "S <target> charged" ("C"
 * then "S") the page events of no process of the pages charged to it.
 * The shmem pages that reclaim writes out while none of the traced
 * processes maps them (a database's shared buffer that no backend had
 * mapped lately, as version 11 left without a swap-out): an
 * MP3_RECORD_CGROUP_SWAP record each, laid out as an MP3_RECORD_SWAP
 * swap-out (MP3_SWAP_OUT, the slot, MP3_MAPPING_SHMEM, the time and
 * pages), of no process (tgid 0, swap.address 0), its target the
 * cgroup's; of the followed cgroups holding the page's, the first added.
 * Its page's swap-in, when a process faults it back, is an MP3_RECORD_SWAP
 * record from the same slot. The pages of its files that reclaim evicts
 * from the page cache, leaving the shadow a refault finds: an
 * MP3_RECORD_CGROUP_EVICT record each, laid out as an MP3_RECORD_REFAULT
 * (the file, the page, the time and pages, MP3_MAPPING_FILE), of no
 * process, its target the cgroup's. A page read again after it is an
 * MP3_RECORD_REFAULT of the same file and page: how long it was away, and
 * the cgroup's evictions between (swap-outs and evicted file pages), its
 * refault distance. A page of a cgroup whose "S" ended before the record
 * was written is counted in swap_dropped. Such records come only
 * when a reader asked for them with "charged", which a reader of an older
 * version never writes: libpfprof of version 12 and older takes every
 * record's tgid for a process's, and would make a process 0 of each. A
 * reader takes only the record types it knows as records of a process,
 * and no record of tgid 0 (libpfprof does since version 13).
 */
#define MP3_RING_OFFSET		0x10000000UL
#define MP3_RING_MAGIC		0x5233504dU	/* "MP3R" little-endian */
#define MP3_RING_VERSION	13
#define MP3_RING_COMPAT_VERSION	1
/* The compat_version of a ring with MP3_RING_ACTIVE_ONLY. */
#define MP3_RING_ACTIVE_ONLY_COMPAT_VERSION	4

/* Header flags (version 4). */
#define MP3_RING_ACTIVE_ONLY	0x1	/* records only for processes that may have changed */
/* Version 7: counts records and samples carry the waits of struct mp3_stalls. */
#define MP3_RING_STALLS		0x2
#define MP3_RING_CAPACITY	16384
#define MP3_RECORD_CAPACITY	131072
#define MP3_SEQ_WRITING		(~0ULL)

struct mp3_ring_header {
	__u32 magic;
	__u16 version;
	__u16 compat_version;
	__u64 load_id;		/* random, changes at every module load */
	__u32 header_size;	/* sizeof(struct mp3_ring_header) */
	__u32 sample_size;	/* sizeof(struct mp3_ring_sample) */
	__u32 data_offset;	/* byte offset of slot 0 from the region start */
	__u32 capacity;		/* number of slots, a power of two */
	__u64 region_size;	/* bytes to map at MP3_RING_OFFSET */
	__u64 period_ns;	/* sampling period */
	__u32 hz;		/* the kernel's HZ, to interpret jiffies */
	__u32 flags;		/* version 4: MP3_RING_*; 0 before */
	__u64 head;		/* samples ever published; store-release */
	/* Sampler cost, updated after each published sample. */
	__u64 sampler_ticks;	/* work handler runs that took a sample */
	__u64 sampler_ns_total;	/* time spent in them */
	__u64 sampler_ns_last;
	__u64 sampler_ns_max;
	/* Version 3: processes of trees ("T") not followed, since load. */
	__u64 follow_skipped;	/* the opener may not read them */
	__u64 follow_missed;	/* no memory for them at their fork */
	/* Version 5: faults of "maps" registrations not placed, a CPU's buffer full. */
	__u64 faults_dropped;
	/* Version 6: faults summed in an unresolved record, MP3_FAULT_RECORDS_MAX reached. */
	__u64 faults_summed;
	/* Version 8: faults of "latency" registrations not timed, the probe full. */
	__u64 latency_missed;
	/* Version 9: records not written, their owner past its bound. */
	__u64 records_dropped;
	/* Version 10: swap events not written (see above). */
	__u64 swap_dropped;
	__u64 reserved[9];
	/* Version 2: the ring of per-process records. */
	__u32 record_offset;	/* byte offset of record slot 0 from the region start */
	__u32 record_size;	/* sizeof(struct mp3_proc_record) */
	__u32 record_capacity;	/* number of record slots, a power of two */
	__u32 fault_records_max;	/* version 12: MP3_FAULT_RECORDS_MAX; 0 before (64) */
	__u64 record_head;	/* records ever published; store-release */
};

/*
 * Version 7: the time, in microseconds, that threads waited in a sampling
 * period (delay accounting's kinds of delay; see above). A memory stall is
 * the sum of the first four; blkio includes the I/O part of swapin and of
 * thrashing, and every other synchronous read or write too.
 */
struct mp3_stalls {
	__u32 swapin_us;	/* swapping pages in (swapin_delay_total) */
	__u32 thrashing_us;	/* refaulting pages evicted while in use (thrashing_delay_total) */
	__u32 reclaim_us;	/* direct reclaim by the allocator (freepages_delay_total) */
	__u32 compact_us;	/* direct compaction (compact_delay_total) */
	__u32 blkio_us;		/* synchronous block I/O (blkio_delay_total) */
	__u32 reserved;
};

struct mp3_ring_sample {
	__u64 seq;		/* n for sample n; MP3_SEQ_WRITING while written */
	__u64 time_ns;		/* CLOCK_MONOTONIC when taken */
	__u64 jiffies;
	__u64 minor_faults;	/* in this period */
	__u64 major_faults;	/* in this period */
	__u64 cpu_ns;		/* utime + stime in this period */
	__u64 minor_total;	/* running sums of the three deltas since load */
	__u64 major_total;
	__u64 cpu_ns_total;
	__u32 nr_procs;		/* processes summed into this sample (visited) */
	__u32 reserved;
	/* Version 2. */
	__u64 first_record;	/* number of this sample's first record */
	__u32 nr_records;	/* how many records it has */
	__u32 reserved2;
	/* The whole system's counters since boot (/proc/vmstat), at this sample. */
	__u64 pgmajfault;
	__u64 pswpin;		/* pages swapped in */
	__u64 pswpout;		/* pages swapped out */
	/* Version 7, with MP3_RING_STALLS: the records' stalls summed. */
	struct mp3_stalls stalls;
};

#define MP3_RECORD_COUNTS	1	/* counters of one process in one sample */
#define MP3_RECORD_COMM		2	/* the name of a process, before its counts */
#define MP3_RECORD_LEFT		3	/* version 4, MP3_RING_ACTIVE_ONLY: it left */
#define MP3_RECORD_FAULTS	4	/* version 5: its faults in one mapping */
#define MP3_RECORD_LATENCY	5	/* version 8: its faults of one kind and duration */
#define MP3_RECORD_DROPPED	6	/* version 9: an owner's records not written */
#define MP3_RECORD_SWAP		7	/* version 10: a page to swap or back */
#define MP3_RECORD_REFAULT	8	/* version 13: a file's page read again */
#define MP3_RECORD_CGROUP_SWAP	9	/* version 13: a cgroup's page to swap, no process's */
#define MP3_RECORD_CGROUP_EVICT	10	/* version 13: a cgroup's file page evicted, no process's */

/* Version 10, an MP3_RECORD_SWAP record's swap.event. */
#define MP3_SWAP_OUT		1	/* written out, unmapped from the process */
#define MP3_SWAP_IN		2	/* faulted in by the process */
#define MP3_SWAP_READ		0x100	/* with MP3_SWAP_IN: the fault read it */
/* Version 6: MP3_RECORD_FAULTS records of one process in a sample, at most (64 before 12). */
#define MP3_FAULT_RECORDS_MAX	256

/* Version 9: records of users' registrations in one sample, at most, all users together. */
#define MP3_USERS_RECORDS	4096
/* Owners with an MP3_RECORD_DROPPED record of their own in one sample, at most. */
#define MP3_DROPPED_OWNERS	64
#define MP3_OWNER_OTHERS	(~0U)
/* Version 9, a record's flags. */
#define MP3_RECORD_ADMIN	0x1	/* an administrator's registration */

/*
 * Version 8, MP3_RECORD_LATENCY: the durations' buckets, by powers of two
 * of nanoseconds. Bucket b's upper bound is 2^(MP3_LATENCY_SHIFT + b) ns,
 * 512 ns for bucket 0, about 2.1 s for bucket 22; bucket 23 has none.
 */
#define MP3_LATENCY_SHIFT	9
#define MP3_LATENCY_BUCKETS	24

/* What a mapping is (version 5, MP3_RECORD_FAULTS). */
#define MP3_MAPPING_UNRESOLVED	0	/* not placed: see above */
#define MP3_MAPPING_ANON	1	/* private anonymous memory */
#define MP3_MAPPING_HEAP	2	/* [heap] */
#define MP3_MAPPING_STACK	3	/* [stack], the main thread's */
#define MP3_MAPPING_FILE	4	/* a file not in memory only: a major fault reads it */
#define MP3_MAPPING_SHMEM	5	/* tmpfs, memfd, SysV, shared anonymous: major = swap-in */

struct mp3_proc_record {
	__u64 seq;		/* n for record n; MP3_SEQ_WRITING while written */
	__u64 sample;		/* seq of the sample it belongs to */
	__u32 tgid;		/* the process, as numbered in the initial PID namespace */
	__u32 type;		/* MP3_RECORD_* */
	union {
		struct {
			__u64 minor_faults;	/* in the sample's period */
			__u64 major_faults;
			__u64 cpu_ns;		/* utime + stime */
		} counts;
		char comm[24];	/* NUL-terminated, the task's comm */
		/* Version 5. */
		struct {
			__u64 start;		/* the mapping's first address; 0: not placed */
			__u64 inode;		/* its file's inode number; 0: none */
			__u32 minor_faults;	/* in the sample's period, in this mapping */
			__u32 major_faults;
		} faults;
		/* Version 8. */
		struct {
			__u64 time_ns;		/* the time they took, summed */
			__u32 faults;		/* completed in the sample's period */
			__u16 bucket;		/* 0 .. MP3_LATENCY_BUCKETS - 1 */
			__u16 major;		/* 1: major faults, 0: minor */
			__u64 reserved;
		} latency;
		/* Version 9. */
		struct {
			__u64 records;		/* of owner, in this sample */
		} dropped;
		/* Version 10. */
		struct {
			__u64 address;		/* the virtual page; 0: not known */
			__u64 offset;		/* the page's slot in its swap area */
			__u32 device;		/* the swap area (the kernel's swap type) */
			__u32 event;		/* MP3_SWAP_OUT, MP3_SWAP_IN [| MP3_SWAP_READ] */
		} swap;
		/* Version 13: MP3_RECORD_REFAULT, MP3_RECORD_CGROUP_EVICT. */
		struct {
			__u64 inode;		/* the file's inode number */
			__u64 index;		/* the page in the file: its offset / page size */
			__u64 reserved;
		} refault;
	};
	/* Version 3. */
	__u32 target;		/* the tree ("T") the process belongs to; 0: none */
	/* Version 5: MP3_MAPPING_* in MP3_RECORD_FAULTS records, 0 in the others. */
	__u32 mapping;
	union {
		/* Version 7, with MP3_RING_STALLS: in MP3_RECORD_COUNTS records. */
		struct mp3_stalls stalls;
		/*
		 * Version 8: in MP3_RECORD_FAULTS records of a process with
		 * latency, the time its faults in the mapping took.
		 */
		struct {
			__u64 minor_ns;
			__u64 major_ns;
			__u64 reserved;
		} fault_time;
		/* Version 10: in MP3_RECORD_SWAP records; version 13: the page records. */
		struct {
			__u64 time_ns;		/* CLOCK_MONOTONIC at the event */
			__u64 stall_ns;		/* a swap-in: the faulting thread's */
			__u64 pages;		/* 1, or a large folio's */
		} swap_time;
	};	/* 0 in the other records */
	/* Version 9: whose registration wrote it (see above). */
	__u32 owner;
	__u32 flags;		/* MP3_RECORD_ADMIN */
	/*
	 * Version 9, in MP3_RECORD_FAULTS records: the device of the mapping's
	 * file as stat(2)'s st_dev and /proc/<pid>/maps give it (makedev(3) of
	 * its major and minor); 0 without a file and in the other records.
	 * Version 13: in MP3_RECORD_REFAULT and _CGROUP_EVICT records, the file's device.
	 */
	__u32 dev;
	__u32 reserved2;
};

/* The size of a version 2 record, which has no target. */
#define MP3_PROC_RECORD_V2_SIZE	48

#endif /* _UAPI_LINUX_MP3_H */
