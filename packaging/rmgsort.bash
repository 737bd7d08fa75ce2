# bash completion for rmgsort: its commands (sort, merge, generate, check), each command's options, the values of --type, --gpus,
# --progress, --method and --dist, directories for --temp-dir and file names elsewhere. Self-contained (it
# needs bash 4, not the bash-completion package). The option lists must match `rmgsort COMMAND
# --help`: the install test compares them.

# COMPREPLY: the WORDS that start with CUR; a word ending in ':' (bytes:, zipf:) takes its number
# right after it, so no space follows a lone completion then.
_rmgsort_values() {
  local words=$1 cur=$2
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
  if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]]; then
    compopt -o nospace 2>/dev/null
  fi
}

_rmgsort() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  # --option=value: bash splits it at '=' (COMP_WORDBREAKS) into --option, '=' and the value.
  if [[ $prev == = && COMP_CWORD -ge 2 ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  elif [[ $cur == = ]]; then
    cur=""
  fi
  # bytes:N: bash splits it at ':' too; complete N after "bytes:".
  if [[ $prev == : && ${COMP_WORDS[COMP_CWORD - 2]} == bytes ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(echo {1..32})" -- "$cur")
    return
  fi

  # The command is the first word: the program itself takes no option with a value.
  local command=""
  if ((COMP_CWORD > 1)); then
    case ${COMP_WORDS[1]} in
      sort | merge | generate | check) command=${COMP_WORDS[1]} ;;
      *) return ;;  # an unknown command: nothing to offer
    esac
  fi

  case $prev in
    -t | --type)
      _rmgsort_values "u32 u64 i32 i64 f32 f64 bytes:" "$cur"
      return
      ;;
    --gpus)
      _rmgsort_values "all none" "$cur"
      return
      ;;
    --progress)
      _rmgsort_values "auto always never lines json" "$cur"
      return
      ;;
    --float-order)
      _rmgsort_values "total ieee" "$cur"
      return
      ;;
    --method)
      _rmgsort_values "auto merge sort" "$cur"
      return
      ;;
    --dist)
      _rmgsort_values "uniform normal zipf: bits: sorted reverse nearly-sorted zero special" "$cur"
      return
      ;;
    -T | --temp-dir)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return
      ;;
    -o | --output | --index-output | --stats | --original | --input)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
      ;;
    --record-size | --key-offset | --key | --host-memory | --gpu-memory | --threads | --count | --size | --seed)
      COMPREPLY=()  # a number or a field name: nothing to offer
      return
      ;;
  esac

  local options
  case $command in
    "")
      mapfile -t COMPREPLY < <(compgen -W "sort merge generate check --help --version" -- "$cur")
      return
      ;;
    sort)
      options="-o --output -t --type --record-size --key-offset --key --index-output -r --descending --gpus
               --host-memory --gpu-memory -T --temp-dir --threads --stats --progress --verify -u --unique
               --distributed --output-parts -h --help"
      ;;
    merge)
      options="-o --output -t --type --record-size --key-offset --key --index-output -r --descending --host-memory
               -T --temp-dir --threads --stats --progress --verify -u --unique --method --gpus --gpu-memory -h
               --help"
      ;;
    generate)
      options="-o --output -t --type --record-size --key-offset --count --size --dist --seed --threads
               --progress -h --help"
      ;;
    check)
      options="-t --type --record-size --key-offset --key --original --input -r --descending --float-order
               --threads --progress -h --help"
      ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
  elif [[ $command != generate ]]; then  # sort's and merge's INPUTs, check's FILE
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  else
    COMPREPLY=()
  fi
}

complete -F _rmgsort rmgsort
