// The subcommands, their options as parsed from the command line, and their exit codes.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/progress.hpp"
#include "generate/distribution.hpp"
#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "core/record_layout.hpp"
#include "host/order_check.hpp"

namespace rmgsort {

// Exit codes (documented in README.md and --help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;  // check or --verify found disorder or a mismatch
inline constexpr int kExitError = 2;        // usage, input, I/O, memory or device error
// A reader closed an output pipe early: the process dies of SIGPIPE (app/error_message.hpp), which a
// shell shows as this status and --stats records as the exit code.
inline constexpr int kExitClosedPipe = 128 + SIGPIPE;  // 141

struct SortOptions {
  // INPUT...: sorted as their concatenation, in this order; "-" (standard input) at most once.
  std::vector<std::string> inputs{"-"};
  std::string output = "-";
  KeyType type = KeyType::u32;
  // --type, --record-size, --key-offset (when --type is given); run_sort replaces it with a .npy
  // input's, from its header (app/sort_input.hpp).
  RecordLayout layout;
  std::optional<KeySpec> type_option;        // --type: required for raw input, checked against a .npy header
  bool record_options = false;               // --record-size or --key-offset given (raw input only)
  std::string key_field;                     // --key: a structured .npy input's field; "" none
  std::string index_output;                  // --index-output: "" none, else a file ("-": standard output)
  SortOrder order = SortOrder::ascending;
  std::string gpus = "all";
  std::optional<std::uint64_t> host_memory;  // bytes; default: 75 % of physical memory
  std::optional<std::uint64_t> gpu_memory;   // bytes per GPU; default: free memory minus a margin
  std::string temp_dir;                      // default: $TMPDIR or /tmp
  unsigned threads = 0;                      // 0: every core
  std::string stats;                         // "" none, "-" standard output, else a file
  ProgressMode progress = ProgressMode::automatic;
  bool verify = false;
  bool unique = false;  // --unique: the first record of each run of equal keys
  bool distributed = false;   // --distributed: one rank of an MPI job (app/command_distributed_sort.cpp)
  bool output_parts = false;  // --output-parts: each rank writes OUTPUT.part-RRRRR (with --distributed)
};

struct GenerateOptions {
  std::string output = "-";  // standard output, raw (a .npy header only for a file named *.npy)
  KeyType type = KeyType::u32;
  RecordLayout layout;                 // --type, --record-size, --key-offset
  std::optional<std::uint64_t> count;  // keys
  std::optional<std::uint64_t> size;   // bytes
  Distribution distribution{};
  std::uint64_t seed = 1;
  unsigned threads = 0;
  ProgressMode progress = ProgressMode::automatic;
};

struct CheckOptions {
  std::string file;
  // The records of a raw FILE: --type (required then), --record-size (0: the key's width), --key-offset.
  // A .npy FILE's header gives them: --type must agree, the other two are refused.
  std::optional<KeySpec> type;
  std::uint64_t record_size = 0;
  std::uint64_t key_offset = 0;
  bool record_options_given = false;     // --record-size or --key-offset was given
  std::optional<std::string> key_field;  // --key: the field of a structured .npy FILE
  std::optional<std::string> original;   // --original (or its old name --input)
  SortOrder order = SortOrder::ascending;
  FloatOrder float_order = FloatOrder::total;  // --float-order
  unsigned threads = 0;                        // --threads; 0: every core
  ProgressMode progress = ProgressMode::automatic;
};

// How merge produces its output (app/merge_method.hpp): merging the inputs, sorting their
// concatenation (the same stable order), or the rule's choice.
enum class MergeMethod { automatic, merge, sort };

struct MergeOptions {
  std::vector<std::string> inputs;           // each sorted already; "-" (standard input) at most once
  std::string output = "-";                  // "": only --index-output is written
  // --type, --record-size, --key-offset (when --type is given); .npy inputs give theirs in their headers.
  RecordLayout layout;
  std::optional<KeySpec> type_option;        // --type: required for raw inputs, checked against .npy headers
  bool record_options = false;               // --record-size or --key-offset given (raw inputs only)
  std::string key_field;                     // --key: structured .npy inputs' field; "" none
  std::string index_output;                  // --index-output: "" none, else a file ("-": standard output)
  SortOrder order = SortOrder::ascending;    // -r: the inputs are sorted largest first
  std::optional<std::uint64_t> host_memory;  // bytes; default: 75 % of physical memory
  std::string temp_dir;                      // default: $TMPDIR or /tmp
  unsigned threads = 0;                      // 0: every core
  std::string stats;                         // "" none, "-" standard output, else a file
  ProgressMode progress = ProgressMode::automatic;
  bool verify = false;
  bool unique = false;  // --unique: the first record of each run of equal keys (only the last pass filters)
  MergeMethod method = MergeMethod::automatic;  // --method
  std::string gpus = "all";                     // --gpus: the sort method's GPUs
  std::optional<std::uint64_t> gpu_memory;      // --gpu-memory: bytes per GPU for the sort method
};

// Each returns an exit code; errors are thrown as rmgsort::Error.
int run_sort(const SortOptions& options);
// sort --distributed: this process is one rank of an MPI job (started by mpirun); without MPI in the
// build, an Error saying so.
int run_distributed_sort(const SortOptions& options);
int run_merge(const MergeOptions& options);
int run_generate(const GenerateOptions& options);
int run_check(const CheckOptions& options);

// Parses argv, runs the subcommand, and turns every exception into a message and an exit code.
int run_command_line(int argc, char** argv);

}  // namespace rmgsort
