#!/usr/bin/env bash
# Inputs whose size is not their length: procfs files that say 0 bytes, sysfs attributes that say a
# page, a file that shrinks while it is read; and character devices, which `check`, `sort` and
# `merge` refuse because /dev/zero never ends. Kernel files are compared with a copy taken by cat, which reads them to their
# end; their length differs between machines, so the key type is chosen from it (or, where no width
# divides it, the whole-key error is the proof that the file was read).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

K=$WORK/k
mkdir -p "$K"

# type_for LENGTH: u64 or u32, whichever width divides LENGTH (u64 first); nothing when neither does.
type_for() {
  if (($1 % 8 == 0)); then
    echo u64
  elif (($1 % 4 == 0)); then
    echo u32
  fi
}

# kernel_file_sorts FILE COPY: `sort FILE` gives what sorting COPY (FILE read by cat) gives, or, when
# COPY is no whole number of keys, exit 2 naming FILE and its real length.
kernel_file_sorts() {
  local file=$1 copy=$2 length type
  length=$(stat -c %s "$copy")
  type=$(type_for "$length")
  [[ $length -gt 0 ]] || fail "$file reads as empty (cat), pick another file"
  if [[ -n $type ]]; then
    rmg sort "$file" -t "$type" -o "$K/sorted"
    expect_rc 0
    expect_stderr_empty
    expect_size "$K/sorted" "$length"
    expect_sorted_like "$type" "$copy" "$K/sorted"
  else
    rmg sort "$file" -t u32 -o "$K/sorted"
    expect_rc 2
    expect_error_message
    expect_stderr "$file: $length bytes are not a whole number of u32 keys (4 bytes each)"
    expect_no_file "$K/sorted"
  fi
  expect_no_temp "$K"
  rm -f "$K/sorted"
}

