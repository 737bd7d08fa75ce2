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
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <unistd.h>

#include "app/commands.hpp"
#include "app/distributed_report.hpp"
#include "app/distributed_share_file.hpp"
#include "app/distributed_sort_steps.hpp"
#include "app/error_message.hpp"
#include "app/sort_input.hpp"
#include "core/error.hpp"
#include "dist/boundary_search.hpp"
#include "dist/communicator.hpp"
#include "dist/global_splitters.hpp"
#include "dist/mpi_exchange.hpp"
#if RMGSORT_WITH_NCCL
#include "dist/nccl_exchange.hpp"
#endif
#include "dist/rank_agreement.hpp"
#include "dist/share_exchange.hpp"
#include "dist/shared_output.hpp"
#include "host/order_check.hpp"
#include "host/system_memory.hpp"
#include "io/blocking_io.hpp"
#include "io/cleanup.hpp"
#include "io/npy_format.hpp"
#include "report/stats.hpp"
#include "report/stopwatch.hpp"
#include "sort/sorted_sink.hpp"
#include "sort/unique_filter.hpp"

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

// The last key of this rank's sorted share, and of the nearest lower rank that has records: the
// run of equal keys --unique and --verify see continues across ranks.
std::optional<std::vector<std::byte>> previous_last_record(const Communicator& communicator,
                                                           const RecordLayout& layout, const SortedRound& sorted) {
  std::vector<std::byte> mine(1 + layout.key_size);
  const std::size_t count = sorted.records.size() / layout.record_size;
  if (count > 0) {
    mine[0] = std::byte{1};
    std::memcpy(mine.data() + 1, sorted.records.data() + (count - 1) * layout.record_size + layout.key_offset,
                layout.key_size);
  }
  const std::vector<std::byte> all = communicator.all_gather_bytes(mine);
  for (int r = communicator.rank() - 1; r >= 0; --r) {
    const std::byte* theirs = all.data() + std::size_t(r) * mine.size();
    if (theirs[0] != std::byte{1}) continue;
    std::vector<std::byte> record(layout.record_size);  // only its key matters
    std::memcpy(record.data() + layout.key_offset, theirs + 1, layout.key_size);
    return record;
  }
  return std::nullopt;
}

// --verify: this rank's sorted records in order after the previous rank's last, and the sorted
// records of every rank together a permutation of the input. "" when both hold.
std::string verify_share(const Communicator& communicator, const RecordLayout& layout, SortOrder order,
                         const SortedRound& sorted, const std::optional<std::vector<std::byte>>& previous,
                         const KeyChecksum& slice_checksum) {
  OrderChecker checker(layout, order);
  if (previous) checker.feed(previous->data(), previous->size());
  checker.feed(sorted.records.data(), sorted.records.size());
  std::optional<std::uint64_t> disorder = checker.first_disorder();
  const KeyChecksum output = checksum_records(sorted.records.data(), sorted.records.size(), layout.record_size);
  std::uint64_t sums[6] = {slice_checksum.keys, slice_checksum.low, slice_checksum.high,
                           output.keys,         output.low,         output.high};
  communicator.all_sum(sums);
  const bool permutation = sums[0] == sums[3] && sums[1] == sums[4] && sums[2] == sums[5];
  if (disorder && previous) *disorder -= 1;  // (the previous rank's record came first)
  const std::string failure = verify_failure(layout, disorder, permutation);
  return failure.empty() ? failure : "rank " + std::to_string(communicator.rank()) + "'s " + failure;
}

