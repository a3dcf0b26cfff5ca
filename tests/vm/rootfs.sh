#!/bin/bash
# Usage: tests/vm/rootfs.sh [--postgresql] SUITE KVER MODROOT
#
# Prints the path of a Debian root file system image (ext4, raw) of SUITE
# (bookworm = Debian 12, trixie = Debian 13) with systemd as init, for the
# systemd guest: built with mmdebstrap from Debian's archive, with the kernel
# KVER's headers, modules and what DKMS needs, so that `apt install ./*.deb` of
# pfprof works offline inside it. MODROOT holds KVER's modules
# (MODROOT/lib/modules/KVER or MODROOT/usr/lib/modules/KVER), as
# tests/lib/kernels.sh's KERNEL_ROOT. Cached under ${PFPROF_CACHE:-/var/cache/pfprof-test}/rootfs/,
# keyed by SUITE, KVER and this script's contents; rebuilt when missing.
# Progress goes to stderr.
#
# bookworm: Debian 12's kernel; its headers come from the archive and the
# modules the guest needs are copied from MODROOT. trixie: Debian 13's
# linux-headers-KVER depends on linux-image-KVER, so the image holds the real
# kernel package (modules included; its initramfs is not built, the guest
# boots with mkinitramfs-root.sh's) and MODROOT is only checked to exist.
# trixie's image also holds Prometheus, its node_exporter, promtool and curl
# (services disabled), for the test of pfprofd's textfile export;
# /etc/pfprof-test/prometheus says "installed" or which are missing from the
# archive; and Apache with ab (apache2 disabled), for the test of a real
# service.
#
# --postgresql (trixie only): an image of its own with Debian's PostgreSQL
# too, for case study 3 (plots/case-study-db.sh): its cluster 17/main is
# created by the package and set to start by hand (start.conf "manual"), and
# the file system has 3 GB free more for a pgbench database.
#
# The image runs /mnt/host/run (a 9p share, tag "host") as the unit
# pfprof-test.service and powers off when it ends; its output goes to the
# console. run reports to /dev/ttyS1 in boot.sh's format.
set -euo pipefail

usage() { sed -n '2s/^# //p' "$0" >&2; exit 64; }
postgresql=
if [[ ${1:-} == --postgresql ]]; then
    postgresql=1
    shift
fi
[[ $# -eq 3 ]] || usage
suite=$1 kver=$2 modroot=$3
case $suite in
    bookworm | trixie) ;;
    *) echo "rootfs: unknown suite '$suite' (bookworm or trixie)" >&2; usage ;;
esac
[[ -z $postgresql || $suite == trixie ]] ||
    { echo "rootfs: --postgresql is for trixie's image only" >&2; usage; }
flavour=$suite${postgresql:+-postgresql}
# shellcheck source=tests/lib/cache.sh
. "$(dirname "$0")/../lib/cache.sh"
# shellcheck source=tests/lib/debian-tree.sh
. "$(dirname "$0")/../lib/debian-tree.sh"
log() { printf 'rootfs: %s\n' "$*" >&2; }
# Only the image's path goes to stdout (fd 3); mmdebstrap, mkfs and the rest to stderr.
exec 3>&1 1>&2

key=$(sha256sum < "$0" | cut -c1-12)
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}/rootfs
image=$cache/$flavour-$kver-$key.img
cache_lock "rootfs-$flavour"
if [[ -f "$image" ]]; then
    log "cached: $image"
    printf '%s\n' "$image" >&3
    exit 0
fi
src=
for d in "$modroot/lib/modules/$kver" "$modroot/usr/lib/modules/$kver"; do
    [[ -d "$d/kernel" ]] && { src=$d; break; }
done
[[ -n "$src" ]] || { log "error: no lib/modules/$kver under $modroot"; exit 1; }
command -v mmdebstrap >/dev/null || { log "error: mmdebstrap is not installed"; exit 1; }

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

packages=systemd,systemd-sysv,udev,kmod,libsystemd0,libjson-c5,dbus,dkms,gcc,make,libc6-dev
# acl: pfprofd's (its unit's setfacl); openssl: pfprof-dkms's (DKMS makes its
# signing key with it); the guest installs the .debs offline.
packages+=,linux-headers-$kver,procps,acl,openssl
if [[ $suite == trixie ]]; then
    # What linux-headers-KVER depends on; INITRD=No (below) skips its initramfs.
    packages+=,linux-image-$kver
    # Debian's Apache and ab, for tests/systemd/run's apache_tests: a real
    # service, in one release's image.
    packages+=,apache2,apache2-utils
