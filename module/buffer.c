// SPDX-License-Identifier: GPL-2.0
/*
 * The sample buffer: one vmalloc() area that user space maps.
 *
 *   [0, MP3_CLASSIC_SIZE)            classic region, read-write for users
 *   [MP3_CLASSIC_SIZE, + ring size)  versioned region, read-only for users:
 *                                    header page, the ring of samples, then
 *                                    the ring of per-process records
 *
 * User space may write anything into the classic region, so the kernel only
 * ever stores into the buffer; the positions and totals it needs live in
 * kernel-private variables.
 */
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>

#include "compat.h"
#include "internal.h"

#define MP3_RING_DATA_OFFSET	PAGE_SIZE
#define MP3_RECORD_OFFSET	PAGE_ALIGN(MP3_RING_DATA_OFFSET + \
				MP3_RING_CAPACITY * sizeof(struct mp3_ring_sample))
#define MP3_RING_SIZE		PAGE_ALIGN(MP3_RECORD_OFFSET + \
				MP3_RECORD_CAPACITY * sizeof(struct mp3_proc_record))
#define MP3_BUFFER_SIZE		(MP3_CLASSIC_SIZE + MP3_RING_SIZE)

static_assert((MP3_RING_CAPACITY & (MP3_RING_CAPACITY - 1)) == 0);
static_assert((MP3_RECORD_CAPACITY & (MP3_RECORD_CAPACITY - 1)) == 0);
static_assert(sizeof(((struct mp3_proc_record *)0)->comm) >= TASK_COMM_LEN);
static_assert(offsetof(struct mp3_proc_record, target) == MP3_PROC_RECORD_V2_SIZE);
static_assert(sizeof(struct mp3_ring_header) <= MP3_RING_DATA_OFFSET);
static_assert(MP3_CLASSIC_SAMPLES * sizeof(struct mp3_classic_sample) <=
	      MP3_CLASSIC_SIZE);
static_assert(PAGE_ALIGNED(MP3_CLASSIC_SIZE));

static void *mp3_buffer;
static struct mp3_classic_sample *mp3_classic;
static struct mp3_ring_header *mp3_header;
static struct mp3_ring_sample *mp3_ring;
static struct mp3_proc_record *mp3_records;

/*
 * Written under mp3_lock by the single publisher. mp3_published is also
 * read locklessly by readers waiting for new samples.
 */
static u64 mp3_published;
static struct mp3_sample_values mp3_totals;
static u64 mp3_cost_max;
static u64 mp3_records_written;	/* records ever written */
static u64 mp3_sample_records;	/* the first record of the sample being gathered */
static unsigned long mp3_vm_events[NR_VM_EVENT_ITEMS];	/* all_vm_events() */
/* Set at load, before any sample; constant after. */
static bool mp3_records_enabled;
static bool mp3_active_only;
static unsigned int mp3_records_per_user;

/*
 * What users' registrations wrote into the sample being gathered (version
 * 9): per owner, in open addressing, half full at most; the owners past
 * MP3_DROPPED_OWNERS share mp3_others_dropped. Under mp3_lock, emptied as
 * each sample is published.
 */
struct mp3_owner_budget {
	u32 owner;
	bool used;
	unsigned int written;
	u64 dropped;
};

#define MP3_BUDGET_SLOTS	(2 * MP3_DROPPED_OWNERS)
static_assert((MP3_BUDGET_SLOTS & (MP3_BUDGET_SLOTS - 1)) == 0);

static struct mp3_owner_budget mp3_budgets[MP3_BUDGET_SLOTS];
static unsigned int mp3_budgets_used[MP3_DROPPED_OWNERS];
static unsigned int mp3_nr_budgets;
static unsigned int mp3_users_written;	/* all users' records in the sample */
static u64 mp3_others_dropped;
static u64 mp3_records_dropped;		/* since load */

static void mp3_buffer_set_reserved(bool reserved)
{
	unsigned long offset;
	struct page *page;

	/* Reserved pages are left alone by the VM while user space maps them. */
	for (offset = 0; offset < MP3_BUFFER_SIZE; offset += PAGE_SIZE) {
		page = vmalloc_to_page(mp3_buffer + offset);
		if (reserved)
			SetPageReserved(page);
		else
			ClearPageReserved(page);
	}
}

