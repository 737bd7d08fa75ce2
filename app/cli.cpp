// The command line: CLI11 definitions of the three subcommands (their values converted in
// option_values.cpp, CLI11's errors worded in cli_messages.cpp), and the one place where exceptions
// become messages and exit codes.
#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <new>
#include <string_view>

#include "app/cli_messages.hpp"
#include "app/commands.hpp"
#include "app/error_message.hpp"
#include "app/option_values.hpp"
#include "app/version.hpp"
#include "report/progress.hpp"
#include "report/size_parse.hpp"
#include "host/system_memory.hpp"
#include "io/cleanup.hpp"
#include "io/standard_descriptors.hpp"
#include "core/error.hpp"

namespace rmgsort {
namespace {

constexpr const char* kExitCodesHelp =
    "Exit codes: 0 success; 1 check, merge or --verify found disorder or a mismatch; 2 usage, input, I/O, memory "
    "or device error; 141 a reader closed an output pipe early (ended by SIGPIPE, quietly).";

constexpr const char* kTypeHelp =
    "Key type: u32 u64 i32 i64 f32 f64 (little-endian numbers), or bytes:N (N = 1..32 bytes compared as "
    "unsigned bytes, memcmp order)";
constexpr const char* kRecordSizeHelp =
    "Bytes per record (default: the key's width): the input is fixed-size records, each holding a key";
constexpr const char* kKeyOffsetHelp = "Where the key lies in each record, in bytes (default 0)";
constexpr const char* kProgressHelp =
    "Progress on standard error: a line redrawn on a terminal (auto: when it is one; always), lines for a log "
    "(one per phase and every 5 s), json (the same as JSON objects), or never";

// Text of the options whose conversion may fail with our own messages (CLI11 only collects them).
struct RawOptions {
  std::string type, host_memory, gpu_memory, progress = "auto", count, size, distribution = "uniform", seed = "1";
  std::string record_size, key_offset;
};

void add_sort_command(CLI::App& app, SortOptions& sort, RawOptions& raw) {
  CLI::App* cmd = app.add_subcommand("sort", "Sort a file of keys or records, stably (on every selected GPU, else on the CPU)");
  cmd->footer(kExitCodesHelp);
  cmd->add_option("INPUT", sort.inputs,
                  "Input files, sorted as their concatenation (of one format and type); - reads standard input")
      ->capture_default_str()->type_name("");
  cmd->add_option("-o,--output", sort.output,
                  "Output file; - writes standard output (refused when it is a terminal). May name an input. "
                  "A .npy file for .npy input, and for raw input when FILE ends in .npy")
      ->capture_default_str()->type_name("FILE");
  cmd->add_option("-t,--type", raw.type,
                  std::string(kTypeHelp) + "; required for raw input, taken from the header of a .npy input")
      ->type_name("TYPE")->check(key_type_choices());
  cmd->add_option("--record-size", raw.record_size, kRecordSizeHelp)->type_name("BYTES");
  cmd->add_option("--key-offset", raw.key_offset, kKeyOffsetHelp)->type_name("BYTES");
  cmd->add_option("--key", sort.key_field, "A structured .npy input's field to sort by")->type_name("FIELD");
  cmd->add_option("--index-output", sort.index_output,
                  "Also write each output record's position in the input (u64 little-endian) to FILE; "
                  "a .npy array of <u8 when the input is .npy or FILE ends in .npy; without -o, only the positions "
                  "are written")
      ->type_name("FILE");
  cmd->add_flag_function(
      "-r,--descending", [&sort](std::int64_t) { sort.order = SortOrder::descending; },
      "Largest first (NaNs stay last; equal keys keep their input order)");
  cmd->add_option("--gpus", sort.gpus,
                  "GPUs to sort on: all (small inputs go to the CPU), none, or a list such as 0,1,3")
      ->capture_default_str()
      ->type_name("LIST");
  cmd->add_option("--host-memory", raw.host_memory,
                  "Host memory rmgsort may use, e.g. 48G, or a share of physical memory, e.g. 50% "
                  "(default: 75%)")->type_name("SIZE");
  cmd->add_option("--gpu-memory", raw.gpu_memory, "Device memory to use per GPU, e.g. 8G (default: free minus a margin)")
      ->type_name("SIZE");
  cmd->add_option("-T,--temp-dir", sort.temp_dir, "Directory for temporary spill files (default: $TMPDIR or /tmp)")
      ->type_name("DIR");
  cmd->add_option("--threads", sort.threads, "CPU threads (default: every core)")->check(thread_count_check())->type_name("N");
  cmd->add_option("--stats", sort.stats, "Write one JSON object of statistics to FILE, or - for standard output")
      ->type_name("FILE");
  cmd->add_option("--progress", raw.progress, kProgressHelp)->capture_default_str()->type_name("MODE")
      ->check(progress_choices());
  cmd->add_flag("--verify", sort.verify,
                "Check order and that the output is a permutation of the input before committing it");
  cmd->add_flag("-u,--unique", sort.unique,
                "Keep only the first record of each run of equal keys (in input order; as sort -u)");
  cmd->add_flag("--distributed", sort.distributed,
                "Sort as one rank of an MPI job (mpirun -np P rmgsort sort --distributed ...): INPUT and OUTPUT on a "
                "file system every rank reaches, one output committed when every rank succeeded");
  cmd->add_flag("--output-parts", sort.output_parts,
                "With --distributed: each rank writes its sorted records to OUTPUT.part-RRRRR (its rank, 5 digits); "
                "the parts concatenated in rank order are the output");
  apply_value_rules(*cmd);
}

void add_generate_command(CLI::App& app, GenerateOptions& generate, RawOptions& raw) {
  CLI::App* cmd = app.add_subcommand("generate", "Generate a file of keys or records");
  cmd->footer(std::string(distribution_help()) + "\n" + kExitCodesHelp);
  cmd->add_option("-o,--output", generate.output,
                  "Output file; - writes standard output (refused when it is a terminal), raw; a name ending "
                  "in .npy gets a NumPy .npy header")
      ->capture_default_str()->type_name("FILE");
  cmd->add_option("-t,--type", raw.type, kTypeHelp)->required()->type_name("TYPE")->check(key_type_choices());
  cmd->add_option("--record-size", raw.record_size, kRecordSizeHelp)->type_name("BYTES");
  cmd->add_option("--key-offset", raw.key_offset, kKeyOffsetHelp)->type_name("BYTES");
  auto* count = cmd->add_option("--count", raw.count,
                                "Number of records (keys); suffixes k, M, G are powers of 1000 (4G = 4e9)")
                    ->type_name("N");
  auto* size =
      cmd->add_option("--size", raw.size, "Size in bytes; suffixes K, M, G, T are powers of 1024")->type_name("SIZE");
  count->excludes(size);
  size->excludes(count);
  cmd->add_option("--dist", raw.distribution, "Distribution (see below)")
      ->capture_default_str()->type_name("DIST");
  cmd->add_option("--seed", raw.seed, "Seed (0 to 2^64-1): the same seed gives the same keys with any number of threads")
      ->capture_default_str()->type_name("N");
  cmd->add_option("--threads", generate.threads, "CPU threads (default: every core)")
      ->check(thread_count_check())->type_name("N");
  cmd->add_option("--progress", raw.progress, kProgressHelp)->capture_default_str()->type_name("MODE")
      ->check(progress_choices());
  apply_value_rules(*cmd);
}

void add_check_command(CLI::App& app, CheckOptions& check, RawOptions& raw) {
  CLI::App* cmd = app.add_subcommand(
      "check", "Check that FILE is sorted (and, with --original, a permutation of ORIGINAL); prints one summary line");
  cmd->footer("Exit codes: 0 sorted (and a permutation); 1 not; 2 usage, input or I/O error; 141 a reader closed "
              "the output pipe early (ended by SIGPIPE, quietly).");
  cmd->add_option("FILE", check.file, "File to check (raw records, or a .npy file); - reads standard input")
      ->required()->type_name("");
  cmd->add_option("-t,--type", raw.type, std::string(kTypeHelp) + "; required unless FILE is a .npy file, whose "
                                                                   "header gives it (then it must agree)")
      ->type_name("TYPE")->check(key_type_choices());
  cmd->add_option("--record-size", raw.record_size, std::string(kRecordSizeHelp) + " (not for a .npy file)")
      ->type_name("BYTES");
  cmd->add_option("--key-offset", raw.key_offset, std::string(kKeyOffsetHelp) + " (not for a .npy file)")
      ->type_name("BYTES");
  cmd->add_option("--key", check.key_field, "The field of a structured .npy FILE whose order to check")
      ->type_name("FIELD");
  cmd->add_option("--original", check.original, "The unsorted original: also check that FILE is a permutation of it")
      ->type_name("ORIGINAL");
  // Shown in --help: CLI11 names a hidden option "" in its messages. Given with --original: dispatch().
  cmd->add_option("--input", check.original, "The former name of --original")->type_name("ORIGINAL");
  cmd->add_flag_function(
      "-r,--descending", [&check](std::int64_t) { check.order = SortOrder::descending; },
      "Expect largest first (NaNs last)");
  cmd->add_option_function<std::string>(
         "--float-order",
         [&check](const std::string& text) {
           if (text != "total" && text != "ieee")
             throw Error("--float-order: unknown order '" + text + "' (expected total or ieee)");
           check.float_order = text == "ieee" ? FloatOrder::ieee : FloatOrder::total;
         },
         "f32/f64 keys: total (rmgsort's order: -0.0 before +0.0, NaNs last) or ieee (-0.0 equal to +0.0, "
         "NaNs last: what np.sort or std::sort with operator< gives passes); other keys have one order")
      ->default_str("total")
      ->type_name("ORDER");
  cmd->add_option("--threads", check.threads, "CPU threads (default: every core)")
      ->check(thread_count_check())
      ->type_name("N");
  cmd->add_option("--progress", raw.progress, kProgressHelp)->capture_default_str()->type_name("MODE")
      ->check(progress_choices());
  apply_value_rules(*cmd);
}

void add_merge_command(CLI::App& app, MergeOptions& merge, RawOptions& raw) {
  CLI::App* cmd = app.add_subcommand(
      "merge", "Merge files that are each sorted into one sorted output, stably (equal keys in input order), in "
               "bounded memory");
  cmd->footer("Exit codes: 0 success; 1 an input is not sorted, or --verify found a mismatch; 2 usage, input, I/O or "
              "memory error.");
  cmd->add_option("INPUT", merge.inputs,
                  "Sorted input files (raw records, or .npy files), in the order their equal keys keep; - reads "
                  "standard input (once)")
      ->type_name("");
  cmd->add_option("-o,--output", merge.output,
                  "Output file; - writes standard output (refused when it is a terminal). May name an input. "
                  "A .npy file for .npy inputs, and for raw inputs when FILE ends in .npy")
      ->capture_default_str()->type_name("FILE");
  cmd->add_option("-t,--type", raw.type,
                  std::string(kTypeHelp) + "; required for raw input, taken from the headers of .npy inputs")
      ->type_name("TYPE");
  cmd->add_option("--record-size", raw.record_size, kRecordSizeHelp)->type_name("BYTES");
  cmd->add_option("--key-offset", raw.key_offset, kKeyOffsetHelp)->type_name("BYTES");
  cmd->add_option("--key", merge.key_field, "Structured .npy inputs' field the inputs are sorted by")
      ->type_name("FIELD");
  cmd->add_option("--index-output", merge.index_output,
                  "Also write each output record's position in the concatenation of the inputs (u64 little-endian) "
                  "to FILE; a .npy array of <u8 when the inputs are .npy or FILE ends in .npy; without -o, only the "
                  "positions are written")
      ->type_name("FILE");
  cmd->add_flag_function(
      "-r,--descending", [&merge](std::int64_t) { merge.order = SortOrder::descending; },
      "The inputs are sorted largest first (NaNs last)");
  cmd->add_option("--host-memory", raw.host_memory,
                  "Host memory rmgsort may use, e.g. 4G or 50% of physical memory (default: 75%); fewer inputs than memory "
                  "and open files allow are merged in one pass, more in passes through temporary files")
      ->type_name("SIZE");
  cmd->add_option("-T,--temp-dir", merge.temp_dir,
                  "Directory for the temporary files of passes (default: $TMPDIR or /tmp)")
      ->type_name("DIR");
  cmd->add_option("--threads", merge.threads, "CPU threads (default: every core)")
      ->check(thread_count_check())
      ->type_name("N");
  cmd->add_option("--stats", merge.stats, "Write one JSON object of statistics to FILE, or - for standard output")
      ->type_name("FILE");
  cmd->add_option("--progress", raw.progress, kProgressHelp)->capture_default_str()->type_name("MODE")
      ->check(progress_choices());
  cmd->add_flag("--verify", merge.verify,
                "Check the output's order and that it holds the inputs' records before committing it");
  cmd->add_flag("-u,--unique", merge.unique,
                "Keep only the first record of each run of equal keys (the first in input order; as sort -m -u)");
  cmd->add_option_function<std::string>(
         "--method",
         [&merge](const std::string& text) {
           if (text != "auto" && text != "merge" && text != "sort")
             throw Error("--method: unknown method '" + text + "' (expected auto, merge or sort)");
           merge.method = text == "merge" ? MergeMethod::merge
                          : text == "sort" ? MergeMethod::sort
                                           : MergeMethod::automatic;
         },
         "merge (a k-way merge, bounded memory), sort (sort's machinery on the inputs' concatenation, the GPUs "
         "where it chooses them; each input still checked), or auto: sort where it was measured faster (see "
         "README, Merge)")
      ->default_str("auto")
      ->type_name("METHOD");
  cmd->add_option("--gpus", merge.gpus, "GPUs for the sort method: all (small inputs go to the CPU), none, or a list")
      ->capture_default_str()
      ->type_name("LIST");
  cmd->add_option("--gpu-memory", raw.gpu_memory, "Device memory to use per GPU for the sort method, e.g. 8G")
      ->type_name("SIZE");
  apply_value_rules(*cmd);
}

// What sort and merge convert alike from their text options: the layout (without --type, a .npy
// input's; raw input is refused then), --index-output alone (without -o, only the positions are
// written), --progress and --host-memory.
template <class Options>
void convert_record_options(Options& options, const RawOptions& raw, const CLI::App& command) {
  if (!raw.type.empty()) {
    options.layout = layout_option(raw.type, raw.record_size, raw.key_offset);
    options.type_option = key_spec_option(raw.type);
  }
  options.record_options = !raw.record_size.empty() || !raw.key_offset.empty();
  if (!options.index_output.empty() && command.get_option("--output")->count() == 0) options.output.clear();
  options.progress = progress_option(raw.progress);
  if (!raw.host_memory.empty())
    options.host_memory = parse_size_or_percent(raw.host_memory, "--host-memory", physical_memory_bytes());
}

// Whether MODE gives JSON progress for a run writing OUTPUT and INDEX_OUTPUT ("-": standard output).
bool json_progress_in_effect(ProgressMode mode, const std::string& output, const std::string& index_output) {
  return progress_mode_beside_keys(mode, output == "-" || index_output == "-") == ProgressMode::json;
}

// Whether COMMAND, as parsed, shows JSON progress (--distributed shows none: P ranks would
// interleave their lines).
bool json_progress_requested(const std::string& command, const RawOptions& raw, const SortOptions& sort,
                             const MergeOptions& merge, const GenerateOptions& generate) {
  const ProgressMode mode = progress_option(raw.progress);
  if (command == "sort") return !sort.distributed && json_progress_in_effect(mode, sort.output, sort.index_output);
  if (command == "merge") return json_progress_in_effect(mode, merge.output, merge.index_output);
  if (command == "generate") return json_progress_in_effect(mode, generate.output, "");
  return mode == ProgressMode::json;  // check writes no keys
}

// Runs `body` with oneTBB limited to `threads` (0: no limit).
template <class F>
int with_threads(unsigned threads, F&& body) {
  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0) limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, threads);
  return body();
}