// The lowest rank's --verify failure on every rank ("" when none failed).
std::string agree_on_verify(const Communicator& communicator, std::string failure) {
  const std::uint64_t ranks = std::uint64_t(communicator.size());
  const std::uint64_t failed = communicator.all_min(failure.empty() ? ranks : std::uint64_t(communicator.rank()));
  if (failed == ranks) return "";
  communicator.broadcast(failure, int(failed));
  return failure;
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

// The exchange: between the GPUs with NCCL when every rank sorts on GPUs (and the build has NCCL),
// unless RMGSORT_EXCHANGE=mpi asks for host memory; else MPI over host memory. Collective.
std::unique_ptr<dist::Exchange> make_exchange(const Communicator& communicator, const DistributedReport& report,
                                              std::size_t round_bytes) {
#if RMGSORT_WITH_NCCL
  const char* forced = std::getenv("RMGSORT_EXCHANGE");
  const bool mpi = forced != nullptr && std::string_view(forced) == "mpi";
  const bool on_gpus = report.plan && !report.plan->engine->devices().empty() && !report.gpus.empty();
  if (communicator.all_min(on_gpus && !mpi ? 1 : 0) == 1)
    return std::make_unique<dist::NcclExchange>(communicator, report.gpus.front(), round_bytes);
#else
  (void)report;
  (void)round_bytes;
#endif
  return std::make_unique<dist::MpiExchange>(communicator);
}

// Writes BYTES at OFFSET of OUTPUT (nothing for none).
void write_at(const dist::SharedOutput& output, const std::byte* data, std::uint64_t bytes, std::uint64_t offset) {
  if (bytes > 0) pwrite_all(output.fd(), output.path(), data, std::size_t(bytes), offset);
}

// The outputs: one file every rank writes into, or a part per rank.
struct Outputs {
  std::optional<dist::SharedOutput> output, index;
};

Outputs open_outputs(const Communicator& communicator, const SortOptions& options) {
  const auto open = [&](const std::string& path) {
    if (!options.output_parts) return dist::SharedOutput::open(communicator, path);
    std::optional<dist::SharedOutput> part;
    agreed(communicator, [&] { part.emplace(dist::SharedOutput::open_part(communicator, path)); });
    return std::move(*part);
  };
  Outputs outputs;
  if (!options.output.empty()) outputs.output.emplace(open(options.output));
  if (!options.index_output.empty()) outputs.index.emplace(open(options.index_output));
  return outputs;
}

// The statistics (rank 0's, with every rank's figures), then the commits, once every rank agreed.
int finish(const Communicator& communicator, const SortOptions& options, DistributedReport& report,
           std::optional<StatsOutput>& stats, Outputs& outputs) {
  const Json distributed = report.gather(communicator);
  agreed(communicator, [&] {
    if (stats) stats->prepare(report.stats_json(options, distributed));
  });
  agreed(communicator, [&] {
    if (stats) stats->commit();
    if (outputs.index) outputs.index->commit();
    if (outputs.output) outputs.output->commit();
  });
  return kExitOk;
}

// The job's input as every rank opened it, and where this rank's slice lies.
struct JobInput {
  std::optional<SortInput> input;
  std::uint64_t total = 0;  // records, every rank's
  std::uint64_t first = 0;  // this rank's first record
  std::uint64_t count = 0;  // this rank's records; also its share's, the splitters being exact
};

JobInput open_job_input(const Communicator& communicator, const SortOptions& options, std::optional<StatsOutput>& stats) {
  JobInput job;
  agreed(communicator, [&] {
    refuse_unshared(options);
    job.input.emplace(open_sort_input(options));
    require_whole_records(*job.input);
    if (!job.input->input.regular())
      throw Error(job.input->input.display_name() + ": --distributed reads a file every rank reaches; this is a stream");
    if (communicator.rank() == 0) stats.emplace(options.stats);
  });
  const std::size_t record_size = job.input->layout.record_size;
  job.total = job.input->input.size() / record_size;
  // Every rank must see the same records: the same file by the same name (a rank given other
  // arguments, or a file that changed under a rank, would make the splitters meaningless).
  const bool same = communicator.all_min(job.total) == communicator.all_max(job.total) &&
                    communicator.all_min(record_size) == communicator.all_max(record_size);
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

// A share in memory: sorted at once by the engine of report.plan, checked across ranks (--verify),
// its runs continued across ranks (--unique), written at the offsets of the records kept.
int sort_share_in_memory(const Communicator& communicator, const SortOptions& options, const JobInput& job,
                         HostBuffer& share, const KeyChecksum& slice_checksum, DistributedReport& report,
                         std::optional<StatsOutput>& stats) {
  const int me = communicator.rank(), ranks = communicator.size();
  const RecordLayout& layout = job.input->layout;
  const std::uint64_t received = job.count;
  SortEngine& engine = *report.plan->engine;
  SortedRound sorted;
  agreed(communicator, [&] {
    Stopwatch watch;
    if (received > 0) {
      engine.allocate(received);
      sorted = engine.sort(share.data(), received, options.order);
    }
    report.sort_seconds = watch.seconds();
  });
  const std::optional<std::vector<std::byte>> previous = previous_last_record(communicator, layout, sorted);
  if (options.verify) {
    report.verify_failure = agree_on_verify(
        communicator, verify_share(communicator, layout, options.order, sorted, previous, slice_checksum));
    if (!report.verify_failure.empty()) return kExitCheckFailed;
  }
  if (options.unique) {
    UniqueFilter unique(layout, options.order);
    if (previous) {
      std::vector<std::byte> record = *previous;
      (void)unique.keep_firsts(record.data(), nullptr, 1);
    }
    sorted = unique.keep_firsts(sorted);
    report.duplicates_dropped = unique.dropped();
  }
  const std::uint64_t kept = sorted.records.size() / layout.record_size;
  const std::vector<std::uint64_t> kept_by_rank = communicator.all_gather(std::span(&kept, 1));
  std::uint64_t before = 0, kept_total = 0;
  for (int r = 0; r < ranks; ++r) (r < me ? before : kept_total) += kept_by_rank[std::size_t(r)];
  kept_total += before;
  report.kept_total = kept_total;

  // A .npy input's header first (in the first part), for every record kept.
  Outputs outputs = open_outputs(communicator, options);
  agreed(communicator, [&] {
    Stopwatch watch;
    const SortInput& input = *job.input;
    const bool heads = me == 0 && input.npy;
    const std::uint64_t offset = options.output_parts ? 0 : before;
    if (outputs.output) {
      const std::vector<std::byte> header = input.npy ? npy_header_for(*input.npy, kept_total) : std::vector<std::byte>();
      const std::uint64_t header_bytes = options.output_parts && me != 0 ? 0 : header.size();
      if (heads) write_at(*outputs.output, header.data(), header.size(), 0);
      write_at(*outputs.output, sorted.records.data(), sorted.records.size(), header_bytes + offset * layout.record_size);
      outputs.output->finish_writing();
    }
    if (outputs.index) {
      const std::vector<std::byte> header = input.npy ? npy_index_header(kept_total) : std::vector<std::byte>();
      const std::uint64_t header_bytes = options.output_parts && me != 0 ? 0 : header.size();
      if (heads) write_at(*outputs.index, header.data(), header.size(), 0);
      const auto positions = std::as_bytes(sorted.positions);
      write_at(*outputs.index, positions.data(), positions.size(), header_bytes + offset * 8);
      outputs.index->finish_writing();
    }
    report.write_seconds = watch.seconds();
  });
  return finish(communicator, options, report, stats, outputs);
}

// A share received into a file: sorted from there by today's file path and written at the rank's
// offset, into an output sized first to its end (so that no writer's end of file cuts another's).
int sort_share_file(const Communicator& communicator, const SortOptions& options, const JobInput& job,
                    ShareFile& share, DistributedReport& report, std::optional<StatsOutput>& stats) {
  const int me = communicator.rank();
  const SortInput& input = *job.input;
  const RecordLayout& layout = input.layout;
  report.kept_total = job.total;
  Outputs outputs = open_outputs(communicator, options);
  dist::SharedOutput& output = *outputs.output;
  const std::vector<std::byte> header = input.npy ? npy_header_for(*input.npy, job.total) : std::vector<std::byte>();
  const std::uint64_t header_bytes = options.output_parts && me != 0 ? 0 : header.size();
  const std::uint64_t offset = header_bytes + (options.output_parts ? 0 : job.first) * layout.record_size;
  agreed(communicator, [&] {
    if (!output.commits()) return;
    const std::uint64_t end = header_bytes + (options.output_parts ? job.count : job.total) * layout.record_size;
    if (ftruncate(output.fd(), off_t(end)) != 0) throw_errno(output.path(), "cannot size the output");
    if (me == 0) write_at(output, header.data(), header.size(), 0);
  });
  agreed(communicator, [&] {
    Stopwatch watch;
    report.outcome =
        share.sort_into(options, layout, job.count, output.fd(), output.path(), offset, report.plan, report.gpus);
    report.sort_seconds = report.outcome->times.sort + report.outcome->times.partition;
    report.write_seconds = report.outcome->times.write;
    output.finish_writing();
  });
  return finish(communicator, options, report, stats, outputs);
}

int sort_distributed(const Communicator& communicator, const SortOptions& options, DistributedReport& report) {
  std::optional<StatsOutput> stats;
  std::size_t staging = 0;
  agreed(communicator, [&] { staging = staging_bytes(options); });
  const JobInput job = open_job_input(communicator, options, stats);
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
    std::string too_large;
    const ExchangeMemory memory{job.count * layout.record_size, 2 * staging};
    report.plan = plan_share(options, layout, job.count, memory, report.gpus, too_large);
    if (!report.plan) {
      if (options.unique || positions || options.verify)
        throw Error(too_large + "; --unique, --index-output and --verify need a rank's share in memory: use more ranks "
                    "or a larger --host-memory");
      share_file.emplace(ShareFile::create(options.temp_dir));
      return;
    }
    share = HostBuffer(std::size_t(job.count * (layout.record_size + (positions ? 8 : 0))));
    if (job.count > 0) {
      report.plan->engine->place(share.data(), share.capacity());
      report.plan->engine->pin(share.data(), share.capacity());
    }
    slice = read_slice(input, job.first, job.count, options.verify);
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

  const dist::Destinations destinations =
      dist::find_destinations(communicator, reader, job.total, layout, options.order, report.splitters);
  const dist::ShareSlice share_slice{&reader, job.first, layout, options.order, positions};
  const dist::ShareCounts counts = dist::count_shares(communicator, destinations, share_slice);
  RMGSORT_EXPECTS(counts.received() == job.count, "a share of exactly its part's records");
  std::byte* const share_data = share.data();
  const dist::ShareSink sink =
      share_file ? share_file->sink() : dist::ShareSink([share_data](std::uint64_t at, const std::byte* data,
                                                                    std::size_t bytes) {
        std::memcpy(share_data + at, data, bytes);
      });
  const std::unique_ptr<dist::Exchange> exchange = make_exchange(
      communicator, report, std::min(dist::Exchange::kMaxRoundBytes,
                                     std::max(staging, std::size_t(communicator.size()) * share_slice.wire_bytes())));
  report.exchange_name = exchange->name();
  report.exchange = dist::exchange_shares(communicator, *exchange, destinations, share_slice, counts, sink, staging);
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
  try {
    const int code = sort_distributed(communicator, options, report);
    if (code == kExitCheckFailed && communicator.rank() == 0)
      std::fprintf(stderr, "rmgsort: --verify failed: %s; nothing was committed\n", report.verify_failure.c_str());
    return code;
  } catch (const dist::MpiError& e) {
    // The ranks cannot agree any more: this one ends the job (its temporary files go first).
    std::fprintf(stderr, "rmgsort: %s: %s\n", communicator.name().c_str(), e.what());
    unlink_registered_paths();
    communicator.abort(kExitError);
  } catch (const dist::RankFailure& e) {
    // Every rank knows: each says so, then unwinds (its temporary files go) and reaches MPI_Finalize.
    // The message is printed here, before the ranks part: the launcher ends the job as soon as one
    // rank exits nonzero, which may cut off a rank that has not printed yet.
    const std::string message = e.this_rank() ? communicator.name() + ": " + e.what()
                                              : communicator.name() + ": stopped, nothing committed: " + e.what();
    std::fprintf(stderr, "rmgsort: %s\n", message.c_str());
    std::fflush(stderr);
    communicator.barrier();
    return kExitError;
  } catch (const std::exception& e) {
    // Not agreed on: the other ranks may wait in a collective for this one, so it ends the job.
    std::fprintf(stderr, "rmgsort: %s: %s\n", communicator.name().c_str(), error_message(e, "sort").c_str());
    unlink_registered_paths();
    communicator.abort(kExitError);
  }
}

}  // namespace rmgsort