fi
hooks=()
if [[ $suite == trixie ]]; then
    # Prometheus and its node_exporter, for tests/systemd/run's check of
    # pfprofd's textfile export: in one release's image only (the guest costs
    # minutes under TCG). A package missing from the archive is no reason to
    # fail the image: /etc/pfprof-test/prometheus says so, and the test skips.
    # Both services are disabled: they would slow the rest of the test
    # down; the test starts them with its own settings. By the image's own
    # systemctl: the host may have none (a fresh minimal system has not).
    # shellcheck disable=SC2016 # "$1" belongs to the hook, expanded by mmdebstrap
    hooks+=(--customize-hook='set -e
        mkdir -p "$1/etc/pfprof-test"
        missing=
        for p in prometheus prometheus-node-exporter promtool curl; do
            chroot "$1" apt-cache show "$p" >/dev/null 2>&1 || missing="$missing $p"
        done
        if [ -n "$missing" ]; then
            echo "missing from the archive:$missing" > "$1/etc/pfprof-test/prometheus"
        else
            chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                --no-install-recommends prometheus prometheus-node-exporter promtool curl
            chroot "$1" systemctl disable prometheus.service prometheus-node-exporter.service
            echo installed > "$1/etc/pfprof-test/prometheus"
        fi')
    # Its postinst enables Apache: it would start at boot, before the test
    # adds its unit.
    # shellcheck disable=SC2016 # "$1" belongs to the hook, expanded by mmdebstrap
    hooks+=(--customize-hook='chroot "$1" systemctl disable apache2.service apache-htcacheclean.service')
fi
if [[ -n $postgresql ]]; then
    # Its postinst creates the cluster and starts it at every boot: the case
    # study adds the unit to pfprof first, then starts it.
    packages+=,postgresql
    # shellcheck disable=SC2016 # "$1" belongs to the hook, expanded by mmdebstrap
    hooks+=(--customize-hook='set -e
        for conf in "$1"/etc/postgresql/*/main/start.conf; do echo manual > "$conf"; done')
fi
log "mmdebstrap $suite ($packages${hooks[*]:+, then prometheus prometheus-node-exporter promtool curl})"
# INITRD=No: initramfs-tools' kernel hook then builds no initramfs for an
# image nobody boots with it (the guest uses mkinitramfs-root.sh's).
# shellcheck disable=SC2016 # "$1" belongs to the hook, expanded by mmdebstrap
INITRD=No debian_tree --include="$packages" "${hooks[@]}" \
    --customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*' \
    "$suite" "$root" \
    "deb http://deb.debian.org/debian $suite main" \
    "deb http://deb.debian.org/debian $suite-updates main" \
    "deb http://deb.debian.org/debian-security $suite-security main" >&2

# guest_modules SRC DST: the modules the guest needs (disk, 9p, file systems),
# not the 300 MB of hardware drivers it has no hardware for. DKMS runs depmod
# at every install and removal: over trixie's 4230 modules that took 47 to
# 81 s under TCG, four times in its guest.
guest_modules() {
    local src=$1 dst=$2
    mkdir -p "$dst/kernel/drivers" "$dst/kernel/net"
    cp -a "$src"/kernel/{arch,block,crypto,fs,lib,mm,virt} "$dst/kernel/"
    rm -rf "$dst/kernel/arch/x86/kvm"	# needs drivers not copied; no use in a guest
    cp -a "$src"/kernel/net/9p "$dst/kernel/net/"
    cp -a "$src"/kernel/drivers/{virtio,block,char,input,hid} "$dst/kernel/drivers/"
    cp -a "$src"/modules.{order,builtin,builtin.modinfo} "$dst/"
}
dst=$root/lib/modules/$kver
if [[ -d "$dst/kernel" ]]; then
    # trixie: those of the kernel package, which the image holds.
    log "modules for $kver: the guest's only"
    mkdir "$work/package"
    mv "$dst/kernel" "$work/package/"
    cp -a "$dst"/modules.{order,builtin,builtin.modinfo} "$work/package/"
    guest_modules "$work/package" "$dst"
    rm -rf "$work/package"
else
    # bookworm: the modules the guest needs, from the unpacked kernel package.
    log "modules for $kver from $src"
    guest_modules "$src" "$dst"
fi
# The image's own depmod, which writes every index its kmod reads.
chroot "$root" depmod "$kver"
rm -f "$root/boot/initrd.img-$kver"*

log "test unit and settings"
echo 0123456789abcdef0123456789abcdef > "$root/etc/machine-id"
echo pfprof-test > "$root/etc/hostname"
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$root/etc/systemd/system/getty@tty1.service"
ln -sf /dev/null "$root/etc/systemd/system/apt-daily.timer"
ln -sf /dev/null "$root/etc/systemd/system/apt-daily-upgrade.timer"
mkdir -p "$root/mnt/host"
cat > "$root/etc/systemd/system/mnt-host.mount" <<'UNIT'
[Unit]
Description=Test files from the host (9p)

[Mount]
What=host
Where=/mnt/host
Type=9p
Options=trans=virtio,version=9p2000.L,msize=262144
UNIT
cat > "$root/etc/systemd/system/pfprof-test.service" <<'UNIT'
[Unit]
Description=pfprof systemd-guest test
Requires=mnt-host.mount
After=mnt-host.mount multi-user.target
# In [Unit], or systemd ignores them and the guest never powers off.
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/mnt/host/run
StandardOutput=journal+console
# No limit of its own: the host stops a guest whose console stays silent
# (tests/vm/boot.sh --idle), and a slow one that keeps printing is no hang.
# (Two DKMS builds under TCG: the second alone took over 380 s on a loaded
# 2-core host.)
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
UNIT
ln -sf ../pfprof-test.service "$root/etc/systemd/system/multi-user.target.wants/pfprof-test.service"

log "ext4 image"
free_mb=768
[[ -z $postgresql ]] || free_mb=$((free_mb + 3072))	# the pgbench database
size_mb=$(( $(du -sm "$root" | cut -f1) + free_mb ))
mkfs.ext4 -q -F -L root -d "$root" "$work/image" "${size_mb}M"
rm -f "$cache/$flavour-$kver-"*.img	# older versions of this script's image
mv -f "$work/image" "$image"
log "built $image (${size_mb} MB)"
printf '%s\n' "$image" >&3
