// SPDX-License-Identifier: GPL-2.0
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/kernel-page-flags.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "growarray.h"

const struct physical_sources physical_system = {
	.kpagecgroup = "/proc/kpagecgroup",
	.kpageflags = "/proc/kpageflags",
	.cgroup_root = CGROUPFS_ROOT,
};

/* Frames read at a time from each file. */
#define CHUNK 65536

/* A cgroup directory: its inode, as kpagecgroup gives it, and its owner. */
struct cgroup_dir {
	uint64_t ino;
	uint32_t owner;
};

/* A target with a cgroup directory now: the pages of its cgroup and those below are its. */
struct target_dir {
	char path[PATH_MAX];
	char label[256];
};

/* What the walk of the cgroup tree (nftw() takes no context) fills. */
static struct {
	struct physical_scan *scan;
	const char *root;
	const struct target_dir *dirs;
	size_t nr_dirs;
	struct cgroup_dir *cgroups;
	size_t nr_cgroups, cgroups_cap;
	int err;
} walk;

static uint32_t owner_index(struct physical_scan *s, const char *label)
{
	struct physical_owner *grown;

	for (size_t i = 0; i < s->nr_owners; i++)
		if (!strcmp(s->owners[i].label, label))
			return (uint32_t)i;
	grown = grow_array(s->owners, &s->owners_cap, s->nr_owners, sizeof(*grown), 32);
	if (!grown)
		return UINT32_MAX;
	s->owners = grown;
	memset(&s->owners[s->nr_owners], 0, sizeof(*s->owners));
	snprintf(s->owners[s->nr_owners].label, sizeof(s->owners->label), "%s", label);
	return (uint32_t)s->nr_owners++;
}

/* Whether dir is path or below it. */
static int below(const char *dir, const char *path)
{
	size_t len = strlen(path);

	return !strncmp(dir, path, len) && (dir[len] == '\0' || dir[len] == '/');
}

/* The owner of the cgroup at dir: its target's, or its first two components below root. */
static void label_of(const char *dir, char *label, size_t size)
{
	const char *rel = dir + strlen(walk.root);
	const char *cut;

	for (size_t i = 0; i < walk.nr_dirs; i++) {
		if (below(dir, walk.dirs[i].path)) {
			snprintf(label, size, "%s", walk.dirs[i].label);
			return;
		}
	}
	rel += *rel == '/';
	cut = strchr(rel, '/');
	cut = cut ? strchr(cut + 1, '/') : NULL;
	if (!*rel)
		snprintf(label, size, "/ (the root cgroup)");
	else
		snprintf(label, size, "%.*s", cut ? (int)(cut - rel) : (int)strlen(rel), rel);
}

static int add_dir(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct cgroup_dir *grown;
	char label[256];
	uint32_t owner;

	(void)ftw;
	if (type != FTW_D)
		return 0;
	label_of(path, label, sizeof(label));
	owner = owner_index(walk.scan, label);
	grown = grow_array(walk.cgroups, &walk.cgroups_cap, walk.nr_cgroups, sizeof(*grown), 64);
	if (owner == UINT32_MAX || !grown) {
		walk.err = -ENOMEM;
		return 1;
	}
	walk.cgroups = grown;
	walk.cgroups[walk.nr_cgroups++] = (struct cgroup_dir){ .ino = st->st_ino, .owner = owner };
	return 0;
}

