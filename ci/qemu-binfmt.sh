#!/usr/bin/env bash
# Lets the kernel run aarch64 Linux programs through qemu-aarch64 (binfmt_misc), so that a test
# program built for aarch64 and every program it starts (our tools, through shells too) run under
# emulation as they would on an aarch64 machine. Flags: P keeps argv[0] (the multi-call binary
# chooses its tool by it), F opens the emulator once at registration. Dynamically linked programs
# find their loader and libraries under qemu's default prefix /etc/qemu-binfmt/aarch64, linked to
# Debian's cross C library /usr/aarch64-linux-gnu (package libc6-arm64-cross).
#
# Needs root and qemu-user. Changes to the system: binfmt_misc mounted when it is not, an entry
# qemu-aarch64 registered (or re-registered when it lacks the P flag), the symlink above.
set -euo pipefail
dir=/proc/sys/fs/binfmt_misc
[ -e "$dir/register" ] || mount -t binfmt_misc binfmt_misc "$dir"
entry=$dir/qemu-aarch64
if [ -e "$entry" ] && ! grep -q '^flags: .*P' "$entry"; then
  echo -1 > "$entry"
fi
if [ ! -e "$entry" ]; then
  magic='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
  mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
  printf '%s' ":qemu-aarch64:M::$magic:$mask:$(command -v qemu-aarch64):PF" > "$dir/register"
fi
grep -q '^enabled' "$entry"
mkdir -p /etc/qemu-binfmt
[ -e /etc/qemu-binfmt/aarch64 ] || ln -s /usr/aarch64-linux-gnu /etc/qemu-binfmt/aarch64
echo "binfmt_misc: $(sed -n 's/^interpreter //p' "$entry") runs aarch64 programs ($(sed -n 's/^flags: //p' "$entry"))"
