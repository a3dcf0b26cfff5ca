// SPDX-License-Identifier: GPL-2.0
/* daemon/ownerbudget: how many lines of users' registrations the logs take. */
#include "expect_counters.h"
#include "ownerbudget.h"

#define ROOT 0
#define ALICE 1000
#define BOB 1001

static struct mp3_proc_record of(uint32_t owner, uint32_t flags)
{
	return (struct mp3_proc_record){ .tgid = 7, .type = MP3_RECORD_COUNTS, .owner = owner,
					 .flags = flags };
}

/* How many of n records of r in second s get a line. */
static unsigned int take(struct ownerbudget *b, struct mp3_proc_record r, uint64_t s,
			 unsigned int n)
{
	unsigned int taken = 0;

	for (unsigned int i = 0; i < n; i++)
		taken += ownerbudget_take_line(b, &r, s);
	return taken;
}

static const struct owner_losses *losses(const struct ownerbudget *b, uint32_t owner)
{
	for (size_t i = 0; i < b->nr_owners; i++)
		if (b->owners[i].owner == owner)
			return &b->owners[i];
	return NULL;
}

static void test_user_bounded_admin_not(void)
{
	struct ownerbudget b;

	ownerbudget_init(&b, 10);
	expect(take(&b, of(ALICE, 0), 1, 25) == 10, "alice logged more than 10 lines in a second");
	expect(take(&b, of(ROOT, MP3_RECORD_ADMIN), 1, 1000) == 1000,
	       "an administrator's lines were budgeted");
	expect(take(&b, of(BOB, 0), 1, 10) == 10, "alice's flood took bob's lines");
	expect(take(&b, of(ALICE, 0), 2, 25) == 10, "alice's budget did not come back next second");
	expect(losses(&b, ALICE) && losses(&b, ALICE)->log_dropped == 30 &&
	       losses(&b, BOB)->log_dropped == 0 && !losses(&b, ROOT),
	       "losses: alice %llu", (unsigned long long)losses(&b, ALICE)->log_dropped);
	ownerbudget_free(&b);
}

/* A user who is not an administrator with uid 0 (no CAP_SYS_PTRACE) is budgeted too. */
static void test_uid_0_without_flag_is_a_user(void)
{
	struct ownerbudget b;

	ownerbudget_init(&b, 3);
	expect(take(&b, of(ROOT, 0), 5, 9) == 3, "uid 0 without MP3_RECORD_ADMIN was not budgeted");
	ownerbudget_free(&b);
}

static void test_users_together_bounded(void)
{
	struct ownerbudget b;
	unsigned int taken = 0;

	ownerbudget_init(&b, 10);
	for (uint32_t uid = 2000; uid < 2010; uid++)
		taken += take(&b, of(uid, 0), 1, 10);
	expect(taken == 10 * OWNERBUDGET_USERS_SHARE, "ten users logged %u lines in a second, want %d",
	       taken, 10 * OWNERBUDGET_USERS_SHARE);
	expect(take(&b, of(ROOT, MP3_RECORD_ADMIN), 1, 5) == 5, "users took the administrators' lines");
	ownerbudget_free(&b);
}

static void test_ring_dropped_per_owner(void)
{
	struct ownerbudget b;
	struct mp3_proc_record d = { .type = MP3_RECORD_DROPPED, .owner = ALICE };

	ownerbudget_init(&b, 10);
	d.dropped.records = 40;
	ownerbudget_add_dropped(&b, &d);
	ownerbudget_add_dropped(&b, &d);
	d.owner = MP3_OWNER_OTHERS;
	d.dropped.records = 3;
	ownerbudget_add_dropped(&b, &d);
	expect(losses(&b, ALICE)->ring_dropped == 80 &&
	       losses(&b, MP3_OWNER_OTHERS)->ring_dropped == 3, "records dropped per owner");
	ownerbudget_free(&b);
}

/* Past OWNERBUDGET_OWNERS_MAX users, the others share one budget's count, not unbounded memory. */
static void test_owners_bounded(void)
{
	struct ownerbudget b;

	ownerbudget_init(&b, 1);
	for (uint32_t uid = 10000; uid < 10000 + 3 * OWNERBUDGET_OWNERS_MAX; uid++)
		take(&b, of(uid, 0), uid, 2);
	expect(b.nr_owners == OWNERBUDGET_OWNERS_MAX + 1, "%zu owners kept", b.nr_owners);
	expect(losses(&b, MP3_OWNER_OTHERS) &&
	       losses(&b, MP3_OWNER_OTHERS)->log_dropped > 0, "the others' lines were not counted");
	ownerbudget_free(&b);
}

UNIT_TESTS(UNIT_TEST(user_bounded_admin_not), UNIT_TEST(uid_0_without_flag_is_a_user),
	   UNIT_TEST(users_together_bounded), UNIT_TEST(ring_dropped_per_owner),
	   UNIT_TEST(owners_bounded));
