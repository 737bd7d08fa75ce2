#include "sort/spill_sort.hpp"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <cstring>
#include <future>
#include <optional>
#include <random>

#include "report/stopwatch.hpp"
#include "host/spill_classifier.hpp"
#include "host/splitters.hpp"
#include "core/error.hpp"
#include "io/host_buffer.hpp"
#include "io/input_file.hpp"
#include "io/record_stream.hpp"
#include "io/spill_file.hpp"

namespace rmgsort {
namespace {

// Rounds of one partitioning pass at most, heavy values' rounds included. Every round costs a step
// of the binary search that classifies each key and 4 bytes in each chunk's row of the spill table;
// an input needing more rounds is partitioned again.
constexpr std::size_t kMaxSpillRounds = 64;
// Rounds are planned for this fraction of round_keys: the sample's error must not make most of them
// overflow (an overflowing round is partitioned again, which costs a second pass over its keys).
constexpr double kRoundFill = 0.8;
// The sample: this many pieces at random offsets of a file or a round (4 KiB each where the budget
// allows: 2 MiB, 256 Ki u64 keys), or as many bytes of keys spread over a stream's prefix.
constexpr std::size_t kSamplePieces = 512;
constexpr std::size_t kMaxSampleBytes = std::size_t{2} << 20;

// Reads up to `bytes` at `offset` (fewer only at the end of the file).
std::size_t pread_full(const InputFile& input, std::byte* dst, std::size_t bytes, std::uint64_t offset) {
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::pread(input.fd, dst + got, bytes - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno(input.display_name(), "read failed");
    if (n == 0) break;
    got += std::size_t(n);
  }
  return got;
}

// Whole-key chunks of a source, in order.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual std::span<const std::byte> next() = 0;  // empty at the end
};

// The input, a regular file or a stream after its prefix, in chunks of whole keys.
class InputChunks final : public ChunkSource {
 public:
  InputChunks(const InputFile& input, std::span<const std::byte> prefix, std::size_t chunk_bytes, KeyType type)
      : stream_(input, RecordLayout::bare_key(type), chunk_bytes, prefix, CutRecordMessage::bytes_after_last) {}
  std::span<const std::byte> next() override { return stream_.next(); }

 private:
  RecordStream stream_;
};

// One round of a spill file.
class RoundChunks final : public ChunkSource {
 public:
  RoundChunks(const SpillFile& file, std::size_t round, std::size_t chunk_bytes) : chunks_(file, round, chunk_bytes) {}
  std::span<const std::byte> next() override { return chunks_.next(); }

 private:
  SpillRoundChunks chunks_;
};

// A sample of encoded keys, in memory mapped for it alone: unmapped whole once the splitters are
// chosen, none of it stays behind in the allocator's heap (a vector's would, past a few hundred KiB).
template <class Bits>
class Sample {
 public:
  explicit Sample(std::size_t most_bytes) : memory_(most_bytes), most_(most_bytes / sizeof(Bits)) {}
  void push(Bits key) {
    if (keys_ < most_) memory_.as<Bits>()[keys_++] = key;
  }
  [[nodiscard]] std::span<Bits> keys() { return {memory_.as<Bits>(), keys_}; }

 private:
  HostBuffer memory_;
  std::size_t most_;
  std::size_t keys_ = 0;
};

template <class T>
class SpillSorter {
 public:
  using Bits = RadixBits<T>;

  SpillSorter(const SpillJob& job, SpillReport& report)
      : job_(job), report_(report), scattered_{HostBuffer(job.chunk_bytes), HostBuffer(job.chunk_bytes)} {}

  // Partitions every key of `source` into rounds by `splitters`, in one spill file, then finishes each
  // round in order. `source_keys` (0: unknown) tells how much a round shrank. `counted_as`: the
  // rounds the source stood for in the rounds total until this pass (0 for the input). The source
  // is let go once read: a pass keeps only its spill file open while its rounds are finished.
  void partition(std::unique_ptr<ChunkSource> source, const Splitters<Bits>& splitters, std::uint64_t source_keys,
                 int level, std::uint64_t counted_as) {
    report_.levels = std::max(report_.levels, level);
    const std::size_t rounds = splitters.rounds();
    SpillFile file(job_.temp_dir, rounds, job_.chunk_bytes / 2);
    const SpillClassifier<T> classifier(splitters, job_.order);
    std::vector<RoundExtent<Bits>> extents(rounds);
    Stopwatch spilling;
    {
      // A chunk's keys are appended to the spill file by a background task while the next chunk is
      // read and classified into the other buffer. (Declared after `file`: destroyed, so waited for,
      // before it.)
      std::future<void> appending;
      for (std::span<const std::byte> chunk = source->next(); !chunk.empty(); chunk = source->next()) {
        if (level == 1 && job_.on_input) job_.on_input(chunk);
        HostBuffer& grouped = scattered_[parity_of_chunk_ ^= 1];
        std::vector<std::uint64_t> ends = classifier.classify(chunk, grouped.data(), extents);
        if (appending.valid()) appending.get();  // the previous chunk's append; rethrows its Error
        appending = std::async(std::launch::async, [&file, &grouped, ends = std::move(ends)] {
          file.append(std::span<const std::byte>(grouped.data(), ends.back()), ends);
        });
        report_.spilled_bytes += chunk.size();
      }
      if (appending.valid()) appending.get();
    }
    source.reset();
    file.finish_appending();
    report_.spill_seconds += spilling.lap();
    // What the pass found replaces what the source was expected to become. None of the source's
    // rounds is done yet (counted_as <= rounds_total_ - rounds_done_): the total stays >= the done.
    std::uint64_t expected = 0;
    for (const RoundExtent<Bits>& extent : extents) expected += rounds_expected(extent);
    rounds_total_ = rounds_total_ - counted_as + expected;
    report_rounds();
    for (std::size_t r = 0; r < rounds; ++r) finish_round(file, r, extents[r], source_keys, level);
  }