/* Whether the kernel measures the waits of struct mp3_stalls at all. */
static u32 mp3_stalls_flag(void)
{
	return IS_ENABLED(CONFIG_TASK_DELAY_ACCT) ? MP3_RING_STALLS : 0;
}

/* A period's waits; one longer than the field can say (71 minutes) saturates. */
static void mp3_stalls_store(struct mp3_stalls *out, const u64 stall_us[MP3_DELAYS])
{
	out->swapin_us = min_t(u64, stall_us[MP3_DELAY_SWAPIN], U32_MAX);
	out->thrashing_us = min_t(u64, stall_us[MP3_DELAY_THRASHING], U32_MAX);
	out->reclaim_us = min_t(u64, stall_us[MP3_DELAY_RECLAIM], U32_MAX);
	out->compact_us = min_t(u64, stall_us[MP3_DELAY_COMPACT], U32_MAX);
	out->blkio_us = min_t(u64, stall_us[MP3_DELAY_BLKIO], U32_MAX);
	out->reserved = 0;
}

static void mp3_header_init(u64 period_ns, bool active_only)
{
	struct mp3_ring_header *hdr = mp3_header;

	hdr->magic = MP3_RING_MAGIC;
	hdr->version = MP3_RING_VERSION;
	/* Older readers would take a process without records for gone. */
	hdr->compat_version = active_only ? MP3_RING_ACTIVE_ONLY_COMPAT_VERSION :
					    MP3_RING_COMPAT_VERSION;
	hdr->flags = (active_only ? MP3_RING_ACTIVE_ONLY : 0) | mp3_stalls_flag();
	hdr->load_id = get_random_u64();
	hdr->header_size = sizeof(*hdr);
	hdr->sample_size = sizeof(struct mp3_ring_sample);
	hdr->data_offset = MP3_RING_DATA_OFFSET;
	hdr->capacity = MP3_RING_CAPACITY;
	hdr->region_size = MP3_RING_SIZE;
	hdr->period_ns = period_ns;
	hdr->hz = HZ;
	hdr->record_offset = MP3_RECORD_OFFSET;
	hdr->record_size = sizeof(struct mp3_proc_record);
	hdr->record_capacity = MP3_RECORD_CAPACITY;
	hdr->fault_records_max = MP3_FAULT_RECORDS_MAX;
}

int mp3_buffer_create(u64 period_ns, bool records, bool active_only, unsigned int per_user)
{
	mp3_buffer = vzalloc(MP3_BUFFER_SIZE);
	if (!mp3_buffer)
		return -ENOMEM;

	mp3_classic = mp3_buffer;
	mp3_header = mp3_buffer + MP3_CLASSIC_SIZE;
	mp3_ring = (void *)mp3_header + MP3_RING_DATA_OFFSET;
	mp3_records = (void *)mp3_header + MP3_RECORD_OFFSET;

	memset(mp3_classic, 0xff, MP3_CLASSIC_SIZE);
	mp3_header_init(period_ns, active_only);
	mp3_published = 0;
	memset(&mp3_totals, 0, sizeof(mp3_totals));
	mp3_cost_max = 0;
	mp3_records_written = 0;
	mp3_sample_records = 0;
	mp3_records_enabled = records;
	mp3_active_only = active_only;
	mp3_records_per_user = per_user;
	memset(mp3_budgets, 0, sizeof(mp3_budgets));
	mp3_nr_budgets = 0;
	mp3_users_written = 0;
	mp3_others_dropped = 0;
	mp3_records_dropped = 0;

	mp3_buffer_set_reserved(true);
	return 0;
}

void mp3_buffer_destroy(void)
{
	mp3_buffer_set_reserved(false);
	vfree(mp3_buffer);
	mp3_buffer = NULL;
}

u64 mp3_buffer_head(void)
{
	return READ_ONCE(mp3_published);
}

/* Readers of the device waiting for a sample to be published (chardev.c). */
static DECLARE_WAIT_QUEUE_HEAD(mp3_readers);

wait_queue_head_t *mp3_buffer_readers(void)
{
	return &mp3_readers;
}

void mp3_buffer_wake_readers(void)
{
	wake_up_interruptible_poll(&mp3_readers, EPOLLIN | EPOLLRDNORM);
}

