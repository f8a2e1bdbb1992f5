#!/usr/bin/env bash
# Fails if a text file of the repository contains a non-ASCII byte, and lists each offending line.
#
# Checks tracked files and new files not yet added (not ignored ones), so a local run sees what CI sees.
# Binary files are skipped by git's own test (a NUL byte early in the file, or the `binary` attribute in
# .gitattributes: mark data files such as fuzz corpora there if they contain no NUL).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
git rev-parse --is-inside-work-tree > /dev/null 2>&1 || {
  echo "check_ascii: not a git work tree" >&2
  exit 2
}

# -I skips binary files; the C locale makes the byte range literal.
status=0
offenders="$(LC_ALL=C git grep --untracked -I -n -P '[^\x00-\x7F]' -- .)" || status=$?
if [[ $status -eq 1 ]]; then
  echo "check-ascii: ok"
  exit 0
elif [[ $status -ne 0 ]]; then
  echo "check_ascii: git grep failed ($status)" >&2
  exit 2
fi

echo "check-ascii: non-ASCII bytes in these lines (use ASCII: '-' for dashes, '->' for arrows, plain quotes):"
printf '%s\n' "$offenders" | LC_ALL=C cut -c1-200 | LC_ALL=C sed 's/[^\x00-\x7F]/<?>/g; s/^/  /' | head -n 200
echo "check-ascii: files:"
LC_ALL=C git grep --untracked -I -l -P '[^\x00-\x7F]' -- . | sed 's/^/  /'
exit 1
