#!/usr/bin/env bash
# cmake --install into a temporary prefix: bin/rmgsort runs, share/man/man1/rmgsort.1 renders and
# documents every command and option, and share/bash-completion/completions/rmgsort registers a
# completion that completes commands, each command's options (the same as its --help lists) and
# --type's values. Arguments: the built rmgsort and the build directory.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [[ -z ${2:-} || ! -f ${2:-}/CMakeCache.txt ]]; then
  echo "no build directory given (install_test.sh RMGSORT BUILD_DIR): nothing to install; skipping"
  exit 77
fi
BUILD_DIR=$2
PREFIX=$WORK/prefix
MAN_PAGE=$PREFIX/share/man/man1/rmgsort.1
COMPLETION=$PREFIX/share/bash-completion/completions/rmgsort

# The long options COMMAND's --help lists ("--output", ...), one a line, sorted.
help_options() {
  "$RMGSORT" "$1" --help | grep -oE '^ +(-[A-Za-z],)?--[a-z-]+' | sed -E 's/^ +(-[A-Za-z],)?//' | sort
}

begin "cmake --install --prefix puts bin/rmgsort and the bash completion there"
run cmake --install "$BUILD_DIR" --prefix "$PREFIX"
expect_rc 0
[[ -x $PREFIX/bin/rmgsort ]] || fail "no executable $PREFIX/bin/rmgsort"
[[ -f $COMPLETION ]] || fail "no $COMPLETION"
end

begin "the installed rmgsort runs: --version, and generate, sort and check of 1000 keys"
rmgsort_bin=$PREFIX/bin/rmgsort
run "$rmgsort_bin" --version
expect_rc 0
expect_stdout "rmgsort "
run "$rmgsort_bin" generate -o "$WORK/keys.u32" -t u32 --count 1000
expect_rc 0
run "$rmgsort_bin" sort "$WORK/keys.u32" -o "$WORK/sorted.u32" -t u32 --gpus none
expect_rc 0
run "$rmgsort_bin" check "$WORK/sorted.u32" -t u32 --input "$WORK/keys.u32"
expect_rc 0
end

begin "neither binary loads libraries from the current directory, even with a library of that name there"
# An empty RUNPATH or RPATH entry (a leading, trailing or doubled ':') is the current directory to the
# loader: run in a directory someone else writes to, rmgsort would load their code.
for binary in "$RMGSORT" "$rmgsort_bin"; do
  paths=$(readelf -d "$binary" | sed -nE 's/.*\((RUNPATH|RPATH)\).*\[(.*)\]$/\2/p')
  [[ -z $paths || ! $paths =~ (^:|::|:$) ]] || fail "$binary's library search path [$paths] has an empty entry"
done
mkdir -p "$WORK/planted"
for library in libnuma.so.1 libtbb.so.12; do echo "not a library" >"$WORK/planted/$library"; done
run bash -c 'cd "$1" && env -u LD_LIBRARY_PATH "$2" --version' bash "$WORK/planted" "$RMGSORT"
expect_rc 0
expect_stdout "rmgsort "
end

begin "the man page is installed, renders, and documents every command and option"
if ! grep -qE '^HELP2MAN_EXECUTABLE:FILEPATH=/' "$BUILD_DIR/CMakeCache.txt"; then
  skip "help2man was not found when $BUILD_DIR was configured: no man page"
else
  [[ -f $MAN_PAGE ]] || fail "no $MAN_PAGE"
  # man(1) where it works (a minimized system's is a stub), else groff, else the page's source.
  if MANWIDTH=100 man -l "$MAN_PAGE" >"$WORK/man.txt" 2>"$WORK/man.err" && grep -q '^NAME' "$WORK/man.txt"; then
    rendered=$WORK/man.txt
  elif command -v groff >/dev/null && groff -man -Tutf8 "$MAN_PAGE" 2>"$WORK/man.err" >"$WORK/man.txt"; then
    rendered=$WORK/man.txt
  else
    rendered=$MAN_PAGE
  fi
  [[ ! -s $WORK/man.err || $rendered == "$MAN_PAGE" ]] || fail "rendering warns: $(head -c 300 "$WORK/man.err")"
  grep -qE 'rmgsort \\?- sort binary files' "$rendered" || fail "no NAME line 'rmgsort - sort binary files ...'"
  for section in NAME SYNOPSIS DESCRIPTION; do
    grep -qE "^(\.SH )?\"?$section" "$rendered" || fail "no $section section"
  done
  for command in sort merge generate check; do
    grep -qiE "^(\.SH )?\"?rmgsort $command" "$rendered" || fail "no section for rmgsort $command"
    for option in $(help_options "$command"); do
      grep -qF -- "${option//-/\\-}" "$MAN_PAGE" || grep -qF -- "$option" "$MAN_PAGE" ||
        fail "$command's $option is not in the man page"
    done
  done
  end
fi

# complete_line WORD...: what the installed completion offers for `WORD... <TAB>` (the last WORD is
# the one being completed), one a line.
complete_line() {
  bash -c 'source "$1" && shift && COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) && _rmgsort 2>/dev/null &&
           printf "%s\n" "${COMPREPLY[@]}"' bash "$COMPLETION" "$@"
}

begin "the bash completion registers itself for rmgsort"
run bash -c 'source "$1" && complete -p rmgsort' bash "$COMPLETION"
expect_rc 0
expect_stdout "complete -F _rmgsort rmgsort"
end

begin "the bash completion completes commands and --type's values"
[[ "$(complete_line rmgsort so)" == sort ]] || fail "rmgsort so<TAB>: '$(complete_line rmgsort so)', expected sort"
[[ "$(complete_line rmgsort ge)" == generate ]] || fail "rmgsort ge<TAB>: '$(complete_line rmgsort ge)'"
[[ "$(complete_line rmgsort sort -t u6)" == u64 ]] || fail "-t u6<TAB>: '$(complete_line rmgsort sort -t u6)'"
[[ "$(complete_line rmgsort sort --progress al)" == always ]] || fail "--progress al<TAB>"
[[ "$(complete_line rmgsort check --inp)" == --input ]] || fail "check --inp<TAB>: '$(complete_line rmgsort check --inp)'"
end

for command in sort merge generate check; do
  begin "the bash completion offers exactly $command's options, as --help lists them"
  diff <(complete_line rmgsort "$command" -- | sort) <(help_options "$command") >"$WORK/diff" ||
    fail "completion (<) and --help (>) differ: $(tr '\n' ' ' <"$WORK/diff")"
  end
done

summary
