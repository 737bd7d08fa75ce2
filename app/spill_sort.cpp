#include "app/spill_sort.hpp"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <limits>
#include <optional>
#include <random>

#include "app/stopwatch.hpp"
#include "host/splitters.hpp"
#include "io/cleanup.hpp"
#include "io/error.hpp"
#include "io/host_buffer.hpp"
#include "io/input_file.hpp"
#include "io/uring_reader.hpp"
#include "io/uring_writer.hpp"

namespace rmgsort {
namespace {

// Rounds of one partitioning pass: each has a spill file, and every open spill file holds a slot of
// the signal-safe cleanup registry (256 slots, shared with the output's temporary files and the
// open passes above this one). An input needing more rounds is partitioned again.
constexpr std::size_t kMaxSpillRounds = 64;
// Rounds are planned for this fraction of round_keys: the sample's error must not make most of them
// overflow (an overflowing round is partitioned again, which costs a second pass over its keys).
constexpr double kRoundFill = 0.8;
// The sample: this many random 4 KiB pages of a file (512 pages: 2 MiB, 256 Ki u64 keys), or as
// many keys spread over a stream's prefix.
constexpr std::size_t kSamplePages = 512;
constexpr std::size_t kPageBytes = 4096;
// Classification works on blocks of keys, each counted and then scattered by one task.
constexpr std::size_t kBlockKeys = std::size_t{1} << 16;

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

// One round's spill file in --temp-dir: created exclusively, registered for removal on signals,
// appended to, read back, removed.
class SpillFile {
 public:
  // The path is registered for removal before the file exists (and created exclusively), so that
  // a signal between the two leaves nothing behind: mkstemp() then register had that window.
  explicit SpillFile(const std::string& dir) {
    static std::atomic<std::uint64_t> files{0};
    for (int attempt = 0; fd_ < 0; ++attempt) {
      path_ = dir + "/rmgsort-spill-" + std::to_string(::getpid()) + "-" + std::to_string(files++);
      registration_ = CleanupRegistration(path_);
      fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd_ >= 0) break;
      const int error = errno;
      registration_ = CleanupRegistration();
      path_.clear();
      if (error != EEXIST || attempt > 100) {
        errno = error;
        throw_errno("--temp-dir " + dir, "cannot create a spill file");
      }
    }
  }
  ~SpillFile() { remove(); }
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  void append(const std::byte* data, std::uint64_t bytes, const std::string& temp_dir) {
    if (bytes == 0) return;
    WriteOptions options;
    options.preallocate = false;  // many small appends; ENOSPC surfaces on the write itself
    try {
      write_file(fd_, path_, data, bytes, options);
    } catch (const Error& e) {
      throw Error("--temp-dir " + temp_dir + ": spilling failed: " + e.what());
    }
    bytes_ += bytes;
  }
  void remove() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!path_.empty()) ::unlink(path_.c_str());
    path_.clear();
    registration_ = CleanupRegistration();
  }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_; }

 private:
  std::string path_;
  int fd_ = -1;
  CleanupRegistration registration_;
  std::uint64_t bytes_ = 0;
};

// Whole-key chunks of a source, in order.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual std::span<const std::byte> next() = 0;  // empty at the end
};

// A regular file (the input or a spill file), chunk by chunk through io_uring.
class FileChunks final : public ChunkSource {
 public:
  FileChunks(const InputFile& input, std::size_t chunk_bytes) : reader_(input, chunk_bytes) {}
  std::span<const std::byte> next() override { return reader_.next(); }

 private:
  ChunkReader reader_;
};

// A stream's prefix, already in memory, then the rest of the stream, re-cut into whole keys.
class StreamChunks final : public ChunkSource {
 public:
  StreamChunks(const InputFile& input, std::span<const std::byte> prefix, std::size_t chunk_bytes, std::size_t width)
      : input_(input), prefix_(prefix), reader_(input, chunk_bytes), staging_(chunk_bytes), width_(width) {}
  std::span<const std::byte> next() override {
    std::size_t filled = carry_;
    if (carry_ > 0) std::memmove(staging_.data(), staging_.data() + staging_used_, carry_);
    carry_ = 0;
    while (filled < staging_.size()) {
      if (pending_.empty()) pending_ = prefix_.empty() ? reader_.next() : std::exchange(prefix_, {});
      if (pending_.empty()) break;
      const std::size_t take = std::min(pending_.size(), staging_.size() - filled);
      std::memcpy(staging_.data() + filled, pending_.data(), take);
      pending_ = pending_.subspan(take);
      filled += take;
    }
    const std::size_t whole = filled / width_ * width_;
    carry_ = filled - whole;
    staging_used_ = whole;
    if (whole == 0 && carry_ > 0)
      throw Error(input_.display_name() + ": the input ends inside a key (" + std::to_string(carry_) +
                  " bytes after the last whole " + std::to_string(width_) + "-byte key)");
    return {staging_.data(), whole};
  }

