// SPDX-License-Identifier: GPL-2.0
#include "mapnames.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/mp3.h>

#include "growarray.h"
#include "procmaps.h"
#include "sorted.h"

struct mapping_name {
	uint64_t start, end, inode;
	uint64_t dev;		/* makedev() of its file's device; 0: none */
	char *name;		/* the maps line's last field; NULL if it has none */
	/*
	 * Not 0: not in this process's maps but borrowed, named by the maps of
	 * process donor (MAPPING_NO_DONOR: none had it), as found when
	 * mapnames.reads was searched; its size unknown.
	 */
	pid_t donor;
	uint64_t donor_start;	/* where the donor maps the file */
	uint64_t searched;
};

#define MAPPING_NO_DONOR ((pid_t)-1)

struct maps_snapshot {
	pid_t tgid;
	/*
	 * The process left (an MP3_RECORD_LEFT record): /proc/<tgid> may be
	 * another process's by now, so its maps is not read again.
	 */
	bool left;
	uint64_t read_pass;	/* when maps was read last; 0: never */
	uint64_t used_pass;	/* when a lookup asked last */
	struct mapping_name *mappings;	/* sorted by start, as maps lists them */
	size_t count;
};

static void free_mappings(struct mapping_name *v, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(v[i].name);
	free(v);
}

/* A maps line's mapping; false if the line is none, or no memory for its name. */
static bool parse_line(const char *line, struct mapping_name *out)
{
	struct procmaps_line m;

	if (!procmaps_parse_line(line, &m))
		return false;
	*out = (struct mapping_name){ .start = m.start, .end = m.end, .inode = m.inode,
				      .dev = m.dev };
	if (!m.name_len)
		return true;
	out->name = strndup(m.name, m.name_len);
	return out->name != NULL;
}

/* What /proc/<tgid>/maps says now, into *out and *out_count, its files noted; 0 or -errno. */
static int read_maps(struct mapnames *m, pid_t tgid, struct mapping_name **out,
		     size_t *out_count)
{
	struct mapping_name *v = NULL, *grown;
	size_t count = 0, cap = 0, size = 0;
	char path[64], *line = NULL;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", m->proc, (int)tgid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &size, f) > 0) {
		struct mapping_name one;

		if (!parse_line(line, &one))
			continue;
		grown = grow_array(v, &cap, count, sizeof(*v), 64);
		if (!grown) {
			free(one.name);
			err = -ENOMEM;
			break;
		}
		v = grown;
		v[count++] = one;
		if (one.name && one.name[0] == '/')
			filenames_note(&m->files, one.dev, one.inode, one.name);
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	fclose(f);
	if (err) {
		free_mappings(v, count);
		return err;
	}
	*out = v;
	*out_count = count;
	return 0;
}

/* Replaces p's mappings with what maps says now; false if it cannot be read (p unchanged). */
static bool reread(struct mapnames *m, struct maps_snapshot *p)
{
	struct mapping_name *v = NULL;
	size_t count = 0;

	if (read_maps(m, p->tgid, &v, &count))
		return false;
	free_mappings(p->mappings, p->count);
	p->mappings = v;
	p->count = count;
	m->reads++;
	return true;
}

static int compare_start(const void *mapping, const void *start, void *unused)
{
	uint64_t a = ((const struct mapping_name *)mapping)->start, b = *(const uint64_t *)start;

	(void)unused;
	return (a > b) - (a < b);
}

static const struct mapping_name *find_mapping(const struct maps_snapshot *p, uint64_t start)
{
	bool found;
	size_t at = sorted_find(p->mappings, p->count, sizeof(*p->mappings), &start,
				compare_start, NULL, &found);

	return found ? &p->mappings[at] : NULL;
}

static int compare_tgid(const void *snapshot, const void *tgid, void *unused)
{
	pid_t a = ((const struct maps_snapshot *)snapshot)->tgid, b = *(const pid_t *)tgid;

	(void)unused;
	return (a > b) - (a < b);
}

static const struct maps_snapshot *find_snapshot(const struct mapnames *m, pid_t tgid)
{
	bool found;
	size_t at = sorted_find(m->procs, m->count, sizeof(*m->procs), &tgid, compare_tgid, NULL,
				&found);

	return found ? &m->procs[at] : NULL;
}

/* The snapshot of tgid, added (empty) if new; NULL without memory. */
static struct maps_snapshot *snapshot_of(struct mapnames *m, pid_t tgid)
{
	bool found;
	size_t at = sorted_find(m->procs, m->count, sizeof(*m->procs), &tgid, compare_tgid, NULL,
				&found);
	struct maps_snapshot *grown, *p;

