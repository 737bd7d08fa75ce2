// rmgsort sort --distributed: this process is one rank of an MPI job (mpirun -np P rmgsort sort
// --distributed INPUT -o OUTPUT ...). Rank r reads records [r n / P, (r + 1) n / P) of INPUT; the
// ranks find the splitters from histograms summed over all of them (dist/global_splitters.hpp), so
// that rank j receives exactly the records of sorted positions [j n / P, (j + 1) n / P); the records
// move in bounded rounds (dist/share_exchange.hpp) and arrive in global input order; each rank sorts
// its share stably with today's engines (the GPUs of --gpus, or the CPU) and writes it at its offset
// into one temporary output that rank 0 commits only when every rank succeeded
// (dist/shared_output.hpp), or into OUTPUT.part-RRRRR of its own (--output-parts).
//
// Every step a rank takes on its own ends in an agreement (dist/rank_agreement.hpp): if any rank
// failed, every rank stops there with exit status 2, the failing rank's message naming it and its
// cause, the others saying which rank failed; nothing is committed and every temporary file goes.
// A failure of MPI itself cannot be agreed on: the rank that meets it aborts the job (MPI_Abort).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>

#include "app/commands.hpp"
#include "app/distributed_outputs.hpp"
#include "app/distributed_report.hpp"
#include "app/distributed_share_file.hpp"
#include "app/distributed_share_memory.hpp"
#include "app/distributed_sort_steps.hpp"
#include "app/error_message.hpp"
#include "app/distributed_file_checks.hpp"
#include "app/sort_input.hpp"
#include "core/error.hpp"
#include "dist/boundary_search.hpp"
#include "dist/classified_slice.hpp"
#include "dist/communicator.hpp"
#include "dist/global_splitters.hpp"
#include "dist/mpi_exchange.hpp"
#if RMGSORT_WITH_NCCL
#include "dist/nccl_exchange.hpp"
#endif
#include "dist/rank_agreement.hpp"
#include "dist/rank_binding.hpp"
#include "dist/share_exchange.hpp"
#include "host/system_memory.hpp"
#include "io/cleanup.hpp"
#include "report/stats.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

using dist::Communicator;
using dist::agreed;

// What no rank can do: every rank reads INPUT and writes OUTPUT by name.
void refuse_unshared(const SortOptions& options) {
  for (const std::string& input : options.inputs)
    if (input == "-")
      throw Error("--distributed: standard input (-) cannot be read by every rank; give INPUT as a file on a file "
                  "system every rank reaches");
  if (options.output == "-")
    throw Error("--distributed: -o - (standard output): every rank writes its records into the output file; give "
                "-o FILE on a file system every rank reaches");
  if (options.index_output == "-")
    throw Error("--distributed: --index-output - (standard output): give --index-output FILE");
}

// The exchange's staging buffers (each): kDefaultStagingBytes, at most a sixteenth of --host-memory
// (at least 64 KiB), or RMGSORT_EXCHANGE_STAGING_BYTES from the environment, which the end-to-end
// tests set small to exchange small inputs in many rounds.
std::size_t staging_bytes(const SortOptions& options) {
  const char* text = std::getenv("RMGSORT_EXCHANGE_STAGING_BYTES");
  if (text == nullptr || *text == '\0')
    return std::size_t(std::clamp<std::uint64_t>(options.host_memory.value_or(default_host_memory_bytes()) / 16,
                                                  std::uint64_t{64} << 10, dist::kDefaultStagingBytes));
  char* end = nullptr;
  const unsigned long long bytes = std::strtoull(text, &end, 10);
  if (*end != '\0' || bytes == 0 || bytes > dist::Exchange::kMaxRoundBytes)
    throw Error(std::string("RMGSORT_EXCHANGE_STAGING_BYTES: '") + text + "' is not a byte count from 1 to " +
                std::to_string(dist::Exchange::kMaxRoundBytes));
  return std::size_t(bytes);
}

// The exchange: between the GPUs with NCCL when two or more ranks sort on GPUs (and the build has
// NCCL), unless RMGSORT_EXCHANGE=mpi asks for host memory; else MPI over host memory. One rank sends
// nothing, and NCCL's communicator would only cost its set-up, unless RMGSORT_EXCHANGE=nccl asks
// for it (to run the NCCL path where there is one GPU). Collective.
std::unique_ptr<dist::Exchange> make_exchange(const Communicator& communicator, const DistributedReport& report,
                                              std::size_t round_bytes) {
#if RMGSORT_WITH_NCCL
  const char* forced = std::getenv("RMGSORT_EXCHANGE");
  const std::string_view asked = forced != nullptr ? forced : "";
  const bool mpi = asked == "mpi" || (communicator.size() == 1 && asked != "nccl");
  const bool on_gpus = report.plan && !report.plan->engine->devices().empty() && !report.gpus.empty();
  // (Ranks that share a GPU, e.g. more ranks than GPUs on a node, exchange over MPI: NCCL refuses them.)
  if (communicator.all_min(on_gpus && !mpi ? 1 : 0) == 1 &&
      dist::ranks_have_gpus_of_their_own(communicator, report.gpus.front()))
    return std::make_unique<dist::NcclExchange>(communicator, report.gpus.front(), round_bytes);
#else
  (void)report;
  (void)round_bytes;
#endif
  return std::make_unique<dist::MpiExchange>(communicator);
}

