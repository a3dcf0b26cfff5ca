// SPDX-License-Identifier: GPL-2.0
/* pfprofctl plot: faults and CPU time from the logs, totals and rates, via gnuplot. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "ctl.h"
#include "gnuplot.h"
#include "logformat.h"
#include "logrotate.h"
#include "maps.h"
#include "procs.h"
#include "script.h"
#include "words.h"

enum { OPT_OUTPUT };

/* What is drawn: the logs of config.log_dir, or one samples log. */
struct plot_source {
	struct pfprof_config config;	/* log_dir, keep, targets_file (targets' labels) */
	const char *file;		/* the samples log given, or NULL */
	const char *label;		/* the log_dir or file, for titles and messages */
	bool given;			/* on the command line */
};

/* The first line of a samples log, which says so: 0, -EINVAL (reported) or -errno. */
static int check_magic(FILE *from, const char *path, char **line, size_t *size, ssize_t *len)
{
	errno = 0;
	*len = getline(line, size, from);
	if (*len < 0 && ferror(from))
		return errno ? -errno : -EIO;
	if (*len < 0 || strncmp(*line, LOGFORMAT_MAGIC, strlen(LOGFORMAT_MAGIC))) {
		ctl_error(0, "%s is not a pfprof samples log (its first line is not '"
			  LOGFORMAT_MAGIC "N')", path);
		return -EINVAL;
	}
	return 0;
}

/*
 * Copies the samples log at path to to, adding its samples to *samples.
 * 0, -ENOENT if there is no such file, or -errno (reported).
 */
static int copy_log(FILE *to, const char *path, long *samples)
{
	FILE *from = fopen(path, "re");
	char *line = NULL;
	size_t size = 0;
	ssize_t len = 0;
	int err;

	if (!from) {
		err = -errno;
		if (err != -ENOENT)
			ctl_error(err, "reading %s", path);
		return err;
	}
	err = check_magic(from, path, &line, &size, &len);
	for (; !err && len > 0; len = getline(&line, &size, from)) {
		*samples += line[0] != '#';
		fwrite(line, 1, (size_t)len, to);
	}
	if (!err && ferror(from))
		err = errno ? -errno : -EIO;
	if (err && err != -EINVAL)
		ctl_error(err, "reading %s", path);
	free(line);
	fclose(from);
	return err;
}

/* What gather_logs() hands logrotate_each(). */
struct gathered {
	FILE *to;
	long *samples;
	int logs;
	bool reported;	/* copy_log() has said why it failed */
};

static int gather_log(const char *path, void *arg)
{
	struct gathered *g = arg;
	int err = copy_log(g->to, path, g->samples);

	/* Rotated away since the listing: its samples are in the next file. */
	if (err == -ENOENT)
		return 0;
	g->logs += !err;
	g->reported = err;
	return err;
}

/*
 * Copies every log, oldest first, into one file for gnuplot (so that no
 * file name goes through a shell), counting their samples. Returns how many
 * logs, or -errno (reported).
 */
static int gather_logs(const struct pfprof_config *config, FILE *to, long *samples)
{
	struct gathered g = { .to = to, .samples = samples };
	int err = logrotate_each(config->log_dir, LOGKIND_SAMPLES, config->keep,
				 LOGROTATE_OLDEST_FIRST, gather_log, &g);

	if (err == -ENOENT)
		return 0;
	if (err) {
		if (!g.reported)
			ctl_error(err, "the logs in %s", config->log_dir);
		return err;
	}
	if (fflush(to)) {
		ctl_error(-errno, "writing the samples for gnuplot");
		return -EIO;
	}
	return g.logs;
}

/* The per-process and per-mapping curves split out of the logs, for gnuplot. */
struct plot_split {
	struct plot_procs procs;
	struct plot_maps maps;
};