// Sets COMMAND to the subcommand's name once the command line is parsed.
int dispatch(int argc, char** argv, std::string& command) {
  // Named, so that the usage lines say "rmgsort" whatever path it was started by (help2man reads them).
  CLI::App app{"rmgsort: sorts binary files of fixed-width keys or records on every GPU of the machine, or on the CPU",
               "rmgsort"};
  // Printed by print_version() below, not by CLI11: it asks the CUDA driver what it has.
  app.set_version_flag("--version", std::string(),
                       "Print the version, the CUDA runtime and driver versions and the GPUs rmgsort sees, and exit");
  app.require_subcommand(1);
  app.footer(kExitCodesHelp);
  SortOptions sort;
  GenerateOptions generate;
  CheckOptions check;
  MergeOptions merge;
  RawOptions raw;
  add_sort_command(app, sort, raw);
  add_merge_command(app, merge, raw);
  add_generate_command(app, generate, raw);
  add_check_command(app, check, raw);

  // CLI11 would only say "A subcommand is required" for `rmgsort shuffle`: name the word instead.
  const auto is_command = [](const char* word) {
    return std::strcmp(word, "sort") == 0 || std::strcmp(word, "merge") == 0 || std::strcmp(word, "generate") == 0 ||
           std::strcmp(word, "check") == 0;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
    print_error_line(std::string("unknown command '") + argv[1] +
                     "' (expected sort, merge, generate or check; see rmgsort --help)");
    return kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion&) {
    return print_version();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fputs(usage_error_text(app, e).c_str(), stderr);
    return kExitError;
  }

  command = app.get_subcommands().front()->get_name();
  // From here on a failure under --progress json ends with a failed object (report/progress.hpp),
  // one in the options' values included.
  announce_json_progress(json_progress_requested(command, raw, sort, merge, generate));
  install_cleanup_signal_handlers();
  if (app.got_subcommand("sort")) {
    convert_record_options(sort, raw, *app.get_subcommand("sort"));
    sort.type = sort.layout.key_type;
    if (!raw.gpu_memory.empty()) sort.gpu_memory = parse_size(raw.gpu_memory, "--gpu-memory");
    if (sort.output_parts && !sort.distributed) throw Error("--output-parts: only with --distributed");
    return with_threads(sort.threads, [&] { return sort.distributed ? run_distributed_sort(sort) : run_sort(sort); });
  }
  if (app.got_subcommand("merge")) {
    convert_record_options(merge, raw, *app.get_subcommand("merge"));
    if (!raw.gpu_memory.empty()) merge.gpu_memory = parse_size(raw.gpu_memory, "--gpu-memory");
    return with_threads(merge.threads, [&] { return run_merge(merge); });
  }
  if (app.got_subcommand("generate")) {
    generate.layout = layout_option(raw.type, raw.record_size, raw.key_offset);
    generate.type = generate.layout.key_type;
    generate.progress = progress_option(raw.progress);
    generate.distribution = parse_distribution(raw.distribution);
    generate.seed = seed_option(raw.seed);
    if (!raw.count.empty()) generate.count = parse_count(raw.count, "--count");
    if (!raw.size.empty()) generate.size = parse_size(raw.size, "--size", /*allow_zero=*/true);
    if (!generate.count && !generate.size) throw Error("generate: one of --count or --size is required");
    return with_threads(generate.threads, [&] { return run_generate(generate); });
  }
  const CLI::App& check_command = *app.get_subcommand("check");
  if (check_command.count("--original") > 0 && check_command.count("--input") > 0)
    throw Error("--input: the former name of --original, which is given too");
  if (!raw.type.empty()) check.type = key_spec_option(raw.type);
  if (!raw.record_size.empty()) {
    check.record_size = byte_count_option(raw.record_size, "--record-size");
    if (check.record_size == 0) throw Error("--record-size: a record takes at least one byte");
  }
  if (!raw.key_offset.empty()) check.key_offset = byte_count_option(raw.key_offset, "--key-offset");
  check.record_options_given = !raw.record_size.empty() || !raw.key_offset.empty();
  check.progress = progress_option(raw.progress);
  return with_threads(check.threads, [&] { return run_check(check); });
}

}  // namespace

int run_command_line(int argc, char** argv) {
  std::string command;
  try {
    // Before anything opens a file: a closed standard descriptor must not become one of ours (an
    // output opened as descriptor 2 would receive the error messages).
    (void)hold_closed_standard_descriptors();
    return dispatch(argc, argv, command);
  } catch (const std::exception& e) {
    // Everything is unwound by now: no temporary is left, nothing was committed.
    park_if_dying();
    if (ends_by_sigpipe(e)) die_of_sigpipe();
    print_failure(error_message(e, command), kExitError);
  }
  return kExitError;
}

}  // namespace rmgsort