 private:
  const InputFile& input_;
  std::span<const std::byte> prefix_;
  ChunkReader reader_;
  HostBuffer staging_;
  std::size_t width_;
  std::span<const std::byte> pending_;
  std::size_t carry_ = 0;
  std::size_t staging_used_ = 0;
};

// What one pass learned of each round's keys.
template <class Bits>
struct RoundExtent {
  std::uint64_t keys = 0;
  Bits lowest = std::numeric_limits<Bits>::max();
  Bits highest = 0;
  void add(const RoundExtent& other) {
    keys += other.keys;
    lowest = std::min(lowest, other.lowest);
    highest = std::max(highest, other.highest);
  }
};

template <class T>
class SpillSorter {
 public:
  using Bits = RadixBits<T>;

  SpillSorter(const SpillJob& job, SpillReport& report)
      : job_(job), report_(report), scattered_{HostBuffer(job.chunk_bytes), HostBuffer(job.chunk_bytes)} {}

  // Partitions every key of `source` into rounds by `splitters` and finishes each round in order.
  // `source_keys` (0: unknown) tells when a pass made no progress. `counted_as`: the rounds the
  // source stood for in the rounds total until this pass (0 for the input).
  void partition(ChunkSource& source, const Splitters<Bits>& splitters, std::uint64_t source_keys, int level,
                 std::uint64_t counted_as) {
    report_.levels = std::max(report_.levels, level);
    const std::size_t rounds = splitters.rounds();
    std::vector<std::unique_ptr<SpillFile>> files;
    for (std::size_t r = 0; r < rounds; ++r) files.push_back(std::make_unique<SpillFile>(job_.temp_dir));
    std::vector<RoundExtent<Bits>> extents(rounds);
    Stopwatch spilling;
    // A chunk's keys are appended to the spill files by a background task while the next chunk is
    // read and classified into the other buffer. (Declared after `files`: destroyed, so waited for,
    // before them.)
    std::future<void> appending;
    for (std::span<const std::byte> chunk = source.next(); !chunk.empty(); chunk = source.next()) {
      if (level == 1 && job_.on_input) job_.on_input(chunk);
      HostBuffer& grouped = scattered_[parity_of_chunk_ ^= 1];
      std::vector<std::uint64_t> starts = classify(chunk, splitters, extents, grouped);
      if (appending.valid()) appending.get();  // the previous chunk's appends; rethrows their Error
      appending = std::async(std::launch::async, [this, &files, &grouped, starts = std::move(starts)] {
        for (std::size_t r = 0; r + 1 < starts.size(); ++r)
          files[r]->append(grouped.data() + starts[r] * sizeof(T), (starts[r + 1] - starts[r]) * sizeof(T),
                           job_.temp_dir);
      });
      report_.spilled_bytes += chunk.size();
    }
    if (appending.valid()) appending.get();
    report_.spill_seconds += spilling.lap();
    // What the pass found replaces what the source was expected to become. None of the source's
    // rounds is done yet (counted_as <= rounds_total_ - rounds_done_): the total stays >= the done.
    std::uint64_t expected = 0;
    for (const RoundExtent<Bits>& extent : extents) expected += rounds_expected(extent);
    rounds_total_ = rounds_total_ - counted_as + expected;
    report_rounds();
    for (std::size_t r = 0; r < rounds; ++r) {
      finish_round(*files[r], extents[r], source_keys, level);
      files[r]->remove();
    }
  }

  // A sample of the keys of `input`: random pages of a file, encoded.
  std::vector<Bits> sample_file(const InputFile& input) {
    const std::uint64_t pages = (input.size + kPageBytes - 1) / kPageBytes;
    std::vector<Bits> sample;
    std::vector<std::byte> page(kPageBytes);
    std::mt19937_64 random(input.size);  // deterministic: the same file gives the same rounds
    const std::uint64_t reads = std::min<std::uint64_t>(pages, kSamplePages);
    for (std::uint64_t i = 0; i < reads; ++i) {
      const std::uint64_t p = pages <= kSamplePages ? i : random() % pages;
      const std::size_t got = pread_full(input, page.data(), kPageBytes, p * kPageBytes);
      for (std::size_t at = 0; at + sizeof(T) <= got; at += sizeof(T)) sample.push_back(encode(page.data() + at));
    }
    return sample;
  }

