# shellcheck shell=bash
# Shared by chroot-test.sh, distro-build.sh and uninstall-test.sh (sourced): the Debian archive
# for fresh chroots, and their safe removal.

# The Debian archive the host uses (deb.debian.org when it names none), with the host's
# keyring; a host whose mirror is a snapshot accepts its old Release files, and the chroots
# must too: pass "${aptopts[@]}" to mmdebstrap.
mirror=$(sed -n -e 's,^URIs: *\(http[^ ]*/debian\)/*$,\1,p' -e 's,^deb \(\[[^]]*\] \)\{0,1\}\(http[^ ]*/debian\)/* .*,\2,p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2> /dev/null | head -n1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
aptopts=()
if apt-config dump | grep -x 'Acquire::Check-Valid-Until "false";' > /dev/null; then
  aptopts+=(--aptopt='Acquire::Check-Valid-Until "false"')
fi

# Unmounts whatever is mounted under DIR, innermost first, then removes DIR; a mount still there
# after that stops the removal (rm never crosses into it), with a word on stderr.
remove_chroot() {
  local dir=$1 m
  for m in $(findmnt -rn -o TARGET | grep -F "$dir" | sort -r); do umount "$m" || umount -l "$m" || true; done
  if findmnt -rn -o TARGET | grep -F "$dir" > /dev/null; then
    echo "$(basename "$0"): $dir still has mounts; left in place" >&2
  else
    rm -rf --one-file-system "$dir"
  fi
}

# The chroots a script has made, which `trap remove_roots EXIT` removes with what is mounted in
# them (the host's /dev is bound into some) however the script ends.
roots=()
remove_roots() {
  local r
  for r in "${roots[@]}"; do remove_chroot "$r"; done
}
