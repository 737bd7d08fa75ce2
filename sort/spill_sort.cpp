#include "sort/spill_sort.hpp"

#include <algorithm>
#include <cstring>
#include <future>
#include <memory>
#include <numeric>
#include <optional>
#include <random>

#include <tbb/task_arena.h>

#include "report/stopwatch.hpp"
#include "host/spill_classifier.hpp"
#include "host/splitters.hpp"
#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "io/host_buffer.hpp"
#include "io/input_sequence.hpp"
#include "io/sequence_reading.hpp"
#include "io/spill_file.hpp"

namespace rmgsort {
namespace {

// Rounds of one partitioning pass at most, heavy values' rounds included. Every round costs a step
// of the binary search that classifies each record and 4 bytes in each chunk's row of the spill
// table; an input needing more rounds is partitioned again.
constexpr std::size_t kMaxSpillRounds = 64;
// Rounds are planned for this fraction of round_keys: the sample's error must not make most of them
// overflow (an overflowing round is partitioned again, which costs a second pass over its records).
constexpr double kRoundFill = 0.8;
// The sample: at most 2 MiB of rank words (256 Ki records), read in this many pieces at random
// record offsets of a file or a round (512 records each where the budget allows, as 4 KiB of u64
// keys always were; at most 64 KiB, or one larger record), or as many records spread over a
// stream's prefix.
constexpr std::size_t kSamplePieces = 512;
constexpr std::size_t kMaxSampleBytes = std::size_t{2} << 20;
constexpr std::size_t kMaxPieceBytes = std::size_t{64} << 10;

// The most bytes of whole records of RECORD_BYTES within BYTES (at least one record), a multiple of
// 4096 too where that leaves some: a regular file is then read straight into chunks, no record cut
// by a read and none copied (O_DIRECT where the reader takes it).
std::size_t whole_records_chunk(std::size_t bytes, std::size_t record_bytes) {
  const std::size_t aligned = std::lcm(record_bytes, std::size_t{4096});
  if (bytes >= aligned) return bytes / aligned * aligned;
  return std::max(record_bytes, bytes / record_bytes * record_bytes);
}

// Chunks of whole records of a source, in order.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual std::span<const std::byte> next() = 0;  // empty at the end
};

// The input, regular or a stream after its prefix, in chunks of whole records.
class InputChunks final : public ChunkSource {
 public:
  InputChunks(InputSequence& input, std::span<const std::byte> prefix, std::size_t chunk_bytes,
              const RecordLayout& layout)
      : records_(input, layout, chunk_bytes, prefix) {}
  std::span<const std::byte> next() override { return records_.next(); }

 private:
  SequenceRecords records_;
};

// One round of a spill file.
class RoundChunks final : public ChunkSource {
 public:
  RoundChunks(const SpillFile& file, std::size_t round, std::size_t chunk_bytes) : chunks_(file, round, chunk_bytes) {}
  std::span<const std::byte> next() override { return chunks_.next(); }

 private:
  SpillRoundChunks chunks_;
};

// A sample of rank words, in memory mapped for it alone: unmapped whole once the splitters are
// chosen, none of it stays behind in the allocator's heap (a vector's would, past a few hundred KiB).
class Sample {
 public:
  explicit Sample(std::size_t most_words) : memory_(most_words * 8), most_(most_words) {}
  void push(std::uint64_t word) {
    if (words_ < most_) memory_.as<std::uint64_t>()[words_++] = word;
  }
  [[nodiscard]] std::span<std::uint64_t> words() { return {memory_.as<std::uint64_t>(), words_}; }

 private:
  HostBuffer memory_;
  std::size_t most_;
  std::size_t words_ = 0;
};

// Pushes rank word WORD of each whole record in [records, records + bytes) into SAMPLE.
template <class Rank>
void sample_records(Sample& sample, const Rank& rank, int word, const std::byte* records, std::size_t bytes,
                    std::size_t record_bytes) {
  for (std::size_t at = 0; at + record_bytes <= bytes; at += record_bytes) sample.push(rank.word(records + at, word));
}

class SpillSorter {
 public:
  SpillSorter(const SpillJob& job, SpillReport& report)
      : job_(job),
        report_(report),
        spilled_(job.spilled_layout()),
        last_word_(visit_rank(job.layout, job.order, [](const auto& rank) { return rank.words() - 1; })),
        scattered_{HostBuffer(job.chunk_bytes), HostBuffer(job.chunk_bytes)} {}