static int by_ino(const void *a, const void *b)
{
	const struct cgroup_dir *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* The directories of the targets that have one now (units running, cgroups there). */
static struct target_dir *target_dirs(const struct physical_sources *src,
				      const struct target_list *targets, size_t *n)
{
	struct target_dir *dirs = calloc(targets->count + 1, sizeof(*dirs));

	*n = 0;
	for (size_t i = 0; dirs && i < targets->count; i++) {
		const struct target *t = &targets->targets[i];
		struct target_dir *d = &dirs[*n];

		if (t->kind == TARGET_UNIT &&
		    cgroupfs_find_unit(src->cgroup_root, t->name, d->path, sizeof(d->path)))
			continue;
		if (t->kind == TARGET_CGROUP)
			snprintf(d->path, sizeof(d->path), "%s", t->name);
		if (t->kind != TARGET_UNIT && t->kind != TARGET_CGROUP)
			continue;
		target_format_label(t, d->label, sizeof(d->label));
		(*n)++;
	}
	return dirs;
}

/*
 * The hierarchy whose inodes kpagecgroup gives: cgroup2 at root, else
 * cgroup v1's memory controller below it (root/memory).
 */
static void memory_hierarchy(const char *root, char *path, size_t size)
{
	struct statfs fs;

	if (!statfs(root, &fs) && fs.f_type == CGROUP2_SUPER_MAGIC)
		snprintf(path, size, "%s", root);
	else
		snprintf(path, size, "%s/memory", root);
}

/* The cgroup tree walked, that file system only: walk.cgroups sorted by inode, the owners made. */
static int walk_cgroups(struct physical_scan *s, const struct physical_sources *src,
			const struct target_list *targets)
{
	struct target_dir *dirs = target_dirs(src, targets, &walk.nr_dirs);
	char root[PATH_MAX];

	if (!dirs)
		return -ENOMEM;
	memory_hierarchy(src->cgroup_root, root, sizeof(root));
	walk.scan = s;
	walk.root = root;
	walk.dirs = dirs;
	walk.err = 0;
	if (nftw(root, add_dir, 32, FTW_PHYS | FTW_MOUNT) < 0 && !walk.err)
		walk.err = -errno;
	free(dirs);
	walk.dirs = NULL;
	qsort(walk.cgroups, walk.nr_cgroups, sizeof(*walk.cgroups), by_ino);
	return walk.err;
}

/* The owner of the pages charged to the cgroup of inode ino: 0 for none or one unknown. */
static uint32_t owner_of(uint64_t ino)
{
	const struct cgroup_dir key = { .ino = ino }, *found;

	if (!ino)
		return 0;
	found = bsearch(&key, walk.cgroups, walk.nr_cgroups, sizeof(key), by_ino);
	return found ? found->owner : 0;
}

static void count_kinds(struct physical_owner *o, uint64_t flags)
{
	const int anon = flags >> KPF_ANON & 1, swapbacked = flags >> KPF_SWAPBACKED & 1;

	o->kind[PHYSICAL_ANON] += anon;
	o->kind[PHYSICAL_SHMEM] += swapbacked && !anon;
	o->kind[PHYSICAL_FILE] += (flags >> KPF_LRU & 1) && !anon && !swapbacked;
	o->kind[PHYSICAL_SWAPCACHE] += flags >> KPF_SWAPCACHE & 1;
	o->kind[PHYSICAL_ACTIVE] += flags >> KPF_ACTIVE & 1;
}

/* The block's owner: the one with most of its frames (counts reset after). */
static int close_block(struct physical_scan *s, uint64_t block, uint32_t *counts,
		       const uint32_t *touched, size_t nr_touched)
{
	uint32_t best = 0, most = 0;
	size_t cap = s->nr_blocks;

	for (size_t i = 0; i < nr_touched; i++) {
		if (counts[touched[i]] > most) {
			most = counts[touched[i]];
			best = touched[i];
		}
		counts[touched[i]] = 0;
	}
	if (block >= cap) {
		uint32_t *grown = realloc(s->block_owner, (block + 1024) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		for (size_t i = cap; i < block + 1024; i++)
			grown[i] = UINT32_MAX;
		s->block_owner = grown;
		s->nr_blocks = block + 1024;
	}
	s->block_owner[block] = most ? best : UINT32_MAX;
	return 0;
}

/* Reads the two files frame by frame, in step. */
static int read_frames(struct physical_scan *s, int cgroups, int flags)
{
	static uint64_t ino[CHUNK], flag[CHUNK];
	uint32_t *counts = calloc(s->nr_owners, sizeof(*counts));
	uint32_t *touched = calloc(s->nr_owners, sizeof(*touched));
	uint64_t block = 0, frame = 0, last = 0;
	size_t nr_touched = 0;
	int err = counts && touched ? 0 : -ENOMEM;

	while (!err) {
		ssize_t a = pread(cgroups, ino, sizeof(ino), (off_t)(frame * 8));
		ssize_t b = a > 0 ? pread(flags, flag, (size_t)a, (off_t)(frame * 8)) : a;
		size_t n = (size_t)(b < a ? b : a) / 8;

		if (a < 0 || b < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		for (size_t i = 0; i < n && !err; i++, frame++) {
			uint32_t owner;

			if (frame / s->frames_per_block != block) {
				err = close_block(s, block, counts, touched, nr_touched);
				nr_touched = 0;
				block = frame / s->frames_per_block;
			}
			if (flag[i] >> KPF_NOPAGE & 1)
				continue;
			owner = owner_of(ino[i]);
			s->frames++;
			s->owners[owner].pages++;
			count_kinds(&s->owners[owner], flag[i]);
			if (!counts[owner]++)
				touched[nr_touched++] = owner;
			last = frame;
		}
	}
	if (!err && frame)
		err = close_block(s, block, counts, touched, nr_touched);
	s->nr_blocks = frame ? last / s->frames_per_block + 1 : 0;
	free(counts);
	free(touched);
	return err;
}

int physical_scan(struct physical_scan *s, const struct physical_sources *sources,
		  const struct target_list *targets, size_t frames_per_block, const char **what)
{
	int cgroups = -1, flags = -1, err;

	*s = (struct physical_scan){ .frames_per_block = frames_per_block ? frames_per_block : 1 };
	if (owner_index(s, "(no memory cgroup: free, the kernel's, the root cgroup's)") ==
	    UINT32_MAX)
		return -ENOMEM;
	*what = sources->cgroup_root;
	err = walk_cgroups(s, sources, targets);
	if (!err) {
		*what = sources->kpagecgroup;
		cgroups = open(sources->kpagecgroup, O_RDONLY | O_CLOEXEC);
		err = cgroups < 0 ? -errno : 0;
	}
	if (!err) {
		*what = sources->kpageflags;
		flags = open(sources->kpageflags, O_RDONLY | O_CLOEXEC);
		err = flags < 0 ? -errno : 0;
	}
	if (!err) {
		*what = sources->kpagecgroup;
		err = read_frames(s, cgroups, flags);
	}
	if (cgroups >= 0)
		close(cgroups);
	if (flags >= 0)
		close(flags);
	free(walk.cgroups);
	walk.cgroups = NULL;
	walk.nr_cgroups = walk.cgroups_cap = 0;
	return err;
}

void physical_scan_free(struct physical_scan *s)
{
	free(s->owners);
	free(s->block_owner);
	*s = (struct physical_scan){ 0 };
}