	if (found)
		return &m->procs[at];
	grown = grow_array(m->procs, &m->cap, m->count, sizeof(*grown), 16);
	if (!grown)
		return NULL;
	m->procs = grown;
	p = sorted_make_room(m->procs, m->count, sizeof(*m->procs), at);
	m->count++;
	*p = (struct maps_snapshot){ .tgid = tgid };
	return p;
}

/* The name of a mapping /proc could not tell about. */
static const char *fallback_name(struct mapnames *m, uint32_t kind, uint64_t inode)
{
	switch (kind) {
	case MP3_MAPPING_HEAP:
		return "[heap]";
	case MP3_MAPPING_STACK:
		return "[stack]";
	case MP3_MAPPING_ANON:
		return "[anon]";
	case MP3_MAPPING_FILE:
	case MP3_MAPPING_SHMEM:
		snprintf(m->fallback, sizeof(m->fallback), "[inode %" PRIu64 "]", inode);
		return m->fallback;
	}
	return "[unresolved]";
}

static bool borrowed(const struct mapping_name *map)
{
	return map->donor != 0;
}

/* Whether map is the file of a record: its inode, on its device if the record says (version 9). */
static bool same_file(const struct mapping_name *map, const struct mapping_file *file)
{
	return map->inode == file->inode && (!file->dev || map->dev == file->dev);
}

/* Whether @map is its process's own mapping of @file, with a name. */
static bool names(const struct mapping_name *map, const struct mapping_file *file)
{
	return map && same_file(map, file) && !borrowed(map) && map->name;
}

/* @other's own named mapping of @file at @start, or anywhere if @start is 0; NULL if none. */
static const struct mapping_name *names_file(const struct maps_snapshot *other, uint64_t start,
					     const struct mapping_file *file)
{
	if (start) {
		const struct mapping_name *map = find_mapping(other, start);

		return names(map, file) ? map : NULL;
	}
	for (size_t i = 0; i < other->count; i++)
		if (names(&other->mappings[i], file))
			return &other->mappings[i];
	return NULL;
}

/*
 * Another process's mapping that names the file @p no longer has at
 * @start (gone, or unmapped), in *@donor; NULL if no process read has it.
 * First at the same address: a forked child has its parent's mappings
 * there (Apache's workers, a database's backends), and two mappings of one
 * inode on one device at one address are one file. Then, if the record
 * says its device, anywhere: a server that reloads its modules (Apache's
 * graceful reload) maps the same files at other addresses, and the workers
 * forked before it, gone, left records of the old ones. One inode on one
 * device is one file while it is mapped; its number could be another
 * file's if it was deleted and its number given again in the moments
 * between the exit and the lookup.
 */
static const struct mapping_name *donor_of(const struct mapnames *m,
					   const struct maps_snapshot *p, uint64_t start,
					   const struct mapping_file *file,
					   const struct maps_snapshot **donor)
{
	/* At @start, then anywhere (0) if the device is known. */
	const uint64_t where[2] = { start, 0 };
	const struct mapping_name *named;

	for (size_t w = 0; w < (file->dev ? 2U : 1U); w++) {
		for (size_t i = 0; i < m->count; i++) {
			if (&m->procs[i] == p)
				continue;
			named = names_file(&m->procs[i], where[w], file);
			if (named) {
				*donor = &m->procs[i];
				return named;
			}
		}
	}
	return NULL;
}

/* The donor's own entry that names borrowed @map; NULL if it has none now. */
static const struct mapping_name *donor_mapping(const struct mapnames *m,
						const struct mapping_name *map)
{
	const struct mapping_file file = { map->inode, map->dev };
	const struct maps_snapshot *donor;
	const struct mapping_name *named;

	if (map->donor == MAPPING_NO_DONOR)
		return NULL;
	donor = find_snapshot(m, map->donor);
	named = donor ? find_mapping(donor, map->donor_start) : NULL;
	return names(named, &file) ? named : NULL;
}

/*
 * Remembers in @p's mappings who names its mapping at @start (or that
 * nobody did, until another maps is read), so that its next records of it
 * cost a lookup rather than a search of every process. Only where @p's maps has nothing
 * at @start: its own entries stay. Best effort: without memory, nothing.
 */
static void remember_donor(const struct mapnames *m, struct maps_snapshot *p, uint64_t start,
			   const struct mapping_file *file, pid_t donor, uint64_t donor_start)
{
	bool found;
	size_t at = sorted_find(p->mappings, p->count, sizeof(*p->mappings), &start,
				compare_start, NULL, &found);
	struct mapping_name *grown, *slot;

	if (found) {
		slot = &p->mappings[at];
		if (!borrowed(slot))
			return;
	} else {
		grown = realloc(p->mappings, (p->count + 1) * sizeof(*grown));
		if (!grown)
			return;
		p->mappings = grown;
		slot = sorted_make_room(p->mappings, p->count, sizeof(*p->mappings), at);
		p->count++;
	}
	*slot = (struct mapping_name){ .start = start, .end = start, .inode = file->inode,
				       .dev = file->dev, .donor = donor, .donor_start = donor_start,
				       .searched = m->reads };
}