  // A sample of keys spread over a stream's prefix, encoded.
  std::vector<Bits> sample_prefix(std::span<const std::byte> prefix) {
    const std::size_t keys = prefix.size() / sizeof(T);
    const std::size_t wanted = kSamplePages * kPageBytes / sizeof(T);
    const std::size_t stride = std::max<std::size_t>(1, keys / wanted);
    std::vector<Bits> sample;
    for (std::size_t i = 0; i < keys; i += stride) sample.push_back(encode(prefix.data() + i * sizeof(T)));
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

  // Groups the chunk's keys by round into `grouped` (in parallel, blocks of kBlockKeys keys: count,
  // then scatter at offsets from a round-major prefix sum); returns each round's start there.
  std::vector<std::uint64_t> classify(std::span<const std::byte> chunk, const Splitters<Bits>& splitters,
                                      std::vector<RoundExtent<Bits>>& extents, HostBuffer& grouped) {
    const std::size_t n = chunk.size() / sizeof(T);
    const std::size_t rounds = splitters.rounds();
    const std::size_t blocks = (n + kBlockKeys - 1) / kBlockKeys;
    std::vector<RoundExtent<Bits>> block_extents(blocks * rounds);
    const auto round_of = [&](std::size_t i) { return splitters.round_of(encode(chunk.data() + i * sizeof(T))); };
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      RoundExtent<Bits>* mine = &block_extents[b * rounds];
      for (std::size_t i = b * kBlockKeys; i < std::min(n, (b + 1) * kBlockKeys); ++i) {
        const Bits key = encode(chunk.data() + i * sizeof(T));
        RoundExtent<Bits>& e = mine[splitters.round_of(key)];
        ++e.keys;
        e.lowest = std::min(e.lowest, key);
        e.highest = std::max(e.highest, key);
      }
    });
    std::vector<std::uint64_t> offsets(blocks * rounds);
    std::vector<std::uint64_t> starts(rounds + 1, 0);
    std::uint64_t at = 0;
    for (std::size_t r = 0; r < rounds; ++r) {
      starts[r] = at;
      for (std::size_t b = 0; b < blocks; ++b) {
        offsets[b * rounds + r] = at;
        at += block_extents[b * rounds + r].keys;
        extents[r].add(block_extents[b * rounds + r]);
      }
    }
    starts[rounds] = at;
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      std::uint64_t* next = &offsets[b * rounds];
      for (std::size_t i = b * kBlockKeys; i < std::min(n, (b + 1) * kBlockKeys); ++i)
        std::memcpy(grouped.data() + next[round_of(i)]++ * sizeof(T), chunk.data() + i * sizeof(T), sizeof(T));
    });
    return starts;
  }

  void finish_round(SpillFile& file, const RoundExtent<Bits>& extent, std::uint64_t source_keys, int level) {
    if (extent.keys == 0) return;
    InputFile spilled = open_input(file.path());
    if (extent.keys <= job_.round_keys) {
      std::byte* keys = next_round_buffer();
      read_file(spilled, keys, file.bytes());
      Stopwatch sorting;
      job_.sort_round(keys, extent.keys);
      hand_on(keys, extent.keys, sorting.lap());
      ++rounds_done_;
      report_rounds();
    } else if (extent.lowest == extent.highest) {
      // One repeated value: already in order; handed on in pieces of at most a round.
      FileChunks chunks(spilled, std::min<std::size_t>(job_.chunk_bytes, job_.round_keys * sizeof(T)));
      for (std::span<const std::byte> piece = chunks.next(); !piece.empty(); piece = chunks.next()) {
        std::byte* keys = next_round_buffer();
        std::memcpy(keys, piece.data(), piece.size());
        hand_on(keys, piece.size() / sizeof(T), 0);
      }
      ++rounds_done_;  // one round of the count, however many pieces it was handed on in
      report_rounds();
    } else {
      // Too many keys of several values: partition this round again. A pass that kept every key
      // in one round (a sample blind to the spread) is followed by one that halves the value range.
      std::vector<Bits> sample = extent.keys == source_keys ? std::vector<Bits>{} : sample_file(spilled);
      const auto splitters = Splitters<Bits>::from_sample(sample, rounds_for(extent.keys), extent.lowest, extent.highest);
      FileChunks chunks(spilled, job_.chunk_bytes);
      partition(chunks, splitters, extent.keys, level + 1, rounds_expected(extent));
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
  RMGSORT_EXPECTS(job.round_keys > 0 && job.chunk_bytes % kPageBytes == 0 && job.chunk_bytes % key_width(job.type) == 0,
                  "spill_sort: a round of at least one key, chunks of whole pages and keys");
  SpillReport report;
  visit_key_type(job.type, [&]<class T>(T) {
    SpillSorter<T> sorter(job, report);
    const InputFile& input = *source.input;
    if (input.regular) {
      std::vector<RadixBits<T>> sample = sorter.sample_file(input);
      const std::uint64_t keys = input.size / sizeof(T);
      const auto splitters = Splitters<RadixBits<T>>::from_sample(sample, sorter.rounds_for(keys), 0, 0);
      FileChunks chunks(input, job.chunk_bytes);
      sorter.partition(chunks, splitters, keys, 1, 0);
    } else {
      std::vector<RadixBits<T>> sample = sorter.sample_prefix(source.prefix);
      const auto splitters = Splitters<RadixBits<T>>::from_sample(sample, sorter.rounds_for(0), 0, 0);
      StreamChunks chunks(input, source.prefix, job.chunk_bytes, sizeof(T));
      sorter.partition(chunks, splitters, 0, 1, 0);
    }
  });
  return report;
}

}  // namespace rmgsort
