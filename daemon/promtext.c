// SPDX-License-Identifier: GPL-2.0
#include "promtext.h"

#include <inttypes.h>
#include <limits.h>

#include "clock.h"

uint64_t prom_field_at(const void *base, const struct prom_counter *c)
{
	return *(const uint64_t *)((const char *)base + c->offset);
}

void prom_put_header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* HELP and TYPE before a metric's first series: none for a metric without series. */
void prom_put_header_once(FILE *out, bool *done, const char *name, const char *type,
			  const char *help)
{
	if (!*done)
		prom_put_header(out, name, type, help);
	*done = true;
}

void prom_put_value(FILE *out, uint64_t value, bool nanoseconds)
{
	if (nanoseconds)
		fprintf(out, " %" PRIu64 ".%09" PRIu64 "\n", value / NSEC_PER_SEC,
			value % NSEC_PER_SEC);
	else
		fprintf(out, " %" PRIu64 "\n", value);
}

void prom_put_counter(FILE *out, const char *name, const char *help, uint64_t value,
		      bool nanoseconds)
{
	prom_put_header(out, name, "counter", help);
	fputs(name, out);
	prom_put_value(out, value, nanoseconds);
}

void prom_put_gauge(FILE *out, const char *name, const char *help, double value)
{
	prom_put_header(out, name, "gauge", help);
	fprintf(out, "%s %.4f\n", name, value);
}

/*
 * A label value: backslash and double quote escaped as the format wants;
 * bytes that are not printable ASCII become '?', since a comm may be cut in
 * the middle of a UTF-8 character and the format takes only valid UTF-8.
 */
void prom_put_label_value(FILE *out, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', out);
	}
}

/*
 * target="<label>": "" for none rather than no label, so that every series of
 * a metric has the same label names, as client libraries make them (to
 * Prometheus an empty value is no label).
 */
void prom_put_target_label(FILE *out, const struct target_list *targets, uint32_t number)
{
	fputs("target=\"", out);
	if (number) {
		char label[PATH_MAX + 32];

		prom_put_label_value(out, target_label(targets, number, label, sizeof(label)));
	}
	fputc('"', out);
}

/* name{pid="...",comm="...",target="..." and the labels' closing brace are the caller's. */
void prom_put_process_labels(FILE *out, const char *name, struct proc_entry *e,
			     const struct target_list *targets)
{
	fprintf(out, "%s{pid=\"%d\",comm=\"", name, (int)e->tgid);
	prom_put_label_value(out, proctable_name(e));
	fputs("\",", out);
	prom_put_target_label(out, targets, e->target);
}

/* Seconds from whole microseconds (delay accounting's and PSI's). */
void prom_put_microseconds(FILE *out, uint64_t us)
{
	fprintf(out, " %" PRIu64 ".%06" PRIu64 "\n", us / 1000000, us % 1000000);
}