/* @owner's budget in this sample, begun if new; NULL once MP3_DROPPED_OWNERS have one. */
static struct mp3_owner_budget *__mp3_owner_budget(u32 owner)
{
	u32 i = hash_32(owner, ilog2(MP3_BUDGET_SLOTS));
	struct mp3_owner_budget *b;

	/* Never more than half full: the walk ends at a free slot. */
	for (;; i = (i + 1) & (MP3_BUDGET_SLOTS - 1)) {
		b = &mp3_budgets[i];
		if (!b->used)
			break;
		if (b->owner == owner)
			return b;
	}
	if (mp3_nr_budgets == MP3_DROPPED_OWNERS)
		return NULL;
	mp3_budgets_used[mp3_nr_budgets++] = i;
	*b = (struct mp3_owner_budget) { .owner = owner, .used = true };
	return b;
}

/* Whether a user's record fits in this sample; one that does not is counted. */
static bool __mp3_record_charge(const struct mp3_record_tag *tag)
{
	struct mp3_owner_budget *b = __mp3_owner_budget(tag->owner);

	if (mp3_users_written < MP3_USERS_RECORDS &&
	    (!b || b->written < mp3_records_per_user)) {
		mp3_users_written++;
		if (b)
			b->written++;
		return true;
	}
	mp3_records_dropped++;
	if (b)
		b->dropped++;
	else
		mp3_others_dropped++;
	return false;
}

/*
 * Starts record n of the sample being gathered; __mp3_record_end() publishes
 * it. The union of times is the type's to write (or zero: the slot may hold
 * an older record's). Inline, as __mp3_record_begin(): a visit's record in
 * one run of stores (counted: make bench, section 8).
 */
static __always_inline struct mp3_proc_record *
__mp3_record_start(u32 tgid, u32 target, u32 owner, u32 flags, u32 type)
{
	u64 n = mp3_records_written;
	struct mp3_proc_record *slot = &mp3_records[n & (MP3_RECORD_CAPACITY - 1)];

	WRITE_ONCE(slot->seq, MP3_SEQ_WRITING);
	smp_wmb();	/* pairs with the reader's seq re-check after its copy */
	slot->sample = mp3_published;
	slot->tgid = tgid;
	slot->type = type;
	slot->target = target;
	slot->mapping = 0;
	slot->owner = owner;
	slot->flags = flags;
	slot->dev = 0;
	slot->reserved2 = 0;
	return slot;
}

/* A counts record's waits fill the union whole: nothing of an older record is left. */
static_assert(sizeof_field(struct mp3_proc_record, stalls) ==
	      sizeof_field(struct mp3_proc_record, fault_time));

/* A record without times (mp3.h): their union 0. */
static void mp3_record_no_times(struct mp3_proc_record *slot)
{
	memset(&slot->fault_time, 0, sizeof(slot->fault_time));
}

/* A process's record, or NULL: records are off, or its owner's budget is spent. */
static __always_inline struct mp3_proc_record *
__mp3_record_begin(u32 tgid, const struct mp3_record_tag *tag, u32 type)
{
	if (!mp3_records_enabled || (!tag->admin && !__mp3_record_charge(tag)))
		return NULL;
	return __mp3_record_start(tgid, tag->target, tag->owner,
				  tag->admin ? MP3_RECORD_ADMIN : 0, type);
}

static void __mp3_record_end(struct mp3_proc_record *slot)
{
	/* Pairs with the reader's load-acquire of seq before its copy. */
	smp_store_release(&slot->seq, mp3_records_written);
	mp3_records_written++;
}

/* A counts record, its slot taken. */
static __always_inline void __mp3_record_counts_fill(struct mp3_proc_record *slot,
						     const struct mp3_sample_values *delta,
						     bool waited)
{
	slot->counts.minor_faults = delta->minor_faults;
	slot->counts.major_faults = delta->major_faults;
	slot->counts.cpu_ns = delta->cpu_ns;
	if (waited)
		mp3_stalls_store(&slot->stalls, delta->stall_us);
	else
		memset(&slot->stalls, 0, sizeof(slot->stalls));
	__mp3_record_end(slot);
}

