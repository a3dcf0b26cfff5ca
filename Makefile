# pfprof top-level Makefile: delegates to the parts.
#   make demo             see pfprof work: installs what it needs, boots a QEMU guest,
#                         profiles the course's case study 1b with pfprofd there, draws
#                         demo/pfprof-demo.png and prints a summary (about 2 minutes)
#   make                  build libpfprof, the tools, pfprofd, pfprofctl and mp3.ko (for KVER,
#                         default the running kernel) if that kernel's headers are
#                         installed; without them, say where they come from (apt's
#                         package for a Debian kernel) and which kernels have theirs
#   make module           build mp3.ko, and fail without the headers
#   make deb              the Debian packages, ../pfprof-dkms_*.deb and ../pfprofd_*.deb:
#                         their build dependencies first, with apt (as root); the tests
#                         are make check's (DEB_BUILD_OPTIONS=nocheck)
#   make install          install pfprofd, pfprofctl, the tools, man pages, bash completion,
#                         the udev rule, the systemd units (pfprofd's, heatmap
#                         recordings') and pfprofd's sysusers/tmpfiles fragments (PREFIX,
#                         default /usr/local; DESTDIR for staging)
#   make dkms-install     install the module's source under /usr/src and let DKMS build
#                         and install it for the running kernel (and future ones)
#   make uninstall        undo both
#   make check-unit       the host unit tests (tests/unit), in seconds
#   make check            everything: static analysis and sanitizers (check-static), then
#                         in QEMU guests the module and daemon suite (check-module) and
#                         the Debian packages in a systemd guest (check-packages)
#   make case-studies     run the case studies in QEMU guests with swap (83 minutes here)
#                         and render plots/*.png from plots/data/ (see docs/analysis.md)
#   make case-study-db    case study 3: PostgreSQL under a shrinking MemoryMax, in a Debian 13
#                         systemd guest (15 minutes here); plots/case_3*.png from plots/data/case_3/
#   make bench            measure what profiling costs, in a QEMU guest; prints the results
#                         and writes bench/results.md (with how long the run took)
#   make bench-damon      what DAMON's access maps cost beside the fault sampler, in a
#                         Debian 13 guest; writes bench/damon-results.md
#   make clean
# Without DESTDIR the install targets also apply what they installed (create the user,
# reload udev and systemd); the Debian packages (debian/rules) use DESTDIR.

include version.mk

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/pfprof
DATADIR ?= $(PREFIX)/share/pfprof
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
# systemd and udev also read these directories under /usr/local/lib.
SYSTEMDLIBDIR ?= $(PREFIX)/lib
UDEVRULESDIR ?= $(SYSTEMDLIBDIR)/udev/rules.d
UNITDIR ?= $(SYSTEMDLIBDIR)/systemd/system
SYSUSERSDIR ?= $(SYSTEMDLIBDIR)/sysusers.d
TMPFILESDIR ?= $(SYSTEMDLIBDIR)/tmpfiles.d
MODULESLOADDIR ?= $(SYSTEMDLIBDIR)/modules-load.d
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DKMSSRCDIR ?= /usr/src/pfprof-$(PFPROF_VERSION)

program_paths = SBINDIR=$(SBINDIR) BINDIR=$(BINDIR) MANDIR=$(MANDIR) DATADIR=$(DATADIR) \
	BASHCOMPDIR=$(BASHCOMPDIR)
