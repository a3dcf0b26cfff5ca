# pfprof top-level Makefile: delegates to the parts.
#   make                build mp3.ko (for KVER, default the running kernel), the tools,
#                       pfprofd and pfprofctl
#   make check          build everything and run the test suite in a QEMU guest
#                       (guest kernel: Debian's linux-image-amd64, or KVER=... if given)
#   make clean
all: module tools daemon

module:
	$(MAKE) -C module

tools:
	$(MAKE) -C tools

daemon:
	$(MAKE) -C daemon

check:
	tests/check.sh

clean:
	$(MAKE) -C module clean
	$(MAKE) -C tools clean
	$(MAKE) -C daemon clean
	$(MAKE) -C tests/guest clean
	rm -rf build

.PHONY: all module tools daemon check clean