/* A user's counts record: its owner's budget is charged first (a call). */
static noinline void __mp3_buffer_record_user_counts(u32 tgid, const struct mp3_record_tag *tag,
						     const struct mp3_sample_values *delta,
						     bool waited)
{
	struct mp3_proc_record *slot = __mp3_record_begin(tgid, tag, MP3_RECORD_COUNTS);

	if (slot)
		__mp3_record_counts_fill(slot, delta, waited);
}

/*
 * Every visit's record. An administrator's calls nothing, so it saves no
 * registers; a user's goes on in a tail call (counted: make bench,
 * section 8).
 */
void __mp3_buffer_record_counts(u32 tgid, const struct mp3_record_tag *tag,
				const struct mp3_sample_values *delta, bool waited)
{
	lockdep_assert_held(&mp3_lock);

	if (!tag->admin) {
		__mp3_buffer_record_user_counts(tgid, tag, delta, waited);
		return;
	}
	if (!mp3_records_enabled)
		return;
	__mp3_record_counts_fill(__mp3_record_start(tgid, tag->target, tag->owner,
						    MP3_RECORD_ADMIN, MP3_RECORD_COUNTS),
				 delta, waited);
}

void __mp3_buffer_record_comm(u32 tgid, const struct mp3_record_tag *tag, const char *comm)
{
	struct mp3_proc_record *slot;

	lockdep_assert_held(&mp3_lock);

	slot = __mp3_record_begin(tgid, tag, MP3_RECORD_COMM);
	if (!slot)
		return;
	strscpy_pad(slot->comm, comm, sizeof(slot->comm));
	mp3_record_no_times(slot);
	__mp3_record_end(slot);
}

void __mp3_buffer_record_left(u32 tgid, const struct mp3_record_tag *tag)
{
	struct mp3_proc_record *slot;

	lockdep_assert_held(&mp3_lock);

	if (!mp3_active_only)
		return;
	slot = __mp3_record_begin(tgid, tag, MP3_RECORD_LEFT);
	if (!slot)
		return;
	memset(slot->comm, 0, sizeof(slot->comm));
	mp3_record_no_times(slot);
	__mp3_record_end(slot);
}

void __mp3_buffer_record_faults(u32 tgid, const struct mp3_record_tag *tag,
				const struct mp3_mapping_faults *m)
{
	struct mp3_proc_record *slot;

	lockdep_assert_held(&mp3_lock);

	slot = __mp3_record_begin(tgid, tag, MP3_RECORD_FAULTS);
	if (!slot)
		return;
	slot->faults.start = m->where.start;
	slot->faults.inode = m->where.inode;
	slot->dev = m->where.dev;
	slot->faults.minor_faults = m->minor;
	slot->faults.major_faults = m->major;
	slot->mapping = m->where.kind;
	slot->fault_time.minor_ns = m->minor_ns;
	slot->fault_time.major_ns = m->major_ns;
	slot->fault_time.reserved = 0;
	__mp3_record_end(slot);
}

void __mp3_buffer_record_latency(u32 tgid, const struct mp3_record_tag *tag, bool major,
				 unsigned int bucket, u64 faults, u64 ns)
{
	struct mp3_proc_record *slot;

	lockdep_assert_held(&mp3_lock);

	slot = __mp3_record_begin(tgid, tag, MP3_RECORD_LATENCY);
	if (!slot)
		return;
	slot->latency.time_ns = ns;
	/* More than 2^32 faults of one bucket in one period cannot be taken. */
	slot->latency.faults = min_t(u64, faults, U32_MAX);
	slot->latency.bucket = bucket;
	slot->latency.major = major;
	slot->latency.reserved = 0;
	mp3_record_no_times(slot);
	__mp3_record_end(slot);
}

void __mp3_buffer_record_page(u32 tgid, const struct mp3_record_tag *tag,
			      const struct mp3_swap_event *e)
{
	struct mp3_proc_record *slot;

	lockdep_assert_held(&mp3_lock);

	slot = __mp3_record_begin(tgid, tag, e->type);
	if (!slot)
		return;
	if (e->type == MP3_RECORD_REFAULT || e->type == MP3_RECORD_CGROUP_EVICT) {
		slot->refault.inode = e->inode;
		slot->refault.index = e->offset;
		slot->refault.reserved = 0;
		slot->dev = e->dev;
	} else {
		slot->swap.address = e->address;
		slot->swap.offset = e->offset;
		slot->swap.device = e->device;
		slot->swap.event = e->event;
	}
	slot->mapping = e->mapping;
	slot->swap_time.time_ns = e->time_ns;
	slot->swap_time.stall_ns = e->stall_ns;
	slot->swap_time.pages = e->pages;
	__mp3_record_end(slot);
}

