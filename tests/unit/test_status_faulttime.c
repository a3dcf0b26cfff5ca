// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl/status/faulttime: pfprofctl status's fault times, the ring's
 * latency records per target.
 */
#include <string.h>

#include "status/faulttime.h"
#include "ring_region.h"

/* Where the next sample and record go. */
struct writer {
	struct region r;
	uint64_t sample, record;
};

static void put_record(struct writer *w, struct mp3_proc_record rec)
{
	rec.seq = w->record;
	rec.sample = w->sample;
	*record_at(&w->r, w->record++) = rec;
	w->r.hdr->record_head = w->record;
}

/* A latency record of tgid, of target. */
static void put_latency(struct writer *w, pid_t tgid, uint32_t target, uint16_t major,
			uint16_t bucket, uint32_t faults, uint64_t time_ns)
{
	struct mp3_proc_record rec = { .tgid = tgid, .target = target,
				       .type = MP3_RECORD_LATENCY };

	rec.latency.major = major;
	rec.latency.bucket = bucket;
	rec.latency.faults = faults;
	rec.latency.time_ns = time_ns;
	put_record(w, rec);
}

/* Publishes the sample of the records put since the last; its period ends at n + 1 periods. */
static void end_sample(struct writer *w, uint64_t first_record)
{
	struct mp3_ring_sample *s = slot_at(&w->r, w->sample);

	memset(s, 0, sizeof(*s));
	s->seq = w->sample;
	s->time_ns = (w->sample + 1) * w->r.hdr->period_ns;
	s->first_record = first_record;
	s->nr_records = (uint32_t)(w->record - first_record);
	w->r.hdr->head = ++w->sample;
}

static struct writer make_writer(void)
{
	return (struct writer){ .r = make_default(4) };
}

/*
 * A target's timed processes are summed, a timed process of none has its
 * own entry with its name, a process not timed none; targets first.
 */
static void test_by_target(void)
{
	struct writer w = make_writer();
	struct fault_times t;
	struct mp3ring ring;
	uint64_t first = w.record;

	put_record(&w, (struct mp3_proc_record){ .tgid = 12, .type = MP3_RECORD_COMM,
						 .comm = "sh" });
	put_latency(&w, 12, 0, 0, 1, 4, 2000);
	put_latency(&w, 10, 7, 0, 0, 2, 600);
	put_latency(&w, 11, 7, 1, 12, 1, 1500000);
	put_record(&w, (struct mp3_proc_record){ .tgid = 13, .target = 9,
						 .type = MP3_RECORD_COUNTS });
	end_sample(&w, first);
	first = w.record;
	put_latency(&w, 10, 7, 0, 0, 3, 900);
	end_sample(&w, first);
	attach(&ring, &w.r);
	expect(!fault_times_read(&ring, &t), "fault_times_read failed");
	expect(t.count == 2, "%zu entries, want target 7 and process 12", t.count);
	expect(t.v[0].target == 7 && t.v[0].pid == 0 &&
	       latency_count(&t.v[0].latency[LATENCY_MINOR]) == 5 &&
	       t.v[0].latency[LATENCY_MINOR].time_ns == 1500 &&
	       t.v[0].latency[LATENCY_MAJOR].faults[12] == 1, "target 7 not summed");
	expect(t.v[1].target == 0 && t.v[1].pid == 12 && !strcmp(t.v[1].comm, "sh") &&
	       t.v[1].latency[LATENCY_MINOR].faults[1] == 4, "process 12: pid %d, comm '%s'",
	       (int)t.v[1].pid, t.v[1].comm);
	expect(t.seconds > 0.0999 && t.seconds < 0.1001, "%.4f s, want two periods of 50 ms",
	       t.seconds);
	fault_times_free(&t);
	free(w.r.mem);
}

/* Only the samples the ring still holds count: a sample overwritten is not read. */
static void test_ring_only(void)
{
	struct writer w = make_writer();
	struct fault_times t;
	struct mp3ring ring;

	for (int n = 0; n < 6; n++) {
		uint64_t first = w.record;

		put_latency(&w, 10, 0, 1, (uint16_t)n, 1, 1000);
		end_sample(&w, first);
	}
	put_record(&w, (struct mp3_proc_record){ .tgid = 10, .type = MP3_RECORD_COMM,
						 .comm = "dd" });
	attach(&ring, &w.r);
	expect(!fault_times_read(&ring, &t), "fault_times_read failed");
	expect(t.count == 1 && latency_count(&t.v[0].latency[LATENCY_MAJOR]) == 4 &&
	       !t.v[0].latency[LATENCY_MAJOR].faults[1] &&
	       t.v[0].latency[LATENCY_MAJOR].faults[2] == 1, "not the ring's last 4 samples");
	expect(t.seconds > 0.1999 && t.seconds < 0.2001, "%.4f s, want 4 periods", t.seconds);
	fault_times_free(&t);
	free(w.r.mem);
}

/* No timed process: nothing, not entries of none. */
static void test_none(void)
{
	struct writer w = make_writer();
	struct fault_times t;
	struct mp3ring ring;

	put_record(&w, (struct mp3_proc_record){ .tgid = 10, .type = MP3_RECORD_COUNTS });
	end_sample(&w, 0);
	attach(&ring, &w.r);
	expect(!fault_times_read(&ring, &t) && t.count == 0, "%zu entries, want none", t.count);
	fault_times_free(&t);
	free(w.r.mem);
}

UNIT_TESTS(UNIT_TEST(by_target), UNIT_TEST(ring_only), UNIT_TEST(none));
