#!/usr/bin/env bash
# --gpus on a machine without a GPU: `all` and `none` sort on the CPU, a device number is an error
# naming the GPU, a malformed list is an error naming --gpus. (Skipped where a GPU is present.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

if has_gpu; then
  echo "a GPU is present (/dev/nvidia*): these are the no-GPU expectations; skipping"
  exit 77
fi

IN=$WORK/in.i64
"$RMGSORT" generate -o "$IN" -t i64 --count 100003 --seed 61 --dist special || { echo "setup failed"; exit 2; }

for spec in all none; do
  begin "--gpus $spec: exit 0, sorted on the CPU, check --input passes"
  rm -f "$WORK/out"
  rmg sort "$IN" -o "$WORK/out" -t i64 --gpus "$spec" --stats "$WORK/stats.json"
  expect_rc 0
  expect_sorted_like i64 "$IN" "$WORK/out"
  rmg check "$WORK/out" -t i64 --input "$IN"
  expect_rc 0
  why=$(python3 "$KEYS_PY" stats "$WORK/stats.json" keys=100003) || fail "$why"
  end
done

begin "--gpus all -r --gpu-memory 1G (ignored without a GPU): exit 0, sorted"
rmg sort "$IN" -o "$WORK/out" -t i64 -r --gpus all --gpu-memory 1G
expect_rc 0
expect_sorted_like i64 "$IN" "$WORK/out" desc
end

# gpu_error SPEC TEXTS: --gpus SPEC fails with exit 2 and a message with every ';'-separated TEXT,
# before any output is created; an existing output stays as it was.
gpu_error() {
  local spec=$1 texts=$2 parts
  IFS=';' read -ra parts <<<"$texts"
  begin "--gpus '$spec': exit 2, message names ${texts//;/ + }, no output created, an existing one untouched"
  rm -f "$WORK/new"
  rmg sort "$IN" -o "$WORK/new" -t i64 --gpus "$spec"
  expect_rc 2
  expect_error_message
  expect_stderr "${parts[@]}"
  expect_no_file "$WORK/new"
  printf 'KEEP' >"$WORK/existing"
  rmg sort "$IN" -o "$WORK/existing" -t i64 --gpus "$spec"
  expect_rc 2
  [[ "$(cat "$WORK/existing")" == KEEP ]] || fail "the existing output changed"
  expect_no_temp "$WORK"
  end
}
gpu_error 0 "--gpus;GPU 0"
gpu_error 1,3 "--gpus;GPU 1"
gpu_error 7 "--gpus;GPU 7"
gpu_error "" "--gpus"
gpu_error x "--gpus;x"
gpu_error "0,,1" "--gpus;0,,1"
gpu_error "0," "--gpus;0,"
gpu_error ",0" "--gpus;,0"
gpu_error "-1" "--gpus;-1"
gpu_error "0,0" "--gpus;0,0"
gpu_error "1.5" "--gpus;1.5"
gpu_error "all,0" "--gpus;all,0"
gpu_error "ALL" "--gpus;ALL"

begin "--gpus 0 with stdin input: exit 2 before reading, names GPU 0"
run "$RMGSORT" sort -t i64 --gpus 0 -o "$WORK/new" <"$IN"
expect_rc 2
expect_stderr "GPU 0"
expect_no_file "$WORK/new"
end

summary
