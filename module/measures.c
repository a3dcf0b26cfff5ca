// SPDX-License-Identifier: GPL-2.0
/*
 * What a registration may measure beyond its counts, in one table: the
 * registry, the groups and the core reach each measure only through these
 * helpers, as DAMON's core reaches its address spaces only through struct
 * damon_operations. A new measure is a file with its struct mp3_measure,
 * an id in internal.h and a line here.
 */
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/lockdep.h>

#include "internal.h"

static const struct mp3_measure *const mp3_measures[MP3_MEASURES] = {
	[MP3_MEASURE_MAPS] = &mp3_maps_measure,
	[MP3_MEASURE_LATENCY] = &mp3_latency_measure,
	[MP3_MEASURE_PAGES] = &mp3_pages_measure,
};

int mp3_measures_allowed(const struct file *file, unsigned int set)
{
	unsigned long bits = set;
	int id, err;

	for_each_set_bit(id, &bits, MP3_MEASURES) {
		err = mp3_measures[id]->allowed(file);
		if (err)
			return err;
	}
	return 0;
}

int __mp3_measures_arm(unsigned int set)
{
	unsigned long bits = set;
	int id, err;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES) {
		err = mp3_measures[id]->__arm ? mp3_measures[id]->__arm() : 0;
		if (err)
			return err;
	}
	return 0;
}

unsigned int mp3_measures_attach(void *state[MP3_MEASURES], const struct mp3_measured *m,
				 unsigned int set, gfp_t gfp)
{
	unsigned long bits = set;
	unsigned int attached = 0;
	int id;

	for_each_set_bit(id, &bits, MP3_MEASURES) {
		state[id] = mp3_measures[id]->attach(m, gfp);
		if (state[id])
			attached |= MP3_MEASURE(id);
	}
	return attached;
}

void mp3_measures_hashed(void *const state[MP3_MEASURES], const struct mp3_measured *m,
			 unsigned int set)
{
	unsigned long bits = set;
	int id;

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->hashed)
			mp3_measures[id]->hashed(state[id], m);
}

void mp3_measures_unhashed(void *const state[MP3_MEASURES], unsigned int set)
{
	unsigned long bits = set;
	int id;

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->unhashed)
			mp3_measures[id]->unhashed(state[id]);
}

unsigned int __mp3_measures_follow(void *const state[MP3_MEASURES],
				   const struct mp3_measured *m, unsigned int pending, int *err)
{
	unsigned long bits = pending;
	int id, ret;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES) {
		ret = mp3_measures[id]->__follow ? mp3_measures[id]->__follow(state[id], m) : 0;
		if (!ret)
			pending &= ~MP3_MEASURE(id);
		else if (!*err)
			*err = ret;
	}
	return pending;
}

void __mp3_measures_counted(void *const state[MP3_MEASURES], unsigned int set)
{
	unsigned long bits = set;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__counted)
			mp3_measures[id]->__counted(state[id]);
}

void __mp3_measures_changed(void *const state[MP3_MEASURES], const struct mp3_measured *m)
{
	unsigned long bits = m->measures;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__changed)
			mp3_measures[id]->__changed(state[id], m);
}

void __mp3_measures_visit(void *const state[MP3_MEASURES], const struct mp3_measured *m)
{
	unsigned long bits = m->measures;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__visit)
			mp3_measures[id]->__visit(state[id], m);
}

void mp3_measures_exec(unsigned int set, struct task_struct *task)
{
	unsigned long bits = set;
	int id;

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->exec)
			mp3_measures[id]->exec(task);
}

void __mp3_measures_gone(void *const state[MP3_MEASURES], const struct mp3_measured *m,
			 bool place)
{
	unsigned long bits = m->measures;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__gone)
			mp3_measures[id]->__gone(state[id], m, place);
}

void __mp3_measures_leave(void *const state[MP3_MEASURES], const struct mp3_measured *m)
{
	unsigned long bits = m->measures;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__leave)
			mp3_measures[id]->__leave(state[id], m);
}

void mp3_measures_release(void *const state[MP3_MEASURES], unsigned int set)
{
	unsigned long bits = set;
	int id;

	for_each_set_bit(id, &bits, MP3_MEASURES)
		mp3_measures[id]->release(state[id]);
}

int mp3_measures_group_get(enum mp3_measure_id id, const struct mp3_group_view *g)
{
	return mp3_measures[id]->group_get ? mp3_measures[id]->group_get(g) : 0;
}

void mp3_measures_group_put(unsigned int set, const struct mp3_group_view *g)
{
	unsigned long bits = set;
	int id;

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->group_put)
			mp3_measures[id]->group_put(g);
}

/* Every measure, for what each does whether or not a process has it. */
#define MP3_EVERY_MEASURE (MP3_MEASURE(MP3_MEASURES) - 1)

void __mp3_measures_tick(void)
{
	unsigned long bits = MP3_EVERY_MEASURE;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__tick)
			mp3_measures[id]->__tick();
}

void __mp3_measures_reap(void)
{
	unsigned long bits = MP3_EVERY_MEASURE;
	int id;

	lockdep_assert_held(&mp3_lock);
	might_sleep();

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__reap)
			mp3_measures[id]->__reap();
}

void __mp3_measures_losses(struct mp3_losses *losses)
{
	unsigned long bits = MP3_EVERY_MEASURE;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__losses)
			mp3_measures[id]->__losses(losses);
}

void __mp3_measures_stop(void)
{
	unsigned long bits = MP3_EVERY_MEASURE;
	int id;

	lockdep_assert_held(&mp3_lock);

	for_each_set_bit(id, &bits, MP3_MEASURES)
		if (mp3_measures[id]->__stop)
			mp3_measures[id]->__stop();
}