// What every rank must agree on, as one number: the order, --unique, --verify, --output-parts,
// whether positions are written, the records' layout and key field (FNV-1a of their text).
std::uint64_t job_options_digest(const SortOptions& options, const RecordLayout& layout) {
  const std::string text = std::to_string(int(options.order)) + '/' + std::to_string(options.unique) + '/' +
                           std::to_string(options.verify) + '/' + std::to_string(options.output_parts) + '/' +
                           std::to_string(!options.index_output.empty()) + '/' +
                           std::to_string(int(layout.key_type)) + '/' + std::to_string(layout.key_size) + '/' +
                           std::to_string(layout.record_size) + '/' + std::to_string(layout.key_offset) + '/' +
                           options.key_field;
  std::uint64_t digest = 14695981039346656037ULL;
  for (const char c : text) digest = (digest ^ std::uint8_t(c)) * 1099511628211ULL;
  return digest;
}

JobInput open_job_input(const Communicator& communicator, const SortOptions& options, const RunStart& start,
                        std::optional<StatsOutput>& stats) {
  JobInput job;
  agreed(communicator, [&] {
    refuse_unshared(options);
    require_distributed_files_apart(communicator, options);
    job.input.emplace(open_sort_input(options));
    job.written = input_write_times(*job.input);
    require_whole_records(*job.input);
    if (!job.input->input.regular())
      throw Error(job.input->input.display_name() + ": --distributed reads a file every rank reaches; this is a stream");
    if (communicator.rank() == 0) stats.emplace(options.stats, "sort", RMGSORT_VERSION, start);
  });
  const std::size_t record_size = job.input->layout.record_size;
  job.total = job.input->input.size() / record_size;
  // Every rank must see the same records: the same file by the same name (a rank given other
  // arguments, or a file that changed under a rank, would make the splitters meaningless).
  const bool same = communicator.all_min(job.total) == communicator.all_max(job.total) &&
                    communicator.all_min(record_size) == communicator.all_max(record_size);
  // And sort them the same way: a rank sorting in the other order, or alone with --unique, wrote its
  // share so with exit 0; alone with --verify or --output-parts, it waited in another collective forever.
  const std::uint64_t options_digest = job_options_digest(options, job.input->layout);
  agreed(communicator, [&] {
    if (communicator.all_min(options_digest) != communicator.all_max(options_digest))
      throw Error("the ranks were given different options (--distributed needs the same options on every rank "
                  "but --gpus, --threads, --host-memory, --temp-dir and --progress)");
  });
  agreed(communicator, [&] {
    if (!same)
      throw Error(job.input->input.display_name() + ": the ranks see inputs of different sizes or records "
                  "(--distributed needs the same INPUT, on a file system every rank reaches, and the same options on "
                  "every rank)");
  });
  job.first = dist::part_start(job.total, communicator.size(), communicator.rank());
  job.count = dist::part_start(job.total, communicator.size(), communicator.rank() + 1) - job.first;
  return job;
}

