/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replacing a file so that its readers see the old or the new one, never a
 * part: the new contents go to a temporary file beside it (path.XXXXXX),
 * renamed over it once complete. The temporary file is created with O_EXCL
 * (mkostemp()), and rename() replaces a symbolic link at path rather than
 * following it: a link planted in the directory cannot redirect the write.
 */
#ifndef PFPROF_ATOMICFILE_H
#define PFPROF_ATOMICFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct atomic_file {
	FILE *out;		/* the new contents go here */
	char path[PATH_MAX];
	char temp[PATH_MAX];
};

/* Creates the temporary file beside path. 0 or -errno (-ENOENT: no such directory). */
int atomic_file_begin(struct atomic_file *f, const char *path);

/*
 * Gives the new file mode and renames it over path; durable: on disk before
 * the rename, and the rename too, before it returns. The temporary file is
 * gone either way. 0 or -errno.
 */
int atomic_file_commit(struct atomic_file *f, mode_t mode, bool durable);

/* The same for a private file (privfile.h): mode 0640 and the group pfprof. */
int atomic_file_commit_private(struct atomic_file *f, bool durable);

/* Drops the new contents; path stays as it was. */
void atomic_file_abort(struct atomic_file *f);

#endif /* PFPROF_ATOMICFILE_H */