bool __mp3_buffer_records_pending(void)
{
	lockdep_assert_held(&mp3_lock);

	return mp3_records_written != mp3_sample_records;
}

static void __mp3_record_dropped(u32 owner, u64 records)
{
	struct mp3_proc_record *slot = __mp3_record_start(0, 0, owner, 0, MP3_RECORD_DROPPED);

	memset(slot->comm, 0, sizeof(slot->comm));
	slot->dropped.records = records;
	mp3_record_no_times(slot);
	__mp3_record_end(slot);
}

/* The sample's MP3_RECORD_DROPPED records, not charged to anyone; the budgets emptied. */
static void __mp3_budgets_close(void)
{
	struct mp3_owner_budget *b;

	for (unsigned int i = 0; i < mp3_nr_budgets; i++) {
		b = &mp3_budgets[mp3_budgets_used[i]];
		if (b->dropped)
			__mp3_record_dropped(b->owner, b->dropped);
		b->used = false;
	}
	if (mp3_others_dropped)
		__mp3_record_dropped(MP3_OWNER_OTHERS, mp3_others_dropped);
	mp3_nr_budgets = 0;
	mp3_users_written = 0;
	mp3_others_dropped = 0;
}

static void __mp3_ring_store(u64 n, const struct mp3_sample_values *values, u64 now_jiffies)
{
	struct mp3_ring_sample *slot = &mp3_ring[n & (MP3_RING_CAPACITY - 1)];

	WRITE_ONCE(slot->seq, MP3_SEQ_WRITING);
	smp_wmb();	/* pairs with the reader's seq re-check after its copy */
	slot->time_ns = ktime_get_ns();
	slot->jiffies = now_jiffies;
	slot->minor_faults = values->minor_faults;
	slot->major_faults = values->major_faults;
	slot->cpu_ns = values->cpu_ns;
	slot->minor_total = mp3_totals.minor_faults;
	slot->major_total = mp3_totals.major_faults;
	slot->cpu_ns_total = mp3_totals.cpu_ns;
	slot->nr_procs = values->nr_procs;
	slot->reserved = 0;
	slot->first_record = mp3_sample_records;
	slot->nr_records = mp3_records_written - mp3_sample_records;
	slot->reserved2 = 0;
	slot->pgmajfault = mp3_vm_events[PGMAJFAULT];
	slot->pswpin = mp3_vm_events[PSWPIN];
	slot->pswpout = mp3_vm_events[PSWPOUT];
	mp3_stalls_store(&slot->stalls, values->stall_us);
	/* Pairs with the reader's load-acquire of seq before its copy. */
	smp_store_release(&slot->seq, n);
}

/*
 * Classic CPU time is in jiffies; converting the running total rather than
 * each delta keeps rounding errors from piling up.
 */
static void __mp3_classic_store(u64 n, const struct mp3_sample_values *values,
				u64 cpu_ns_before, u64 now_jiffies)
{
	struct mp3_classic_sample *slot = &mp3_classic[n % MP3_CLASSIC_SAMPLES];

	WRITE_ONCE(slot->jiffies, MP3_CLASSIC_EMPTY);
	smp_wmb();	/* a reader never sees new fields beside an old jiffies */
	slot->minor_faults = values->minor_faults;
	slot->major_faults = values->major_faults;
	slot->cpu_jiffies = nsecs_to_jiffies64(mp3_totals.cpu_ns) -
			    nsecs_to_jiffies64(cpu_ns_before);
	smp_wmb();	/* jiffies last: it marks the slot as filled */
	WRITE_ONCE(slot->jiffies, (unsigned long)now_jiffies);
}

