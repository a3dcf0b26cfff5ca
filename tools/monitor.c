// SPDX-License-Identifier: GPL-2.0
/*
 * monitor: the MP3 course's reader. Prints the samples waiting in the classic
 * region of /dev/mp3, one "jiffies minor major cpu" line each, and marks
 * them consumed, so "monitor > profile1.data" collects a profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "output.h"
#include "pfprof.h"

#define PROG "monitor"

#define EXIT_USAGE 2

_Static_assert(MP3_CLASSIC_SAMPLES * sizeof(struct mp3_classic_sample) <=
	       MP3_CLASSIC_SIZE, "the classic samples must fit the region");

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options] [DEVICE]\n"
		"\n"
		"Print the samples waiting in the classic region of the mp3 device\n"
		"DEVICE (default " MP3_DEVICE_PATH "), one line each:\n"
		"  jiffies minor_faults major_faults cpu_jiffies\n"
		"reading from slot 0 up to the first empty slot, and mark every\n"
		"printed slot empty again so the next run does not print it twice.\n"
		"\n"
		"Options:\n"
		"  -h, --help     show this help and exit\n"
		"  -V, --version  show the version and exit\n"
		"\n"
		"Exit status: 0 success, 1 runtime failure, 2 usage error.\n");
}

static _Noreturn void usage_error(void)
{
	fputs("Try '" PROG " --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static const char *parse_arguments(int argc, char *argv[])
{
	static const struct option long_options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "hV", long_options, NULL)) != -1) {
		switch (opt) {
		case 'h':
			print_usage(stdout);
			exit(finish_stdout(PROG));
		case 'V':
			printf(PROG " (pfprof) %s\n", pfprof_version);
			exit(finish_stdout(PROG));
		default:
			/* getopt_long has already said what was wrong. */
			usage_error();
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind + 1]);
		usage_error();
	}
	return optind < argc ? argv[optind] : MP3_DEVICE_PATH;
}

static void print_open_hint(int error, const char *device)
{
	if (error == ENOENT)
		fprintf(stderr, PROG ": hint: the device node is missing: load the "
			"module (modprobe mp3) or create it with: mknod %s c %d %d\n",
			device, MP3_CHRDEV_MAJOR, MP3_CHRDEV_MINOR);
	else if (error == ENXIO || error == ENODEV)
		fprintf(stderr, PROG ": hint: the mp3 module is not loaded: modprobe mp3\n");
}

/* A regular file shorter than the region (a test stand-in for the device)
 * would fault with SIGBUS instead of failing cleanly. */
static int check_size(int fd, const char *device)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		fprintf(stderr, PROG ": cannot stat %s: %s\n", device, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode) && st.st_size < MP3_CLASSIC_SIZE) {
		fprintf(stderr, PROG ": %s is smaller than the classic region (%d bytes)\n",
			device, MP3_CLASSIC_SIZE);
		return -1;
	}
	return 0;
}

static struct mp3_classic_sample *map_classic_region(const char *device)
{
	void *region;
	int fd = open(device, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int error = errno;

		fprintf(stderr, PROG ": cannot open %s: %s\n", device, strerror(error));
		print_open_hint(error, device);
		return NULL;
	}
	if (check_size(fd, device) != 0) {
		close(fd);
		return NULL;
	}
	region = mmap(NULL, MP3_CLASSIC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, MP3_CLASSIC_OFFSET);
	if (region == MAP_FAILED) {
		fprintf(stderr, PROG ": cannot map the classic region of %s: %s\n",
			device, strerror(errno));
		close(fd);
		return NULL;
	}
	/* The mapping keeps the device open. */
	close(fd);
	return region;
}

/* The kernel stores jiffies last, after a write barrier: an acquire load
 * that sees a value other than EMPTY therefore sees the whole sample.
 * Returns 0, or -1 if standard output failed (the failed slot stays). */
static int drain_samples(struct mp3_classic_sample *slots)
{
	for (int i = 0; i < MP3_CLASSIC_SAMPLES; i++) {
		struct mp3_classic_sample *slot = &slots[i];
		__kernel_ulong_t jiffies = __atomic_load_n(&slot->jiffies,
							   __ATOMIC_ACQUIRE);

		if (jiffies == MP3_CLASSIC_EMPTY)
			break;
		if (printf("%lu %lu %lu %lu\n", jiffies, slot->minor_faults,
			   slot->major_faults, slot->cpu_jiffies) < 0)
			return -1;
		slot->minor_faults = MP3_CLASSIC_EMPTY;
		slot->major_faults = MP3_CLASSIC_EMPTY;
		slot->cpu_jiffies = MP3_CLASSIC_EMPTY;
		/* Empty jiffies last: it is what marks the slot free. */
		__atomic_store_n(&slot->jiffies, MP3_CLASSIC_EMPTY, __ATOMIC_RELEASE);
	}
	return 0;
}

int main(int argc, char *argv[])
{
	const char *device = parse_arguments(argc, argv);
	struct mp3_classic_sample *slots = map_classic_region(device);

	if (slots == NULL)
		return EXIT_FAILURE;
	if (drain_samples(slots) != 0)
		return stdout_failed(PROG);
	return finish_stdout(PROG);
}
