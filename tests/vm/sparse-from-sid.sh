#!/bin/sh
# Usage: tests/vm/sparse-from-sid.sh ROOT
#
# Puts sid's sparse in the Debian 13 build root ROOT in place of Debian 13's
# (which dpkg-divert keeps as /usr/bin/sparse.distrib). Debian 13's sparse
# 0.6.4 cannot parse the 7.x kernels' headers: they use __typeof_unqual__,
# which it stops at ("Expected ; at end of statement"), so 7.x's Makefile
# turns C=2 off and the module's W=1 build went unchecked there. sid's
# 0.6.5~rc1 parses them. Only the program is taken: the package depends on
# sid's gcc-16, which the build root must not get. sid's package lists are
# fetched into a directory of their own and removed after, so that the
# build root's apt never sees sid. A customize hook of tests/vm/buildroot.sh.
set -eu
root=$1
sid=/var/tmp/sparse-from-sid
apt_sid="-q -o Dir::Etc::sourcelist=$sid/sources.list -o Dir::Etc::sourceparts=-"
apt_sid="$apt_sid -o Dir::State::Lists=$sid/lists -o APT::Sandbox::User=root"
# sid's Release is valid for a week; a mirror that is a snapshot serves it
# past that. Its signature is still checked.
apt_sid="$apt_sid -o Acquire::Check-Valid-Until=false"

mkdir -p "$root$sid/lists/partial"
echo "deb http://deb.debian.org/debian sid main" > "$root$sid/sources.list"
# shellcheck disable=SC2086 # the options are words
chroot "$root" sh -c "apt-get $apt_sid update && cd $sid && apt-get $apt_sid download sparse"
chroot "$root" dpkg-divert --local --rename --add /usr/bin/sparse
dpkg-deb --fsys-tarfile "$root$sid"/sparse_*.deb | tar -x -O ./usr/bin/sparse > "$root/usr/bin/sparse"
chmod 0755 "$root/usr/bin/sparse"
rm -rf "${root:?}$sid"
printf 'static inline int u(const int *q) { __typeof_unqual__(*q) v = *q; return v; }\n' \
	> "$root/tmp/typeof-unqual.c"
if chroot "$root" sparse /tmp/typeof-unqual.c 2>&1 | grep error >&2; then
	echo "sparse-from-sid: sid's sparse does not parse __typeof_unqual__ either" >&2
	exit 1
fi
rm -f "$root/tmp/typeof-unqual.c"
