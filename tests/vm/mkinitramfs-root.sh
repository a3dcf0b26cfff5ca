#!/bin/bash
# Usage: tests/vm/mkinitramfs-root.sh KVER OUT.cpio [MODROOT]
#
# A small initramfs that loads the disk drivers of kernel KVER (from
# MODROOT/lib/modules/KVER or MODROOT/usr/lib/modules/KVER; MODROOT is the
# host's "/" unless given, see kmods.sh), mounts /dev/vda and hands over to
# systemd on it: the first stage of the systemd guest (rootfs.sh builds the disk).
set -euo pipefail

[[ $# -eq 2 || $# -eq 3 ]] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
kver=$1
out=$2
modroot=${3:-/}
modules=(virtio_pci virtio_blk ext4)

work=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-initramfs-root.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,newroot,lib/modules/"$kver"}
cp /bin/busybox "$root/bin/busybox"
for applet in sh mount umount switch_root modprobe insmod sleep echo cat; do
    ln -s busybox "$root/bin/$applet"
done
ln -s ../bin/busybox "$root/sbin/modprobe"

"$(dirname "$0")/kmods.sh" -d "$modroot" "$kver" "$root" "${modules[@]}"

cat > "$root/init" <<'INIT'
#!/bin/sh
echo "init: user space started"	# boot.sh: the kernel booted
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# Built-in drivers make insmod say "File exists"; that is fine.
while read -r cmd ko; do insmod "$ko" 2>/dev/null; done < /load-modules
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 0.2; done
mount -t ext4 /dev/vda /newroot || { echo "init: cannot mount /dev/vda"; exec sh; }
umount /proc /sys
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /lib/systemd/systemd
INIT
chmod 755 "$root/init"
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out"