  // Partitions the input by its first rank word and finishes every round.
  void sort(const SpillSource& source) {
    InputSequence& input = *source.input;
    const std::size_t bytes = job_.layout.record_size;
    // Input chunks whose records, positions appended, fit a chunk.
    const std::size_t chunk_bytes = whole_records_chunk(job_.chunk_bytes / spilled_.record_size * bytes, bytes);
    if (input.regular()) {
      const std::uint64_t records = input.size() / bytes;
      RMGSORT_EXPECTS(job_.temp_dir || records * spilled_.record_size == job_.memory_bytes,
                      "spill memory reserved for exactly the input's records as spilled");
      const auto splitters = Splitters<std::uint64_t>::from_sample(sample_file(input).words(), rounds_for(records), 0, 0);
      partition(std::make_unique<InputChunks>(input, std::span<const std::byte>{}, chunk_bytes, job_.layout),
                splitters, 0, records, 1, 0);
    } else {
      RMGSORT_EXPECTS(job_.temp_dir, "spill memory for a regular input (its size known)");
      const auto splitters = Splitters<std::uint64_t>::from_sample(sample_prefix(source.prefix).words(), rounds_for(0), 0, 0);
      partition(std::make_unique<InputChunks>(input, source.prefix, chunk_bytes, job_.layout), splitters, 0, 0, 1, 0);
    }
  }

 private:
  // Partitions every record of `source` into rounds by `splitters` over rank word `word`, in one
  // spill file, then finishes each round in order. Every record of the source shares the words
  // before `word`. `source_records` (0: unknown) tells how much a round shrank. `counted_as`: the
  // rounds the source stood for in the rounds total until this pass (0 for the input). The source
  // is let go once read: a pass keeps only its spill file open while its rounds are finished. The
  // input's pass (level 1) appends the records' positions when the job asks. In memory, a pass over
  // round PARENT_ROUND of PARENT writes its spill file over that round's bytes (new_file).
  void partition(std::unique_ptr<ChunkSource> source, const Splitters<std::uint64_t>& splitters, int word,
                 std::uint64_t source_records, int level, std::uint64_t counted_as, const SpillFile* parent = nullptr,
                 std::size_t parent_round = 0) {
    report_.levels = std::max(report_.levels, level);
    const bool input = level == 1;
    const RecordLayout& layout = input ? job_.layout : spilled_;
    const std::size_t rounds = splitters.rounds();
    Stopwatch spilling;
    const std::unique_ptr<SpillFile> file = new_file(rounds, parent, parent_round);
    const SpillClassifier classifier(layout, job_.order, word, splitters, input && job_.append_position);
    std::vector<RoundExtent> extents(rounds);
    {
      // A chunk's records are appended to the spill file by a background task while the next chunk
      // is read and classified into the other buffer. (Declared after `file`: destroyed, so waited
      // for, before it.)
      std::future<void> appending;
      std::uint64_t position = 0;  // of the chunk's first record in the source
      for (std::span<const std::byte> chunk = source->next(); !chunk.empty(); chunk = source->next()) {
        if (input && job_.on_input) job_.on_input(chunk);
        HostBuffer& grouped = scattered_[parity_of_chunk_ ^= 1];
        std::vector<std::uint64_t> ends = classifier.classify(chunk, grouped.data(), extents, position);
        position += chunk.size() / layout.record_size;
        if (appending.valid()) appending.get();  // the previous chunk's append; rethrows its Error
        report_.spilled_bytes += ends.back();
        appending = std::async(std::launch::async, [&file, &grouped, ends = std::move(ends)] {
          file->append(std::span<const std::byte>(grouped.data(), ends.back()), ends);
        });
      }
      if (appending.valid()) appending.get();
    }
    source.reset();
    file->finish_appending();
    report_.spill_seconds += spilling.lap();
    // What the pass found replaces what the source was expected to become. None of the source's
    // rounds is done yet (counted_as <= rounds_total_ - rounds_done_): the total stays >= the done.
    std::uint64_t expected = 0;
    for (const RoundExtent& extent : extents) expected += rounds_expected(extent, word);
    rounds_total_ = rounds_total_ - counted_as + expected;
    report_rounds();
    for (std::size_t r = 0; r < rounds; ++r) finish_round(*file, r, extents[r], word, source_records, level);
  }

  // The spill file of a pass of ROUNDS rounds: in --temp-dir; else in memory, the input's pass's
  // reserved whole (SpillJob::memory_bytes), a round's pass's over the bytes of that round (round
  // PARENT_ROUND of PARENT), which it reads once and never again, so that the spill in memory at
  // every depth takes what the plan reserved, no more.
  std::unique_ptr<SpillFile> new_file(std::size_t rounds, const SpillFile* parent, std::size_t parent_round) const {
    if (job_.temp_dir) return std::make_unique<SpillFile>(*job_.temp_dir, rounds, job_.chunk_bytes / 2);
    if (parent == nullptr) {
      const auto threads = unsigned(tbb::this_task_arena::max_concurrency());
      return std::make_unique<SpillFile>(SpillMemory::reserve(job_.memory_bytes, threads), rounds);
    }
    return std::make_unique<SpillFile>(SpillMemory::reuse_round(*parent, parent_round), rounds);
  }