/*
 * Another process's entry for the file or shared memory at @start, which
 * @p's maps does not have (@map: what @p has at @start); NULL if none
 * names it.
 */
static const struct mapping_name *named_elsewhere(const struct mapnames *m,
						  struct maps_snapshot *p,
						  const struct mapping_name *map, uint32_t kind,
						  uint64_t start, const struct mapping_file *file)
{
	const struct maps_snapshot *donor;
	const struct mapping_name *named;

	if ((kind != MP3_MAPPING_FILE && kind != MP3_MAPPING_SHMEM) || !file->inode)
		return NULL;
	if (map && borrowed(map) && same_file(map, file)) {
		named = donor_mapping(m, map);
		/* Searched in vain, and no maps read since that could name it. */
		if (named || map->searched == m->reads)
			return named;
	}
	named = donor_of(m, p, start, file, &donor);
	remember_donor(m, p, start, file, named ? donor->tgid : MAPPING_NO_DONOR,
		       named ? named->start : 0);
	return named;
}

/*
 * A file no process pfprofd keeps the maps of maps, named by the path a
 * maps read gave it, if the record says its device.
 */
static void name_from_files(const struct mapnames *m, uint32_t kind,
			    const struct mapping_file *file, struct mapping_found *found)
{
	const char *path;

	if (!file->dev || (kind != MP3_MAPPING_FILE && kind != MP3_MAPPING_SHMEM))
		return;
	path = filenames_find(&m->files, file->dev, file->inode);
	if (path)
		found->name = path;
}

void mapnames_begin_pass(struct mapnames *m)
{
	m->pass++;
}

struct mapping_found mapnames_lookup(struct mapnames *m, pid_t tgid, uint32_t kind,
				     uint64_t start, const struct mapping_file *file)
{
	struct mapping_found found = { fallback_name(m, kind, file->inode), 0 };
	const struct mapping_name *map = NULL;
	struct maps_snapshot *p;

	if (kind == MP3_MAPPING_UNRESOLVED)
		return found;
	p = snapshot_of(m, tgid);
	if (!p)
		return found;
	p->used_pass = m->pass;
	map = find_mapping(p, start);
	/*
	 * A borrowed name too: maps may have it by now, with its size. A
	 * process gone keeps what its maps said, and the donors remembered.
	 */
	if ((!map || !same_file(map, file) || borrowed(map)) && p->read_pass != m->pass &&
	    !p->left) {
		p->read_pass = m->pass;
		if (reread(m, p))
			map = find_mapping(p, start);
	}
	if (!map || !same_file(map, file) || borrowed(map)) {
		map = named_elsewhere(m, p, map, kind, start, file);
		if (map)
			found.name = map->name;
		else
			name_from_files(m, kind, file, &found);
		return found;
	}
	found.size = map->end - map->start;
	/* Anonymous mappings have no name in maps unless named (PR_SET_VMA_ANON_NAME). */
	if (map->name)
		found.name = map->name;
	return found;
}

void mapnames_process_left(struct mapnames *m, pid_t tgid)
{
	struct maps_snapshot *p = snapshot_of(m, tgid);

	if (p) {
		p->left = true;
		p->used_pass = m->pass;
	}
}

void mapnames_process_named(struct mapnames *m, pid_t tgid)
{
	bool found;
	size_t at = sorted_find(m->procs, m->count, sizeof(*m->procs), &tgid, compare_tgid, NULL,
				&found);

	if (!found || !m->procs[at].left)
		return;
	free_mappings(m->procs[at].mappings, m->procs[at].count);
	memmove(&m->procs[at], &m->procs[at + 1], (m->count - at - 1) * sizeof(*m->procs));
	m->count--;
}

void mapnames_sweep(struct mapnames *m, uint64_t passes)
{
	size_t kept = 0;

	for (size_t i = 0; i < m->count; i++) {
		struct maps_snapshot *p = &m->procs[i];

		if (m->pass - p->used_pass >= passes)
			free_mappings(p->mappings, p->count);
		else
			m->procs[kept++] = *p;
	}
	m->count = kept;
}

void mapnames_free(struct mapnames *m)
{
	mapnames_sweep(m, 0);
	filenames_free(&m->files);
	free(m->procs);
	*m = (struct mapnames){ 0 };
}
