#!/bin/sh
# What help2man reads as `rmgsort --help` for the man page ($RMGSORT is the binary): the commands'
# usage lines as the synopsis, the program's help, then each command's help in a section of its own
# (help2man starts one at a line "*NAME*"), its "Options:" renamed so that help2man keeps them there
# rather than in the program's OPTIONS. GNU sed: "\n" in a replacement is a newline.
set -e
commands="sort merge generate check"
if [ "${1:-}" != --help ]; then
  echo "usage: RMGSORT=path/to/rmgsort $0 --help (help2man runs it)" >&2
  exit 2
fi
prefix="Usage:"
for command in $commands; do
  "$RMGSORT" "$command" --help | sed -n "s/^Usage: /$prefix /p"
  prefix="   or:"
done
echo "   or: rmgsort --version"
"$RMGSORT" --help | sed -e '/^Usage: /d' -e 's/^Subcommands:$/*Commands*\n/' -e 's/^Exit codes: /*Exit status*\n\n/'
for command in $commands; do
  printf '\n*rmgsort %s*\n\n' "$command"
  "$RMGSORT" "$command" --help | sed -e '/^Usage: /d' -e "s/^Options:\$/Options of rmgsort $command:/"
done