  void finish_round(const SpillFile& file, std::size_t round, const RoundExtent& extent, int word,
                    std::uint64_t source_records, int level) {
    const std::size_t bytes = spilled_.record_size;
    if (extent.records == 0) return;
    if (extent.records <= job_.round_keys) {
      std::byte* records = next_round_buffer();
      SpillRoundReader(file, round).read(records, extent.records * bytes);
      Stopwatch sorting;
      const std::span<const std::byte> sorted = job_.sort_round(records, extent.records);
      RMGSORT_EXPECTS(sorted.size() == extent.records * bytes, "sort_round returns the round's records");
      hand_on(sorted, sorting.lap());
      ++rounds_done_;
      report_rounds();
    } else if (extent.lowest == extent.highest && word == last_word_) {
      // One repeated key: already in order (input order); read straight into the round buffers and
      // handed on in pieces of at most a round.
      SpillRoundReader reader(file, round);
      while (reader.bytes_left() > 0) {
        std::byte* records = next_round_buffer();
        const std::size_t got = reader.read(records, job_.round_keys * bytes);
        hand_on({records, got}, 0);
      }
      ++rounds_done_;  // one round of the count, however many pieces it was handed on in
      report_rounds();
    } else {
      // Chosen before the pass's reader exists: a sample and a reader never take memory at once.
      const Splitters<std::uint64_t> splitters = splitters_again(file, round, extent, word, source_records);
      partition(std::make_unique<RoundChunks>(file, round, whole_records_chunk(job_.chunk_bytes, bytes)), splitters,
                next_word(extent, word), extent.records, level + 1, rounds_expected(extent, word), &file, round);
    }
  }

  // The rank word a round too large is partitioned again by: its records all share `word` (and the
  // words before it), so the next one orders them; else `word` itself.
  static int next_word(const RoundExtent& extent, int word) { return extent.lowest == extent.highest ? word + 1 : word; }

  // The splitters for a round too large, of several keys. A round that kept more than half of its
  // source's records (a sample blind to their spread) is split evenly by the word's value instead,
  // which divides its range by the rounds. So on any path, a pass halves the records, or divides
  // the word's range, or moves to the next word: the path, and with it the spill files open at once
  // (one per pass on it), stays short (a few passes per word on any realistic input).
  Splitters<std::uint64_t> splitters_again(const SpillFile& file, std::size_t round, const RoundExtent& extent,
                                           int word, std::uint64_t source_records) {
    const std::size_t rounds = rounds_for(extent.records);
    if (next_word(extent, word) == word) {
      const bool halved = source_records == 0 || extent.records <= source_records / 2;
      if (!halved) return Splitters<std::uint64_t>::evenly(rounds, extent.lowest, extent.highest);
      Sample sample = sample_round(file, round, word);
      return Splitters<std::uint64_t>::from_sample(sample.words(), rounds, extent.lowest, extent.highest);
    }
    Sample sample = sample_round(file, round, word + 1);  // the next word's range is not known yet
    return Splitters<std::uint64_t>::from_sample(sample.words(), rounds, 0, 0);
  }

  // The rounds a round of one pass is expected to be finished in: none when empty, one when it fits
  // or holds one key, else the rounds its own pass is planned for (corrected by that pass).
  std::uint64_t rounds_expected(const RoundExtent& extent, int word) const {
    if (extent.records == 0) return 0;
    if (extent.records <= job_.round_keys || (extent.lowest == extent.highest && word == last_word_)) return 1;
    return rounds_for(extent.records);
  }

  // Rounds for `records` records (0: unknown, then the most a pass makes).
  std::size_t rounds_for(std::uint64_t records) const {
    if (records == 0) return kMaxSpillRounds;
    const double per_round = kRoundFill * double(job_.round_keys);
    return std::clamp<std::size_t>(std::size_t(double(records) / per_round) + 1, 2, kMaxSpillRounds);
  }

  // A sample takes at most two chunks (the memory of the pass's reader, which it precedes), 2 MiB
  // where that is more.
  std::size_t sample_words() const { return std::min(kMaxSampleBytes, 2 * job_.chunk_bytes) / 8; }
  // Records a sample's piece holds: the sample's words over kSamplePieces, within kMaxPieceBytes.
  std::size_t piece_records(std::size_t record_bytes) const {
    return std::max<std::size_t>(1, std::min(sample_words() / kSamplePieces, kMaxPieceBytes / record_bytes));
  }

