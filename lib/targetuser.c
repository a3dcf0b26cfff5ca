// SPDX-License-Identifier: GPL-2.0
/*
 * The user of a command name's target: apart from targets.c so that what
 * links targets.c alone, statically (the guest's test suite), does not take
 * in the name service.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>

#include "targets.h"

int target_user_uid(const struct target *t, uid_t *uid)
{
	struct passwd pw, *found = NULL;
	char buf[4096], *end;
	unsigned long n;
	int err;

	if (!t->user) {
		*uid = (uid_t)-1;
		return 0;
	}
	err = getpwnam_r(t->user, &pw, buf, sizeof(buf), &found);
	if (found) {
		*uid = pw.pw_uid;
		return 0;
	}
	/* A number no login name is: a uid, as chown(1) takes one. */
	errno = 0;
	n = strtoul(t->user, &end, 10);
	if (isdigit((unsigned char)t->user[0]) && !*end && !errno && n < (uid_t)-1) {
		*uid = (uid_t)n;
		return 0;
	}
	return err ? -err : -ENOENT;
}