  // A sample of the keys of `input`, a regular file: pieces at random offsets, encoded.
  Sample<Bits> sample_file(const InputFile& input) {
    Sample<Bits> sample(sample_bytes());
    std::vector<std::byte> piece(piece_bytes());
    for (const std::uint64_t offset : sample_offsets(input.size, input.size)) {
      const std::size_t got = pread_full(input, piece.data(), piece.size(), offset);
      append_encoded(sample, piece.data(), got);
    }
    return sample;
  }

  // A sample of keys spread over a stream's prefix, encoded.
  Sample<Bits> sample_prefix(std::span<const std::byte> prefix) {
    const std::size_t keys = prefix.size() / sizeof(T);
    const std::size_t wanted = sample_bytes() / sizeof(T);
    const std::size_t stride = std::max<std::size_t>(1, (keys + wanted - 1) / wanted);
    Sample<Bits> sample(sample_bytes());
    for (std::size_t i = 0; i < keys; i += stride) sample.push(encode(prefix.data() + i * sizeof(T)));
    return sample;
  }

  // Rounds for `keys` keys (0: unknown, then the most a pass makes).
  std::size_t rounds_for(std::uint64_t keys) const {
    if (keys == 0) return kMaxSpillRounds;
    const double per_round = kRoundFill * double(job_.round_keys);
    return std::clamp<std::size_t>(std::size_t(double(keys) / per_round) + 1, 2, kMaxSpillRounds);
  }

 private:
  Bits encode(const std::byte* at) const {
    T key;
    std::memcpy(&key, at, sizeof(T));
    return job_.order == SortOrder::ascending ? KeyOrder<T, SortOrder::ascending>::encode(key)
                                              : KeyOrder<T, SortOrder::descending>::encode(key);
  }
  void append_encoded(Sample<Bits>& sample, const std::byte* keys, std::size_t bytes) const {
    for (std::size_t at = 0; at + sizeof(T) <= bytes; at += sizeof(T)) sample.push(encode(keys + at));
  }

  // A sample takes at most two chunks (the memory of the pass's reader, which it precedes), 2 MiB
  // where that is more; it is read in kSamplePieces pieces of whole keys.
  std::size_t sample_bytes() const { return std::min(kMaxSampleBytes, 2 * job_.chunk_bytes); }
  std::size_t piece_bytes() const { return std::max(sizeof(T), sample_bytes() / kSamplePieces / sizeof(T) * sizeof(T)); }

  // Where the sample's pieces start among `bytes` bytes of keys, in increasing order: all of them
  // when they fit the sample, else random key offsets (seeded by `seed`: the same input gives the
  // same rounds).
  std::vector<std::uint64_t> sample_offsets(std::uint64_t bytes, std::uint64_t seed) const {
    const std::size_t piece = piece_bytes();
    std::vector<std::uint64_t> offsets;
    if (bytes <= sample_bytes()) {
      for (std::uint64_t at = 0; at < bytes; at += piece) offsets.push_back(at);
      return offsets;
    }
    std::mt19937_64 random(seed);
    const std::uint64_t starts = (bytes - piece) / sizeof(T) + 1;
    for (std::size_t i = 0; i < kSamplePieces; ++i) offsets.push_back(random() % starts * sizeof(T));
    std::sort(offsets.begin(), offsets.end());
    return offsets;
  }

  // A sample of round `round` of `file`, like sample_file's.
  Sample<Bits> sample_round(const SpillFile& file, std::size_t round) {
    SpillRoundReader reader(file, round);
    const std::uint64_t bytes = reader.bytes_left();
    Sample<Bits> sample(sample_bytes());
    std::vector<std::byte> piece(piece_bytes());
    std::uint64_t at = 0;  // bytes of the round passed
    for (const std::uint64_t offset : sample_offsets(bytes, bytes)) {
      if (offset < at) continue;  // overlaps the piece before
      reader.skip(offset - at);
      const std::size_t got = reader.read(piece.data(), piece.size());
      append_encoded(sample, piece.data(), got);
      at = offset + got;
    }
    return sample;
  }