/* 0, or the exit status of gnuplot (127: not installed), or -errno. */
static int run_gnuplot(const char *script, const char *data, const struct plot_split *split,
		       const char *label, const char *out)
{
	const struct plot_procs *procs = &split->procs;
	const struct plot_maps *maps = &split->maps;
	char *expr;
	int rc;

	if (asprintf(&expr, "files='%s'; procfiles='%s'; proctitles='%s'; targetfiles='%s'; "
		     "targettitles='%s'; targetprocs='%s'; targetprocfiles='%s'; "
		     "targetproctitles='%s'; mapfiles='%s'; maptitles='%s'; mapmajor=%d; "
		     "label='%s'; out='%s'", data,
		     plot_words_text(&procs->procfiles), plot_words_text(&procs->proctitles),
		     plot_words_text(&procs->targetfiles), plot_words_text(&procs->targettitles),
		     plot_words_text(&procs->targetprocs), plot_words_text(&procs->targetprocfiles),
		     plot_words_text(&procs->targetproctitles), plot_words_text(&maps->mapfiles),
		     plot_words_text(&maps->maptitles), maps->majors, label, out) < 0)
		return -ENOMEM;
	rc = gnuplot_run(expr, script);
	free(expr);
	return rc;
}

/*
 * The per-process and faults logs split for gnuplot; without them (a file
 * given), the plot lacks their panels.
 */
static void split_logs(const struct plot_source *src, const char *dir, struct plot_split *split)
{
	const struct pfprof_config *config = &src->config;
	struct target_list targets;
	int err;

	if (src->file)
		return;
	err = target_list_read(config->targets_file, &targets, NULL, NULL);
	if (err)
		ctl_error(err, "reading %s (targets named by their numbers)", config->targets_file);
	err = plotprocs_split(config, &targets, dir, &split->procs);
	if (err)
		ctl_error(err, "reading the per-process logs in %s (plotting without them)",
			  config->log_dir);
	target_list_free(&targets);
	err = plotmaps_split(config, dir, &split->maps);
	if (err)
		ctl_error(err, "reading the faults logs in %s (plotting without them)",
			  config->log_dir);
}

/* "wrote FILE from N log files, M processes[, T targets | T of U targets][, K of L mappings]" */
static void report(const char *out, int logs, const struct plot_split *split)
{
	const struct plot_procs *procs = &split->procs;

	printf("wrote %s from %d log file%s, %d process%s", out, logs, logs == 1 ? "" : "s",
	       procs->n, procs->n == 1 ? "" : "es");
	if (procs->targets < procs->targets_seen)
		printf(", %d of %d targets", procs->targets, procs->targets_seen);
	else if (procs->targets)
		printf(", %d target%s", procs->targets, procs->targets == 1 ? "" : "s");
	if (split->maps.n)
		printf(", %d of %d mapping%s", split->maps.n, split->maps.seen,
		       split->maps.seen == 1 ? "" : "s");
	putchar('\n');
}

/* gather_logs() for one file given: 1, or -errno (reported). */
static int gather_file(const char *path, FILE *to, long *samples)
{
	int err = copy_log(to, path, samples);

	if (err == -ENOENT)
		ctl_error(err, "reading %s", path);
	return err ? err : 1;
}

/*
 * The samples of the logs, gathered into data: how many logs, or 0 or
 * -errno with the reason reported (no logs, no samples).
 */
static int gather(const struct plot_source *src, const char *data)
{
	FILE *f = fopen(data, "we");
	long samples = 0;
	int n;

	if (!f) {
		ctl_error(-errno, "creating %s", data);
		return -EIO;
	}
	n = src->file ? gather_file(src->file, f, &samples) :
			gather_logs(&src->config, f, &samples);
	fclose(f);
	if (n == 0) {
		ctl_error(0, "%s holds no pfprof logs (" LOGFORMAT_FILE "*)", src->label);
		if (src->given)
			ctl_hint("a log of another name: pfprofctl plot FILE");
		else
			ctl_hint("pfprofd writes them; see: pfprofctl status");
	} else if (n > 0 && !samples) {
		ctl_error(0, "no samples in %s yet: %s only the header", src->label,
			  src->file ? "it holds" : n == 1 ? "its log holds" : "its logs hold");
		ctl_hint("the module samples while processes are profiled (pfprofctl add);"
			 " see: pfprofctl status");
		n = 0;
	}
	return n;
}

/* What gnuplot's exit status rc means, reported; the script's own are documented there. */
static void plot_failed(int rc, const char *script, const char *label)
{
	if (rc == 3)
		ctl_error(0, "no line of %s has a sample's columns (time, faults, CPU):"
			  " not a pfprof log?", label);
	else
		gnuplot_failed(rc, script);
}

/* Draws into out (the temporary PNG): PFPROF_EXIT_OK, or the failure reported. */
static int draw(const struct plot_source *src, const char *script, const char *out, int *logs,
		struct plot_split *split)
{
	char dir[] = "/tmp/pfprof-plot.XXXXXX", data[sizeof(dir) + 8];
	int rc = PFPROF_EXIT_FAILED;

