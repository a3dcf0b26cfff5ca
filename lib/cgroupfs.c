// SPDX-License-Identifier: GPL-2.0
#include "cgroupfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

/* Slices nest one level per dash of their name; deeper ones are not looked into. */
#define SLICE_DEPTH_MAX 16
#define UNIT_NAME_MAX 255

static const char *const unit_suffixes[] = { ".service", ".scope", ".slice" };

static const char *const unit_file_dirs[] = {
	"/etc/systemd/system", "/run/systemd/system", "/run/systemd/transient",
	"/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool below(const char *root, const char *path)
{
	size_t len = strlen(root);

	return !strncmp(path, root, len) && path[len] == '/';
}

/* Whether a component of path (below root) is a symbolic link. */
static bool has_symlink(const char *root, const char *path)
{
	char prefix[PATH_MAX];
	struct stat st;

	for (const char *p = path + strlen(root) + 1; *p; p++) {
		const char *end = strchrnul(p, '/');

		if (snprintf(prefix, sizeof(prefix), "%.*s", (int)(end - path), path) >=
		    (int)sizeof(prefix))
			return false;
		if (!lstat(prefix, &st) && S_ISLNK(st.st_mode))
			return true;
		p = end;
		if (!*p)
			break;
	}
	return false;
}

int cgroupfs_check_path(const char *root, const char *path, const char **why)
{
	char *real;
	int err = 0;

	if (!below(root, path)) {
		*why = "not a directory below the cgroup file system's root";
		return -EINVAL;
	}
	real = realpath(path, NULL);
	if (!real) {
		*why = "cannot resolve it";
		return -errno;
	}
	if (strcmp(real, path)) {
		err = has_symlink(root, path) ? -ELOOP : -EINVAL;
		*why = err == -ELOOP ? "a symbolic link is on the way: give the directory itself" :
				       "not in canonical form (no '.', '..', '//' or trailing '/')";
	} else {
		struct stat st;

		if (stat(path, &st))
			err = -errno;
		else if (!S_ISDIR(st.st_mode))
			err = -ENOTDIR;
		*why = "not a cgroup's directory";
	}
	free(real);
	return err;
}

int cgroupfs_id(const char *path, uint64_t *id)
{
	struct statfs fs;
	struct stat st;

	if (statfs(path, &fs) || stat(path, &st))
		return -errno;
	if (fs.f_type != CGROUP2_SUPER_MAGIC)
		return -ENOTSUP;
	*id = st.st_ino;
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), suffix_len = strlen(suffix);

	return len > suffix_len && !strcmp(s + len - suffix_len, suffix);
}

int cgroupfs_check_unit_name(const char *name, const char **why)
{
	bool has_suffix = false;

	if (!*name || strlen(name) > UNIT_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@") !=
		    strlen(name)) {
		*why = "not a unit's name: letters, digits and \":-_.\\@\", at most 255";
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(unit_suffixes); i++)
		has_suffix |= ends_with(name, unit_suffixes[i]);
	if (!has_suffix) {
		*why = "only services, scopes and slices have a cgroup: "
		       "give the name with its suffix (.service, .scope or .slice)";
		return -EINVAL;
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Looks for name in dir and in the slices below it. */
static int find_in(const char *dir, const char *name, char *path, size_t size, int depth)
{
	const struct dirent *e;
	DIR *d;
	int err = -ENOENT;

	if (snprintf(path, size, "%s/%s", dir, name) >= (int)size)
		return -ENAMETOOLONG;
	if (is_dir(path))
		return 0;
	if (depth == SLICE_DEPTH_MAX || !(d = opendir(dir)))
		return -ENOENT;
	while (err == -ENOENT && (e = readdir(d))) {
		char slice[PATH_MAX];

		if (e->d_type != DT_DIR || !ends_with(e->d_name, ".slice") ||
		    snprintf(slice, sizeof(slice), "%s/%s", dir, e->d_name) >= (int)sizeof(slice))
			continue;
		err = find_in(slice, name, path, size, depth + 1);
	}
	closedir(d);
	return err;
}

int cgroupfs_find_unit(const char *root, const char *name, char *path, size_t size)
{
	/* The root slice's cgroup is the root itself. */
	if (!strcmp(name, "-.slice"))
		return snprintf(path, size, "%s", root) >= (int)size ? -ENAMETOOLONG : 0;
	return find_in(root, name, path, size, 0);
}

int cgroupfs_unit_parent(const char *root, const char *name, char *path, size_t size)
{
	size_t len = strlen(root);

	if (snprintf(path, size, "%s", root) >= (int)size)
		return -ENAMETOOLONG;
	if (!ends_with(name, ".slice"))
		return snprintf(path + len, size - len, "/system.slice") >= (int)(size - len) ?
			       -ENAMETOOLONG : 0;
	/* "a-b-c.slice" is in "a.slice/a-b.slice/". */
	for (const char *dash = strchr(name, '-'); dash && dash[1] != '.' && dash != name;
	     dash = strchr(dash + 1, '-')) {
		int n = snprintf(path + len, size - len, "/%.*s.slice", (int)(dash - name), name);

		if (n >= (int)(size - len))
			return -ENAMETOOLONG;
		len += n;
	}
	return 0;
}

/* "a@b.service" comes from the template "a@.service". */
static void template_of(const char *name, char *template, size_t size)
{
	const char *at = strchr(name, '@'), *dot = strrchr(name, '.');

	if (at && dot && dot > at)
		snprintf(template, size, "%.*s%s", (int)(at - name + 1), name, dot);
	else
		template[0] = '\0';
}

bool cgroupfs_unit_file_exists(const char *name)
{
	char path[PATH_MAX], template[UNIT_NAME_MAX + 1];

	template_of(name, template, sizeof(template));
	for (size_t i = 0; i < ARRAY_SIZE(unit_file_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", unit_file_dirs[i], name);
		if (!access(path, F_OK))
			return true;
		snprintf(path, sizeof(path), "%s/%s", unit_file_dirs[i], template);
		if (*template && !access(path, F_OK))
			return true;
	}
	return false;
}

int cgroupfs_of_process(pid_t pid, char *path, size_t size)
{
	char file[64], *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (err == -ENOENT && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		err = snprintf(path, size, "%s%s", CGROUPFS_ROOT, line + 3) < (int)size ?
		      0 : -ENAMETOOLONG;
	}
	free(line);
	fclose(f);
	return err;
}
