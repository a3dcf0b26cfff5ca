/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of the Prometheus text exposition format that promfile.c and
 * promwaits.c write: a metric's HELP and TYPE, values, escaped labels.
 */
#ifndef PFPROF_PROMTEXT_H
#define PFPROF_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proctable.h"
#include "targets.h"

/*
 * A counter kept as a uint64_t at offset in its struct (struct counters,
 * struct proc_entry, struct target_total or struct owner_losses).
 */
struct prom_counter {
	const char *name;
	const char *help;
	size_t offset;
	bool nanoseconds;	/* exported in seconds */
};

/* c's value in base, the struct it names. */
uint64_t prom_field_at(const void *base, const struct prom_counter *c);

/* A metric's HELP and TYPE lines. */
void prom_put_header(FILE *out, const char *name, const char *type, const char *help);

/* HELP and TYPE before a metric's first series: none for a metric without series. */
void prom_put_header_once(FILE *out, bool *done, const char *name, const char *type,
			  const char *help);

/* " <value>" and the line's end; nanoseconds: value is in ns, written in seconds. */
void prom_put_value(FILE *out, uint64_t value, bool nanoseconds);

/* A counter of one series without labels, with its HELP and TYPE. */
void prom_put_counter(FILE *out, const char *name, const char *help, uint64_t value,
		      bool nanoseconds);

/* A gauge of one series without labels, with its HELP and TYPE. */
void prom_put_gauge(FILE *out, const char *name, const char *help, double value);

/*
 * A label value: backslash and double quote escaped as the format wants;
 * bytes that are not printable ASCII become '?', since a comm may be cut in
 * the middle of a UTF-8 character and the format takes only valid UTF-8.
 */
void prom_put_label_value(FILE *out, const char *text);

/*
 * target="<label>": "" for none rather than no label, so that every series of
 * a metric has the same label names, as client libraries make them (to
 * Prometheus an empty value is no label).
 */
void prom_put_target_label(FILE *out, const struct target_list *targets, uint32_t number);

/* name{pid="...",comm="...",target="..." and the labels' closing brace are the caller's. */
void prom_put_process_labels(FILE *out, const char *name, struct proc_entry *e,
			     const struct target_list *targets);

/* Seconds from whole microseconds (delay accounting's and PSI's). */
void prom_put_microseconds(FILE *out, uint64_t us);

#endif /* PFPROF_PROMTEXT_H */
