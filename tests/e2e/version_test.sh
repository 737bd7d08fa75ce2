#!/usr/bin/env bash
# rmgsort --version: exit 0, "rmgsort X.Y.Z" first, then what CUDA offers. Built without CUDA (the
# second argument is 0): exactly "built without CUDA: rmgsort sorts on the CPU". Built with it: the
# runtime and the architectures, then "no CUDA driver", or the driver's version and either a line that
# says why no GPU is used or one line per GPU; on a GPU host (nvidia-smi present) one per GPU that
# nvidia-smi lists. A missing driver or GPU is an answer: exit 0 on every machine.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
WITH_CUDA=${2:-1}

begin "--version: exit 0, nothing on stderr, the version first"
rmg --version
expect_rc 0
expect_stderr_empty
head -n 1 "$WORK/stdout" | grep -qE '^rmgsort [0-9]+\.[0-9]+\.[0-9]+$' || fail "first line: $(head -n 1 "$WORK/stdout")"
end

if [[ $WITH_CUDA == 0 ]]; then
  begin "--version of a build without CUDA: two lines, the second says so"
  [[ "$(tail -n +2 "$WORK/stdout")" == "built without CUDA: rmgsort sorts on the CPU" ]] ||
    fail "got: $(tail -n +2 "$WORK/stdout")"
  end
else
  begin "--version of a CUDA build: runtime and architectures, then the driver and the GPUs or why none"
  sed -n 2p "$WORK/stdout" |
    grep -qE '^CUDA runtime [0-9]+\.[0-9] \(linked in\), GPU code for architectures [0-9a-z -]+$' ||
    fail "second line: $(sed -n 2p "$WORK/stdout")"
  third=$(sed -n 3p "$WORK/stdout")
  if [[ $third == "no CUDA driver: rmgsort sorts on the CPU" ]]; then
    (($(wc -l <"$WORK/stdout") == 3)) || fail "lines after 'no CUDA driver'"
  else
    [[ $third =~ ^CUDA\ driver\ [0-9]+\.[0-9]$ ]] || fail "third line: $third"
    tail -n +4 "$WORK/stdout" | grep -vE '^GPU [0-9]+: .+, [0-9.]+ GiB, compute capability [0-9]+\.[0-9]+$' |
      grep -vxE 'no GPU: rmgsort sorts on the CPU|the CUDA driver is older than the runtime needs: no GPU can be used, rmgsort sorts on the CPU' |
      grep -q . && fail "unexpected lines: $(tail -n +4 "$WORK/stdout")"
  fi
  end

  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && [[ -z ${CUDA_VISIBLE_DEVICES+set} ]]; then
    begin "--version lists every GPU nvidia-smi lists, by index and name"
    while IFS= read -r line; do
      index=${line#GPU }
      index=${index%%:*}
      name=$(sed -E 's/^GPU [0-9]+: (.*) \(UUID.*$/\1/' <<<"$line")
      grep -qF "GPU $index: $name, " "$WORK/stdout" || fail "no line for GPU $index ($name)"
    done < <(nvidia-smi -L)
    (($(grep -c '^GPU ' "$WORK/stdout") == $(nvidia-smi -L | grep -c '^GPU '))) || fail "GPU count differs from nvidia-smi -L"
    end
  fi
fi

summary