int sort_distributed(const Communicator& communicator, const SortOptions& options, DistributedReport& report,
                     std::optional<StatsOutput>& stats) {
  std::size_t staging = 0;
  agreed(communicator, [&] { staging = staging_bytes(options); });
  dist::warn_of_narrow_binding(communicator);
  const JobInput job = open_job_input(communicator, options, report.start, stats);
  const SortInput& input = *job.input;
  const RecordLayout& layout = input.layout;
  report.layout = layout;
  report.input_format = input.format();
  const bool positions = !options.index_output.empty();
  // The share in memory when it fits beside the slice and the staging, else through a file.
  std::optional<ShareFile> share_file;
  HostBuffer share;
  RankSlice slice;
  agreed(communicator, [&] {
    Stopwatch setup;
    std::string too_large;
    const std::uint64_t blocks = (job.count + dist::kClassifyBlockRecords - 1) / dist::kClassifyBlockRecords;
    const ExchangeMemory memory{job.count * layout.record_size,
                                job.count * std::uint64_t(dist::destination_width(communicator.size())) +
                                    blocks * std::uint64_t(communicator.size()) * 4,
                                2 * staging};
    report.plan = plan_share(options, layout, job.count, memory, report.gpus, too_large);
    if (!report.plan) {
      if (options.unique || positions || options.verify)
        throw Error(too_large + "; --unique, --index-output and --verify need a rank's share in memory: use more ranks "
                    "or a larger --host-memory");
      share_file.emplace(ShareFile::create(options.temp_dir));
      report.setup_seconds = setup.seconds();
      return;
    }
    share = HostBuffer(std::size_t(job.count * (layout.record_size + (positions ? 8 : 0))));
    const auto read = [&] { slice = read_slice(input, job.first, job.count, options.verify); };
    if (job.count == 0) {
      report.setup_seconds = setup.seconds();
      return read();
    }
    report.plan->engine->place(share.data(), share.capacity());
    report.setup_seconds = setup.seconds();
    // The share is page-locked for the GPUs while the slice is read (the read makes no CUDA call),
    // not before it (--stats' gpu.host_page_locking); the read's phase includes what it waited.
    Stopwatch reading;
    report.plan->engine->pin_while(share.data(), share.capacity(), read, "read");
    slice.seconds = reading.seconds();
  });
  report.read_seconds = slice.seconds;
  // A slice not read whole is read a window at a time by every pass (a read error there cannot be
  // agreed on: it ends the job).
  const std::size_t record_size = layout.record_size;
  dist::SliceReader reader =
      share_file ? dist::SliceReader(
                       [&input, &job, record_size](std::uint64_t first, std::uint64_t count, std::byte* dst) {
                         const std::uint64_t bytes = count * record_size;
                         for (std::uint64_t done = 0; done < bytes;) {
                           const std::size_t got = input.input.read_at(dst + done, std::size_t(bytes - done),
                                                                       (job.first + first) * record_size + done);
                           if (got == 0) throw Error(input.input.display_name() + ": ended early (did it shrink?)");
                           done += got;
                         }
                       },
                       job.count, record_size)
                 : dist::SliceReader(slice.records.data(), job.count, record_size);

  // (The splitters' collected keys take at most the staging's memory, not yet allocated.)
  const dist::Destinations destinations =
      dist::find_destinations(communicator, reader, job.total, layout, options.order, report.splitters, 2 * staging);
  const dist::ShareSlice share_slice{job.first, layout, options.order, positions};
  dist::ClassifiedSlice classes(destinations, reader, layout, options.order, communicator.size());
  const dist::ShareCounts counts = dist::count_shares(communicator, classes);
  if (counts.received() != job.count) require_input_unchanged(job);  // the likely cause, said plainly
  RMGSORT_EXPECTS(counts.received() == job.count, "a share of exactly its part's records");
  report.classify_seconds = counts.seconds;
  const dist::ShareTarget target = share_file ? dist::ShareTarget{nullptr, share_file->sink()}
                                              : dist::ShareTarget{share.data(), {}};
  Stopwatch exchange_setup;
  const std::unique_ptr<dist::Exchange> exchange = make_exchange(
      communicator, report, std::min(dist::Exchange::kMaxRoundBytes,
                                     std::max(staging, std::size_t(communicator.size()) * share_slice.wire_bytes())));
  report.exchange_setup_seconds = exchange_setup.seconds();
  report.exchange_name = exchange->name();
  report.exchange = dist::exchange_shares(communicator, *exchange, classes, share_slice, counts, target, staging);
  agreed(communicator, [&] { require_input_unchanged(job); });  // the input is read no more
  report.received = job.count;
  slice.records = HostBuffer();  // sent

  if (share_file) {
    report.plan.reset();  // (the file's plan chooses its engine again, from the memory this one held)
    return sort_share_file(communicator, options, job, *share_file, report, stats);
  }
  return sort_share_in_memory(communicator, options, job, share, slice.checksum, report, stats);
}

}  // namespace

int run_distributed_sort(const SortOptions& options) {
  Communicator communicator(nullptr, nullptr);
  DistributedReport report(communicator);
  std::optional<StatsOutput> stats;  // rank 0's, once opened
  try {
    const int code = sort_distributed(communicator, options, report, stats);
    if (code == kExitCheckFailed) {
      const std::string message = "--verify failed: " + report.verify_failure + "; nothing was committed";
      if (communicator.rank() == 0) print_error_line(message);
      write_failure_stats(communicator, options, report, stats, RunEnd{kExitCheckFailed, message});
    }
    return code;
  } catch (const dist::MpiError& e) {
    // The ranks cannot agree any more: this one ends the job (its temporary files go first).
    print_error_line(communicator.name() + ": " + e.what());
    unlink_registered_paths();
    communicator.abort(kExitError);
  } catch (const dist::RankFailure& e) {
    // Every rank knows: each says so, then unwinds (its temporary files go) and reaches MPI_Finalize.
    // The message is printed here, before the ranks part: the launcher ends the job as soon as one
    // rank exits nonzero, which may cut off a rank that has not printed yet.
    const std::string message = e.this_rank() ? communicator.name() + ": " + e.what()
                                              : communicator.name() + ": stopped, nothing committed: " + e.what();
    print_error_line(message);
    std::fflush(stderr);
    write_failure_stats(communicator, options, report, stats, RunEnd{kExitError, message});
    communicator.barrier();
    return kExitError;
  } catch (const std::exception& e) {
    // Not agreed on: the other ranks may wait in a collective for this one, so it ends the job.
    print_error_line(communicator.name() + ": " + error_message(e, "sort"));
    unlink_registered_paths();
    communicator.abort(kExitError);
  }
}

}  // namespace rmgsort