  // Where the sample's pieces start among `bytes` bytes of records, in increasing order: all of them
  // when they fit the sample, else random record offsets (seeded by `seed`: the same input gives
  // the same rounds).
  std::vector<std::uint64_t> sample_offsets(std::uint64_t bytes, std::size_t record_bytes, std::uint64_t seed) const {
    const std::size_t piece = piece_records(record_bytes) * record_bytes;
    std::vector<std::uint64_t> offsets;
    if (bytes <= kSamplePieces * piece) {
      for (std::uint64_t at = 0; at < bytes; at += piece) offsets.push_back(at);
      return offsets;
    }
    std::mt19937_64 random(seed);
    const std::uint64_t starts = (bytes - piece) / record_bytes + 1;
    for (std::size_t i = 0; i < kSamplePieces; ++i) offsets.push_back(random() % starts * record_bytes);
    std::sort(offsets.begin(), offsets.end());
    return offsets;
  }

  // A sample of the first rank word of the records of `input`, regular: pieces at random offsets.
  Sample sample_file(const InputSequence& input) const {
    const std::size_t bytes = job_.layout.record_size;
    Sample sample(sample_words());
    std::vector<std::byte> piece(piece_records(bytes) * bytes);
    visit_rank(job_.layout, job_.order, [&](const auto& rank) {
      for (const std::uint64_t offset : sample_offsets(input.size(), bytes, input.size())) {
        const std::size_t got = input.read_at(piece.data(), piece.size(), offset);
        sample_records(sample, rank, 0, piece.data(), got, bytes);
      }
    });
    return sample;
  }

  // A sample of the first rank word of records spread over a stream's prefix.
  Sample sample_prefix(std::span<const std::byte> prefix) const {
    const std::size_t bytes = job_.layout.record_size;
    const std::size_t records = prefix.size() / bytes;
    const std::size_t wanted = sample_words();
    const std::size_t stride = std::max<std::size_t>(1, (records + wanted - 1) / wanted);
    Sample sample(wanted);
    visit_rank(job_.layout, job_.order, [&](const auto& rank) {
      for (std::size_t i = 0; i < records; i += stride) sample.push(rank.word(prefix.data() + i * bytes, 0));
    });
    return sample;
  }

  // A sample of rank word `word` of round `round` of `file`, like sample_file's.
  Sample sample_round(const SpillFile& file, std::size_t round, int word) const {
    const std::size_t record_bytes = spilled_.record_size;
    SpillRoundReader reader(file, round);
    const std::uint64_t bytes = reader.bytes_left();
    Sample sample(sample_words());
    std::vector<std::byte> piece(piece_records(record_bytes) * record_bytes);
    visit_rank(spilled_, job_.order, [&](const auto& rank) {
      std::uint64_t at = 0;  // bytes of the round passed
      for (const std::uint64_t offset : sample_offsets(bytes, record_bytes, bytes)) {
        if (offset < at) continue;  // overlaps the piece before
        reader.skip(offset - at);
        const std::size_t got = reader.read(piece.data(), piece.size());
        sample_records(sample, rank, word, piece.data(), got, record_bytes);
        at = offset + got;
      }
    });
    return sample;
  }

  void report_rounds() const {
    if (job_.on_rounds) job_.on_rounds(rounds_done_, rounds_total_);
  }

  std::byte* next_round_buffer() {
    if (!buffers_) buffers_ = job_.round_buffers();
    parity_ ^= 1;
    return (*buffers_)[std::size_t(parity_)];
  }

  void hand_on(std::span<const std::byte> records, double sort_seconds) {
    job_.sorted(records);
    const std::uint64_t count = records.size() / spilled_.record_size;
    report_.keys += count;
    report_.round_keys.push_back(count);
    report_.round_sort_seconds.push_back(sort_seconds);
  }

  const SpillJob& job_;
  SpillReport& report_;
  RecordLayout spilled_;  // the records of every spill file and round: the input's, positions appended when asked
  int last_word_;         // the key's last rank word
  HostBuffer scattered_[2];  // chunks' records grouped by round: one being classified, one being appended
  int parity_of_chunk_ = 0;
  std::optional<std::array<std::byte*, 2>> buffers_;
  int parity_ = 1;
  // For job_.on_rounds: non-empty rounds finished, and known (rounds_done_ <= rounds_total_).
  std::uint64_t rounds_done_ = 0;
  std::uint64_t rounds_total_ = 0;
};

}  // namespace

SpillReport spill_sort(const SpillJob& job, const SpillSource& source) {
  RMGSORT_EXPECTS(job.layout.valid() && job.round_keys > 0 && job.chunk_bytes >= job.spilled_layout().record_size,
                  "spill_sort: a round of at least one record, chunks of at least one record as spilled");
  SpillReport report;
  SpillSorter(job, report).sort(source);
  return report;
}

}  // namespace rmgsort
