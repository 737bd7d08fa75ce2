#include "sort/read_keys.hpp"

#include <mutex>

#include "io/sequence_reading.hpp"
#include "sort/sorted_sink.hpp"

namespace rmgsort {
namespace {

// read_file_keys() into the output's pages (io/output_pages.hpp), placed for the engine first. The
// reads go straight into the mapping, so --verify's checksum is a pass of its own over it, beside
// their page-locking for the GPUs, which must wait for the reads: it populates the pages first, and a
// page populated before a read stores into it is zeroed first, twice the work.
KeysInMemory read_into_output_pages(const SortPlan& plan, const InputSequence& input, bool verify, unsigned threads,
                                    Progress& progress, std::unique_ptr<OutputPages> output_pages) {
  RMGSORT_EXPECTS(plan.path == SortPath::in_memory, "output pages hold a sort in memory");
  KeysInMemory read;
  read.bytes = input.size();
  progress.phase("reading " + input.display_name(), read.bytes);
  const std::span<std::byte> mapped = output_pages->mapped();
  plan.engine->place(mapped.data(), mapped.size());
  output_pages->fill(input, threads, [&progress](std::uint64_t bytes) { progress.advance(bytes); });
  read.output_pages = std::move(output_pages);
  const auto checksum = [&read, &plan, verify] {
    if (verify) read.checksum = checksum_records(read.data(), read.bytes, plan.engine->layout().record_size);
  };
  plan.engine->pin_while(read.data(), read.bytes, checksum, verify ? "checksum" : "nothing");
  return read;
}

}  // namespace

KeysInMemory read_file_keys(const SortPlan& plan, const InputSequence& input, SortOrder order, bool verify,
                            unsigned threads, Progress& progress, std::unique_ptr<OutputPages> output_pages) {
  if (output_pages && plan.path == SortPath::in_memory)
    return read_into_output_pages(plan, input, verify, threads, progress, std::move(output_pages));
  SortEngine& engine = *plan.engine;
  const RecordLayout& layout = engine.layout();
  const std::size_t width = layout.record_size;
  KeysInMemory read;
  read.bytes = input.size();
  read.keys = HostBuffer(read.bytes);
  engine.place(read.keys.data(), read.keys.capacity());
  // Keys the engine sorts where they lie are page-locked while they are read (the read makes no
  // CUDA call): 16 GB took 1.1 s to register on an H200 host, which was on the critical path before
  // the read. Keys that will be partitioned into rounds get their top digits counted as they land.
  if (plan.path == SortPath::rounds)
    read.top_digits = std::make_unique<TopDigitHistogram>(layout.key_type, order, read.bytes / width);
  progress.phase("reading " + input.display_name(), read.bytes);
  std::mutex checksum_mutex;
  ReadOptions read_options;
  read_options.threads = threads;
  ReadStats stats;
  const auto read_all = [&] {
    stats = read_sequence_file(input, read.keys.data(), read_options,
                               [&](std::uint64_t offset, const std::byte* block, std::size_t length) {
                                 progress.advance(length);
                                 if (read.top_digits) read.top_digits->add_bytes(offset, block, length);
                                 if (!verify || !layout.is_bare_key()) return;
                                 const KeyChecksum sum = checksum_keys(block, length, width);
                                 std::lock_guard lock(checksum_mutex);
                                 read.checksum += sum;
                               });
  };
  if (plan.path == SortPath::in_memory) {
    engine.pin_while(read.keys.data(), read.keys.capacity(), read_all, "read");
  } else if (output_pages) {
    // The rounds' partition stores into the output's pages: allocated beside the read, which needs
    // the cores (an H200 host: 16 GiB read in ~1 s, its pages reserved in 2.7 s).
    const std::span<std::byte> mapped = output_pages->mapped();
    engine.place(mapped.data(), mapped.size());  // before the reservation allocates the pages
    read.reserve_waited_seconds = output_pages->reserve_while(read_all, threads);
    read.output_pages = std::move(output_pages);
  } else {
    read_all();
  }
  read.direct = stats.direct;
  // Blocks need not end on a record: records' checksum is taken over the whole buffer, once read.
  if (verify && !layout.is_bare_key()) read.checksum = checksum_records(read.keys.data(), read.bytes, layout.record_size);
  if (read.top_digits) read.top_digits->finish();
  return read;
}

KeysInMemory read_stream_keys(InputSequence& input, std::uint64_t host_memory, Progress& progress) {
  KeysInMemory read;
  progress.phase("reading " + input.display_name(), 0);
  read.keys = read_sequence_prefix(input, stream_prefix_limit(host_memory), read.bytes, read.complete,
                                   [&progress](std::size_t bytes) { progress.advance(bytes); });
  return read;
}

void prepare_stream_keys(const SortPlan& plan, KeysInMemory& keys, bool verify) {
  // A spill plan checksums the input as its pass reads it (prefix included), in the user's layout.
  if (!keys.complete || plan.path == SortPath::spill) return;
  if (verify) keys.checksum = checksum_records(keys.keys.data(), keys.bytes, plan.engine->layout().record_size);
  if (plan.path == SortPath::in_memory) plan.engine->pin(keys.keys.data(), keys.keys.capacity());
}

}  // namespace rmgsort