module_source = module/Kbuild module/Makefile \
	$(filter-out %.mod.c,$(wildcard module/*.c)) $(wildcard module/*.h)
# Systemd is running: apply what was installed.
on_systemd = [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

all: tools daemon pfprofctl
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C module; \
	else $(MAKE) -s --no-print-directory -C module no-headers-note; \
		echo "The tools, pfprofd and pfprofctl are built; mp3.ko is not." >&2; fi

module:
	$(MAKE) -C module

# Each part also builds ../lib when made alone; built first here, so that under
# make -j (dh_auto_build) the parts never write the library at the same time.
lib:
	$(MAKE) -C lib

tools: lib
	$(MAKE) -C tools

daemon pfprofctl: lib
	$(MAKE) -C $@ $(program_paths)

install: tools daemon pfprofctl
	$(MAKE) -C tools install BINDIR=$(LIBEXECDIR) MAN1DIR=$(MANDIR)/man1
	$(MAKE) -C daemon install $(program_paths)
	$(MAKE) -C pfprofctl install $(program_paths)
	install -D -m 0644 udev/60-pfprof.rules $(DESTDIR)$(UDEVRULESDIR)/60-pfprof.rules
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/sbin/pfprofd|$(SBINDIR)/pfprofd|' systemd/pfprofd.service \
		> $(DESTDIR)$(UNITDIR)/pfprofd.service
	sed 's|/usr/bin/pfprofctl|$(BINDIR)/pfprofctl|' systemd/pfprof-heatmap@.service \
		> $(DESTDIR)$(UNITDIR)/pfprof-heatmap@.service
	install -D -m 0644 systemd/pfprof-sysusers.conf $(DESTDIR)$(SYSUSERSDIR)/pfprof.conf
	install -D -m 0644 systemd/pfprof-tmpfiles.conf $(DESTDIR)$(TMPFILESDIR)/pfprof.conf
	install -d $(DESTDIR)$(DATADIR)/prometheus
	install -m 0644 prometheus/pfprof-dashboard.json $(DESTDIR)$(DATADIR)/prometheus/
	@# The alerts' runbook_url: docs/prometheus.md, installed beside them.
	install -m 0644 docs/prometheus.md $(DESTDIR)$(DATADIR)/prometheus/
	for f in pfprof-rules.yml pfprof-rules.test.yml; do \
		sed 's|file:///usr/share/pfprof/|file://$(DATADIR)/|' prometheus/$$f \
			> $(DESTDIR)$(DATADIR)/prometheus/$$f && \
		chmod 0644 $(DESTDIR)$(DATADIR)/prometheus/$$f || exit 1; done
	@# An existing configuration is the administrator's: never overwritten.
	[ -e $(DESTDIR)$(SYSCONFDIR)/pfprof/pfprofd.conf ] || \
		install -D -m 0644 daemon/pfprofd.conf $(DESTDIR)$(SYSCONFDIR)/pfprof/pfprofd.conf
	if $(on_systemd); then \
		systemd-sysusers $(SYSUSERSDIR)/pfprof.conf && \
		systemd-tmpfiles --create $(TMPFILESDIR)/pfprof.conf && \
		udevadm control --reload && systemctl daemon-reload && \
		systemctl enable pfprofd.service; fi

dkms-install:
	install -d $(DESTDIR)$(DKMSSRCDIR)/module $(DESTDIR)$(DKMSSRCDIR)/include/uapi/linux
	install -m 0644 dkms.conf $(DESTDIR)$(DKMSSRCDIR)/
	install -m 0644 $(module_source) $(DESTDIR)$(DKMSSRCDIR)/module/
	install -m 0644 include/uapi/linux/mp3.h $(DESTDIR)$(DKMSSRCDIR)/include/uapi/linux/
	install -D -m 0644 systemd/pfprof-modules-load.conf \
		$(DESTDIR)$(MODULESLOADDIR)/pfprof.conf
	if [ -z "$(DESTDIR)" ]; then \
		{ dkms status pfprof/$(PFPROF_VERSION) | grep . >/dev/null || \
		  dkms add pfprof/$(PFPROF_VERSION); } && \
		dkms install pfprof/$(PFPROF_VERSION); fi

uninstall:
	if $(on_systemd); then systemctl disable --now pfprofd.service || :; fi
	if [ -z "$(DESTDIR)" ] && dkms status pfprof/$(PFPROF_VERSION) | grep . >/dev/null; then \
		dkms remove pfprof/$(PFPROF_VERSION) --all; fi
	rm -rf $(DESTDIR)$(DKMSSRCDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)
	rm -f $(DESTDIR)$(SBINDIR)/pfprofd $(DESTDIR)$(BINDIR)/pfprofctl \
		$(addprefix $(DESTDIR)$(MANDIR)/,man1/work.1 man1/monitor.1 \
			man5/pfprofd.conf.5 man8/pfprofd.8 man8/pfprofctl.8) \
		$(DESTDIR)$(UDEVRULESDIR)/60-pfprof.rules $(DESTDIR)$(UNITDIR)/pfprofd.service \
		$(DESTDIR)$(UNITDIR)/pfprof-heatmap@.service $(DESTDIR)$(SYSUSERSDIR)/pfprof.conf $(DESTDIR)$(TMPFILESDIR)/pfprof.conf \
		$(DESTDIR)$(MODULESLOADDIR)/pfprof.conf $(DESTDIR)$(BASHCOMPDIR)/pfprofctl
	if $(on_systemd); then systemctl daemon-reload; fi
	@echo "kept: $(SYSCONFDIR)/pfprof, /var/lib/pfprof, /var/log/pfprof and the user pfprof"

deb:
	apt-get build-dep -y -q --build-profiles=nocheck ./
	DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b -Pnocheck

check:
	tests/check-all.sh

check-unit:
	$(MAKE) -C tests/unit test

check-static:
	tests/static.sh

check-module:
	tests/check.sh

check-debug:
	tests/check-debug.sh

check-packages:
	tests/check-packages.sh

case-studies:
	plots/case-studies.sh

case-study-db:
	plots/case-study-db.sh

demo:
	demo/run.sh

bench:
	bench/run.sh

bench-damon:
	bench/damon.sh

clean:
	$(MAKE) -C module clean
	$(MAKE) -C tools clean
	$(MAKE) -C lib clean
	$(MAKE) -C daemon clean
	$(MAKE) -C pfprofctl clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/guest clean
	$(MAKE) -C bench clean
	rm -rf build

.PHONY: all module lib tools daemon pfprofctl install dkms-install uninstall deb check check-unit bench-damon \
	check-static check-module check-debug check-packages case-studies case-study-db demo bench clean