  void finish_round(const SpillFile& file, std::size_t round, const RoundExtent<Bits>& extent,
                    std::uint64_t source_keys, int level) {
    if (extent.keys == 0) return;
    if (extent.keys <= job_.round_keys) {
      std::byte* keys = next_round_buffer();
      SpillRoundReader(file, round).read(keys, extent.keys * sizeof(T));
      Stopwatch sorting;
      job_.sort_round(keys, extent.keys);
      hand_on(keys, extent.keys, sorting.lap());
      ++rounds_done_;
      report_rounds();
    } else if (extent.lowest == extent.highest) {
      // One repeated value: already in order; read straight into the round buffers and handed on in
      // pieces of at most a round.
      SpillRoundReader reader(file, round);
      while (reader.bytes_left() > 0) {
        std::byte* keys = next_round_buffer();
        const std::size_t got = reader.read(keys, job_.round_keys * sizeof(T));
        hand_on(keys, got / sizeof(T), 0);
      }
      ++rounds_done_;  // one round of the count, however many pieces it was handed on in
      report_rounds();
    } else {
      // Too many keys of several values: partition this round again. A round that kept more than
      // half of its source's keys (a sample blind to their spread) is split evenly by value
      // instead, which divides its value range by the rounds. So on any path, a pass halves the
      // keys or the next one divides the range: the path, and with it the spill files open at once
      // (one per pass on it), stays short (a few passes on any realistic input).
      const bool halved = source_keys == 0 || extent.keys <= source_keys / 2;
      const std::size_t rounds = rounds_for(extent.keys);
      const Splitters<Bits> splitters = [&] {
        if (!halved) return Splitters<Bits>::evenly(rounds, extent.lowest, extent.highest);
        Sample<Bits> sample = sample_round(file, round);  // gone before the pass's buffers exist
        return Splitters<Bits>::from_sample(sample.keys(), rounds, extent.lowest, extent.highest);
      }();
      partition(std::make_unique<RoundChunks>(file, round, job_.chunk_bytes), splitters, extent.keys, level + 1,
                rounds_expected(extent));
    }
  }

  // The rounds a round of one pass is expected to be finished in: none when empty, one when it fits
  // or holds one value, else the rounds its own pass is planned for (corrected by that pass).
  std::uint64_t rounds_expected(const RoundExtent<Bits>& extent) const {
    if (extent.keys == 0) return 0;
    if (extent.keys <= job_.round_keys || extent.lowest == extent.highest) return 1;
    return rounds_for(extent.keys);
  }

  void report_rounds() const {
    if (job_.on_rounds) job_.on_rounds(rounds_done_, rounds_total_);
  }

  std::byte* next_round_buffer() {
    if (!buffers_) buffers_ = job_.round_buffers();
    parity_ ^= 1;
    return (*buffers_)[std::size_t(parity_)];
  }

  void hand_on(std::byte* keys, std::uint64_t count, double sort_seconds) {
    job_.sorted(std::span<const std::byte>(keys, count * sizeof(T)));
    report_.keys += count;
    report_.round_keys.push_back(count);
    report_.round_sort_seconds.push_back(sort_seconds);
  }

  const SpillJob& job_;
  SpillReport& report_;
  HostBuffer scattered_[2];  // chunks' keys grouped by round: one being classified, one being appended
  int parity_of_chunk_ = 0;
  std::optional<std::array<std::byte*, 2>> buffers_;
  int parity_ = 1;
  // For job_.on_rounds: non-empty rounds finished, and known (rounds_done_ <= rounds_total_).
  std::uint64_t rounds_done_ = 0;
  std::uint64_t rounds_total_ = 0;
};

}  // namespace

SpillReport spill_sort(const SpillJob& job, const SpillSource& source) {
  RMGSORT_EXPECTS(job.round_keys > 0 && job.chunk_bytes % 4096 == 0 && job.chunk_bytes % key_width(job.type) == 0,
                  "spill_sort: a round of at least one key, chunks of whole pages and keys");
  SpillReport report;
  visit_key_type(job.type, [&]<class T>(T) {
    SpillSorter<T> sorter(job, report);
    const InputFile& input = *source.input;
    using Bits = RadixBits<T>;
    if (input.regular) {
      const std::uint64_t keys = input.size / sizeof(T);
      const auto splitters = Splitters<Bits>::from_sample(sorter.sample_file(input).keys(), sorter.rounds_for(keys), 0, 0);
      sorter.partition(std::make_unique<InputChunks>(input, std::span<const std::byte>{}, job.chunk_bytes, job.type),
                       splitters, keys, 1, 0);
    } else {
      const auto splitters =
          Splitters<Bits>::from_sample(sorter.sample_prefix(source.prefix).keys(), sorter.rounds_for(0), 0, 0);
      sorter.partition(std::make_unique<InputChunks>(input, source.prefix, job.chunk_bytes, job.type), splitters, 0, 1,
                       0);
    }
  });
  return report;
}

}  // namespace rmgsort
