/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What users' registrations may put into pfprofd's per-process and faults
 * logs (ring version 9 says whose each record is): each user, with the user
 * namespaces it made, at most user_log_lines lines a second, all users
 * together OWNERBUDGET_USERS_SHARE times that, so that no user's flood
 * rotates away another owner's history faster than that. Administrators'
 * registrations (and every record of a module older than version 9, which
 * does not say whose) are not bounded. What each user loses is counted:
 * lines not logged here, and records the module did not write
 * (MP3_RECORD_DROPPED).
 */
#ifndef PFPROF_OWNERBUDGET_H
#define PFPROF_OWNERBUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/mp3.h>

/* All users together, in lines a second: this many users' budgets. */
#define OWNERBUDGET_USERS_SHARE 4
/* Users told apart; the records of the others are counted as MP3_OWNER_OTHERS's. */
#define OWNERBUDGET_OWNERS_MAX 1024

struct owner_losses {
	uint32_t owner;		/* a uid, or MP3_OWNER_OTHERS */
	uint64_t log_dropped;	/* lines not logged */
	uint64_t ring_dropped;	/* records the module did not write */
	/* The second being counted, and the lines logged in it. */
	uint64_t second;
	uint64_t lines;
};

struct ownerbudget {
	uint64_t user_lines;	/* a second, per user; 0: users' lines are not logged */
	uint64_t second;	/* of users_lines */
	uint64_t users_lines;
	struct owner_losses *owners;	/* in the order first seen */
	size_t nr_owners, cap;
};

void ownerbudget_init(struct ownerbudget *b, uint64_t user_lines);
void ownerbudget_free(struct ownerbudget *b);

/*
 * Whether record r of the sample taken at monotonic second `second` gets its
 * line: an administrator's always; a user's within its budget and the
 * users' together, else it is counted against the user. Only for records
 * of a version 9 ring: older ones do not say whose they are.
 */
bool ownerbudget_take_line(struct ownerbudget *b, const struct mp3_proc_record *r,
			   uint64_t second);
/* Counts an MP3_RECORD_DROPPED record against its owner. */
void ownerbudget_add_dropped(struct ownerbudget *b, const struct mp3_proc_record *r);

#endif /* PFPROF_OWNERBUDGET_H */
