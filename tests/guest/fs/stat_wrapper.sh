#!/bin/bash
# Wrapper for fs/stat: creates files in the scratch directory with host tools, asks the host's stat(1) about
# them, and appends its answers to the guest's arguments, so that the guest can compare every field.
set -eu
head -c 10000 /dev/zero | tr '\0' 's' > statme
ln statme statme.hardlink
chmod 0640 statme
touch -d @1600000000.123456789 statme
ln -s statme statme.symlink
sync statme
# size ino nlink uid gid mode(hex) dev blocks blocks-unit blksize atime mtime ctime, then the file system's
# type(hex) block-size name-length.
file_values=$(stat -c '%s %i %h %u %g %f %d %b %B %o %.9X %.9Y %.9Z' statme)
fs_values=$(stat -f -c '%t %s %l' .)
# shellcheck disable=SC2086 # the values are single words
exec "$@" $file_values $fs_values