static void __mp3_header_account(const struct mp3_losses *losses, u64 cost_ns)
{
	struct mp3_ring_header *hdr = mp3_header;
	u64 ticks = mp3_published;

	mp3_cost_max = max(mp3_cost_max, cost_ns);
	WRITE_ONCE(hdr->sampler_ticks, ticks);
	WRITE_ONCE(hdr->sampler_ns_total, READ_ONCE(hdr->sampler_ns_total) + cost_ns);
	WRITE_ONCE(hdr->sampler_ns_last, cost_ns);
	WRITE_ONCE(hdr->sampler_ns_max, mp3_cost_max);
	WRITE_ONCE(hdr->follow_skipped, losses->follow_skipped);
	WRITE_ONCE(hdr->follow_missed, losses->follow_missed);
	WRITE_ONCE(hdr->faults_dropped, losses->faults_dropped);
	WRITE_ONCE(hdr->faults_summed, losses->faults_summed);
	WRITE_ONCE(hdr->latency_missed, losses->latency_missed);
	WRITE_ONCE(hdr->swap_dropped, losses->swap_dropped);
	WRITE_ONCE(hdr->records_dropped, mp3_records_dropped);
}

void __mp3_buffer_publish(const struct mp3_sample_values *values,
			  const struct mp3_losses *losses, u64 cost_ns)
{
	u64 n = mp3_published;
	u64 cpu_ns_before = mp3_totals.cpu_ns;
	/* Read once: both regions must show the same time for sample n. */
	u64 now_jiffies = get_jiffies_64();

	lockdep_assert_held(&mp3_lock);

	mp3_totals.minor_faults += values->minor_faults;
	mp3_totals.major_faults += values->major_faults;
	mp3_totals.cpu_ns += values->cpu_ns;
	all_vm_events(mp3_vm_events);
	__mp3_budgets_close();

	__mp3_ring_store(n, values, now_jiffies);
	__mp3_classic_store(n, values, cpu_ns_before, now_jiffies);

	/* The sample's records, then the sample: a reader of one sees the other. */
	smp_store_release(&mp3_header->record_head, mp3_records_written);
	mp3_sample_records = mp3_records_written;
	WRITE_ONCE(mp3_published, n + 1);
	/* Pairs with the reader's load-acquire of head: the slot is complete. */
	smp_store_release(&mp3_header->head, n + 1);
	__mp3_header_account(losses, cost_ns);
}

struct mp3_region {
	unsigned long buffer_offset;
	unsigned long size;
	bool writable;
};

static const struct mp3_region mp3_classic_region = {
	.buffer_offset = 0,
	.size = MP3_CLASSIC_SIZE,
	.writable = true,
};

static const struct mp3_region mp3_ring_region = {
	.buffer_offset = MP3_CLASSIC_SIZE,
	.size = MP3_RING_SIZE,
	.writable = false,
};

static const struct mp3_region *mp3_region_at(unsigned long pgoff)
{
	if (pgoff == MP3_CLASSIC_OFFSET >> PAGE_SHIFT)
		return &mp3_classic_region;
	if (pgoff == MP3_RING_OFFSET >> PAGE_SHIFT)
		return &mp3_ring_region;
	return NULL;
}

static int mp3_region_check(const struct mp3_region *region,
			    struct vm_area_struct *vma)
{
	if (!region || vma->vm_end - vma->vm_start > region->size)
		return -EINVAL;
	if (region->writable) {
		/*
		 * A private mapping would copy-on-write pages that are not
		 * ours. VM_MAYSHARE, not VM_SHARED: the latter is clear on a
		 * MAP_SHARED mapping of a file opened read-only.
		 */
		if (!(vma->vm_flags & VM_MAYSHARE))
			return -EINVAL;
		return 0;
	}
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	/* Nor may mprotect() add write access later. */
	vm_flags_clear(vma, VM_MAYWRITE);
	return 0;
}

int mp3_buffer_mmap(struct vm_area_struct *vma)
{
	const struct mp3_region *region = mp3_region_at(vma->vm_pgoff);
	unsigned long offset, pfn;
	int err;

	err = mp3_region_check(region, vma);
	if (err)
		return err;

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (offset = 0; offset < vma->vm_end - vma->vm_start; offset += PAGE_SIZE) {
		pfn = vmalloc_to_pfn(mp3_buffer + region->buffer_offset + offset);
		err = remap_pfn_range(vma, vma->vm_start + offset, pfn, PAGE_SIZE,
				      vma->vm_page_prot);
		if (err)
			return err;
	}
	return 0;
}