	if (!mkdtemp(dir)) {
		ctl_error(-errno, "creating %s", dir);
		return PFPROF_EXIT_FAILED;
	}
	snprintf(data, sizeof(data), "%s/samples", dir);
	*logs = gather(src, data);
	if (*logs > 0) {
		split_logs(src, dir, split);
		rc = run_gnuplot(script, data, split, src->label, out);
		if (rc)
			plot_failed(rc, script, src->label);
	}
	gnuplot_remove_dir(dir);
	return rc ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

/* The PNG is drawn beside out and renamed over it once drawn: a failure leaves out as it was. */
static int plot(const struct plot_source *src, const char *script, const char *out)
{
	struct plot_split split = { 0 };
	struct atomic_file png;
	int logs = 0, rc, err = atomic_file_begin(&png, out);

	if (err) {
		ctl_error(err, "writing %s", out);
		return PFPROF_EXIT_FAILED;
	}
	rc = draw(src, script, png.temp, &logs, &split);
	if (rc)
		atomic_file_abort(&png);
	else if ((err = atomic_file_commit(&png, gnuplot_new_file_mode(), false)))
		ctl_error(err, "writing %s", out);
	else
		report(out, logs, &split);
	plotprocs_free(&split.procs);
	plotmaps_free(&split.maps);
	return rc || err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

/* The logs of the configured log_dir, of a directory, or the one file given. */
static int source(const struct ctl *ctl, const char *arg, struct plot_source *src)
{
	struct stat st;

	src->config = ctl->config;
	src->file = NULL;
	src->label = src->config.log_dir;
	src->given = arg;
	if (!arg)
		return 0;
	if (stat(arg, &st)) {
		int err = -errno;

		ctl_error(err, "reading %s", arg);
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		src->file = src->label = arg;
		return 0;
	}
	if ((size_t)snprintf(src->config.log_dir, sizeof(src->config.log_dir), "%s", arg) >=
	    sizeof(src->config.log_dir)) {
		ctl_error(-ENAMETOOLONG, "reading %s", arg);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	const char *out = call->option[OPT_OUTPUT].set ? call->option[OPT_OUTPUT].string : "pfprof.png";
	char buf[PATH_MAX];
	const char *script;
	static struct plot_source src;	/* a configuration is large */

	if (ctl_picture_of(out) != CTL_PICTURE_PNG)
		return ctl_usage_error(&ctl_plot_command, "%s wants a .png file (plot draws PNG "
				       "only), not '%s'", call->option[OPT_OUTPUT].typed, out);
	if (source(ctl, call->nr_operands ? call->operands[0] : NULL, &src))
		return PFPROF_EXIT_FAILED;
	/* They go inside '...' on gnuplot's command line. */
	if (strchr(out, '\'') || strchr(src.label, '\'')) {
		ctl_error(-EINVAL, "a single quote in %s or %s", out, src.label);
		return PFPROF_EXIT_FAILED;
	}
	script = plot_script_find(buf, sizeof(buf));
	return script ? plot(&src, script, out) : PFPROF_EXIT_FAILED;
}

const struct ctl_command ctl_plot_command = {
	.name = "plot", .operands = "[DIR|LOG]", .max_operands = 1,
	.summary = "Plot faults and CPU time from the logs (PNG)",
	.details = "Reads every log in the log directory (or DIR), oldest first, or the\n"
		   "samples log LOG alone (no per-process panels), and draws the\n"
		   "cumulative minor and major faults (one axis), their rates, the CPU\n"
		   "time and CPU use against the time since the first sample (its UTC\n"
		   "time in the title), and the cumulative faults of each of the 8\n"
		   "processes with the most (per-process log);\n"
		   "with targets, those without one there, and a panel for each of the 6\n"
		   "targets with the most: its total (exited processes too) and its 5\n"
		   "processes with the most.\n"
		   "The gnuplot script is " PLOTSCRIPT_NAME " beside pfprofctl, in ../plots\n"
		   "from it (the source tree) or " PFPROF_PLOT_SCRIPT "\n"
		   "(PFPROF_PLOT_SCRIPT overrides).\n",
	.options = {
		[OPT_OUTPUT] = { "output", 'o', CTL_STRING, "FILE",
				 "the PNG to write (default pfprof.png)" },
	},
	.run = run,
};