# kernel_file_checks FILE COPY: `check FILE` counts COPY's keys (in order or not: exit 0 or 1), and a
# sorted COPY is a permutation of FILE; or, when COPY is no whole number of keys, exit 2 naming FILE.
kernel_file_checks() {
  local file=$1 copy=$2 length type width
  length=$(stat -c %s "$copy")
  type=$(type_for "$length")
  if [[ -n $type ]]; then
    width=${type#u}
    width=$((width / 8))
    rmg check "$file" -t "$type"
    [[ $RC -eq 0 || $RC -eq 1 ]] || fail "exit status $RC, expected 0 or 1"
    expect_stdout "$file: " "$((length / width)) $type keys"
    expect_stderr_empty
    "$RMGSORT" sort "$copy" -t "$type" -o "$K/copy.sorted" || fail "cannot sort $copy"
    rmg check "$K/copy.sorted" -t "$type" --input "$file"
    expect_rc 0
    expect_stdout "OK " "a permutation of $file"
  else
    rmg check "$file" -t u32
    expect_rc 2
    expect_stdout_empty
    expect_stderr "$file: $length bytes are not a whole number of u32 keys (4 bytes each)"
  fi
  rm -f "$K/copy.sorted"
}

echo "== size 0 is no length: procfs"
begin "a /proc file of size 0 sorted as empty: read to its end; a really empty file still empty"
if [[ ! -r /proc/version ]]; then
  skip "no /proc/version"
else
  cat /proc/version >"$K/version"
  kernel_file_sorts /proc/version "$K/version"
  # Standard input redirected from it is the same file, opened by the shell.
  key_type=$(type_for "$(stat -c %s "$K/version")")
  run "$RMGSORT" sort -t "${key_type:-u32}" </proc/version
  if [[ -n $key_type ]]; then
    expect_rc 0
    expect_sorted_like "$key_type" "$K/version" "$WORK/stdout"
  else
    expect_rc 2
    expect_stderr "stdin: $(stat -c %s "$K/version") bytes are not a whole number of u32 keys"
  fi
  # A regular file of size 0 on a real file system is a valid empty input, and replaces an output.
  : >"$K/empty"
  printf 'previous' >"$K/empty.out"
  rmg sort "$K/empty" -t u64 -o "$K/empty.out"
  expect_rc 0
  expect_stderr_empty
  expect_size "$K/empty.out" 0
  run "$RMGSORT" sort -t u32 <"$K/empty"
  expect_rc 0
  expect_stdout_empty
  rmg check "$K/empty" -t u64 --input "$K/empty"
  expect_rc 0
  expect_stdout "OK $K/empty: 0 u64 keys in ascending order" "a permutation of $K/empty"
  expect_no_temp "$K"
  end
fi

begin "check of a /proc file of size 0 said OK with 0 keys: it counts the file's keys"
if [[ ! -r /proc/version ]]; then
  skip "no /proc/version"
else
  kernel_file_checks /proc/version "$K/version"
  end
fi

echo "== a size that is a guess: sysfs"
# A sysfs attribute reports one page whatever it holds; find one whose length differs from it.
sysfs_file=""
for candidate in /sys/kernel/address_bits /sys/devices/system/cpu/online /sys/devices/system/cpu/possible \
  /sys/kernel/mm/transparent_hugepage/enabled /sys/power/state /sys/class/net/lo/address; do
  [[ -f $candidate && -r $candidate ]] || continue
  cat "$candidate" >"$K/attribute" 2>/dev/null || continue
  if [[ -s $K/attribute && $(stat -c %s "$candidate") -ne $(stat -c %s "$K/attribute") ]]; then
    sysfs_file=$candidate
    break
  fi
done

begin "a sysfs attribute that claims a page was read as a page ('unexpected end of file'): read to its end"
if [[ -z $sysfs_file ]]; then
  skip "no sysfs attribute whose size differs from its length"
else
  kernel_file_sorts "$sysfs_file" "$K/attribute"
  kernel_file_checks "$sysfs_file" "$K/attribute"
  end
fi

echo "== a file that shrinks while it is read"
# check opens FILE and --input before it reads either: FILE, a FIFO, holds the check until the
# original (8 MiB at open) has been cut to 5 MiB + 4 bytes.
begin "a file that shrank said 'unexpected end of file at byte' a block offset: where it ended, and its size at open"
"$RMGSORT" generate -o "$K/original" -t u32 --size 8M --seed 7 >/dev/null &&
  "$RMGSORT" sort "$K/original" -t u32 -o "$K/original.sorted" || fail "setup failed"
mkfifo "$K/fifo"
"$RMGSORT" check "$K/fifo" -t u32 --input "$K/original" >"$WORK/stdout" 2>"$WORK/stderr" &
checker=$!
E2E_CLEANUP+=("kill $checker")
exec 3<>"$K/fifo"  # a writer that does not wait for the reader, should the check never open it
opened=0
for _ in $(seq 500); do
  if ls -l "/proc/$checker/fd" 2>/dev/null | grep -qF -- "$K/original"; then
    opened=1
    break
  fi
  sleep 0.01
done
[[ $opened -eq 1 ]] || fail "check had not opened --input after 5 s"
truncate -s $((5 * 1048576 + 4)) "$K/original"
cat "$K/original.sorted" >&3
exec 3>&-
wait "$checker"
RC=$?
unset 'E2E_CLEANUP[-1]'
expect_rc 2
expect_error_message
expect_stderr "$K/original: the file shrank while being read: it ended at byte $((5 * 1048576 + 4)), expected $((8 * 1048576))"
expect_stdout_empty
end

echo "== character devices: check refuses them but /dev/null, pipes stay accepted"
begin "check of /dev/zero ran forever: refused at once, exit 2, naming it; pipes and /dev/stdin on a pipe still checked"
keys u32 "$K/small.sorted" 1 2 3 5 8
for device in /dev/zero /dev/urandom; do
  run timeout 10 "$RMGSORT" check "$device" -t u64
  expect_rc 2
  expect_error_message
  expect_stderr "$device: is a character device, not a file of keys"
  expect_stdout_empty
done
run timeout 10 "$RMGSORT" check - -t u64 </dev/zero
expect_rc 2
expect_stderr "stdin: is a character device, not a file of keys"
# Refused before FILE is read, not after.
run timeout 10 "$RMGSORT" check "$K/small.sorted" -t u32 --input /dev/zero
expect_rc 2
expect_stderr "/dev/zero: is a character device, not a file of keys"
expect_stdout_empty
run timeout 10 "$RMGSORT" check - -t u32 < <(cat "$K/small.sorted")
expect_rc 0
expect_stdout "OK stdin: 5 u32 keys in ascending order"
# /dev/null is an empty input, as sort and merge take it (FILE, standard input, --input).
run timeout 10 "$RMGSORT" check /dev/null -t u64
expect_rc 0
expect_stdout "OK /dev/null: 0 u64 keys in ascending order; 0 duplicate keys"
run timeout 10 "$RMGSORT" check - -t u64 --input /dev/null </dev/null
expect_rc 0
expect_stdout "OK stdin: 0 u64 keys in ascending order" "a permutation of /dev/null"
run timeout 10 "$RMGSORT" check "$K/small.sorted" -t u32 --input /dev/null
expect_rc 1
expect_stdout "NOT a permutation of /dev/null (0 keys"
run timeout 10 "$RMGSORT" check /dev/stdin -t u32 < <(cat "$K/small.sorted")
expect_rc 0
expect_stdout "OK /dev/stdin: 5 u32 keys in ascending order"
run timeout 10 "$RMGSORT" check "$K/small.sorted" -t u32 --input - < <(cat "$K/small.sorted")
expect_rc 0
expect_stdout "a permutation of stdin"
end

begin "sort and merge of /dev/zero ran until the temp directory filled: refused at once, exit 2, naming it; /dev/null is an empty input"
for device in /dev/zero /dev/urandom; do
  run timeout 10 "$RMGSORT" sort "$device" -t u64 -o "$K/from-device"
  expect_rc 2
  expect_error_message
  expect_stderr "$device: is a character device, not a file of keys"
  expect_no_file "$K/from-device"
  run timeout 10 "$RMGSORT" merge "$K/small.sorted" "$device" -t u32 -o "$K/from-device"
  expect_rc 2
  expect_stderr "$device: is a character device, not a file of keys"
  expect_no_file "$K/from-device"
done
run timeout 10 "$RMGSORT" sort -t u64 --record-size 16 -o "$K/from-device" </dev/zero
expect_rc 2
expect_stderr "stdin: is a character device, not a file of records"
expect_no_file "$K/from-device"
# A terminal on standard input (a pseudo-terminal here): said as such, with what to do instead.
run timeout 10 python3 -c 'import os, pty, subprocess, sys
primary, secondary = pty.openpty()
sys.exit(subprocess.run(sys.argv[1:], stdin=secondary).returncode)' "$RMGSORT" sort -t u32 -o "$K/from-device"
expect_rc 2
expect_stderr "stdin: is a terminal, not a file of keys: name a file, or pipe or redirect the data in"
expect_no_file "$K/from-device"
run timeout 10 "$RMGSORT" sort "$K/small.sorted" /dev/zero -t u32 -o "$K/from-device"
expect_rc 2
expect_stderr "/dev/zero: is a character device, not a file of keys"
run timeout 10 "$RMGSORT" sort /dev/stdin -t u32 -o "$K/from-pipe" < <(cat "$K/small.sorted")
expect_rc 0
expect_same "$K/from-pipe" "$K/small.sorted"
run timeout 10 "$RMGSORT" sort "$K/small.sorted" /dev/null -t u32 -o "$K/from-null"
expect_rc 0
expect_same "$K/from-null" "$K/small.sorted"
run timeout 10 "$RMGSORT" merge "$K/small.sorted" /dev/null -t u32 -o "$K/from-null"
expect_rc 0
expect_same "$K/from-null" "$K/small.sorted"
end

summary
