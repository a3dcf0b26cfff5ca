# shellcheck shell=bash
# Sourced by tests/vm/buildroot.sh and tests/vm/rootfs.sh.

# debian_tree MMDEBSTRAP-ARGUMENTS...: mmdebstrap's minbase variant without
# recommended packages, and without the documentation, man pages and
# translations that are most of the files dpkg writes (copyright files
# stay), nor dpkg's fsyncs: these trees are made for tests, on machines
# where every file written costs. The settings are dropped at the end, so
# that what is installed into the tree later (pfprof's own packages in a
# guest) is installed whole.
debian_tree() {
	# shellcheck disable=SC2016 # "$1" belongs to the hook, expanded by mmdebstrap
	mmdebstrap --variant=minbase --aptopt='APT::Install-Recommends "false"' \
		--dpkgopt=force-unsafe-io \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--customize-hook='rm -f "$1"/etc/dpkg/dpkg.cfg.d/99mmdebstrap' \
		"$@"
}
