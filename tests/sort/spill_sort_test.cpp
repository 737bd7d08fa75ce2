// The spill path through its API: a spill file, in a directory or in memory, gives each round back
// as appended, across many table pages and with skips, the same bytes in both; in memory, a pass
// over one round writes over that round's bytes, and memory that cannot be had is named;
// spill_sort of skewed and uniform keys hands on the sorted input in rounds of at most round_keys,
// in a few levels, whatever the skew, and over more than two levels of repartitioning, from a file
// or a stream, with the CPU sorting each round; and spill_sort of records of every key type and
// layout equals std::stable_sort by compare_ranks (equal keys in input order), input positions
// appended or not, over several levels and rank words.
#include "sort/spill_sort.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "generate/distribution.hpp"
#include "generate/generate.hpp"
#include "host/radix_sort.hpp"
#include "core/error.hpp"
#include "io/input_file.hpp"
#include "io/input_sequence.hpp"
#include "io/spill_file.hpp"
#include "../host/spill_test_records.hpp"
#include "../io/io_test_support.hpp"

namespace rmgsort {
namespace {

std::string temp_dir() { return TempDir::chosen("").path; }

// The chunks of a spill file test: each chunk's bytes grouped by round, and where its rounds end.
struct TestChunk {
  std::vector<std::byte> bytes;
  std::vector<std::uint64_t> ends;
};

// CHUNKS chunks of ROUNDS rounds of records of RECORD_BYTES, some segments empty: each record's
// first 4 bytes number it in the order it was appended, the rest filled from that number. EXPECTED
// gets each round's records in append order.
std::vector<TestChunk> test_chunks(std::size_t chunks, std::size_t rounds, std::size_t record_bytes,
                                   std::vector<std::vector<std::byte>>& expected) {
  std::vector<TestChunk> out(chunks);
  expected.assign(rounds, {});
  std::uint32_t next = 0;
  for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
    for (std::size_t r = 0; r < rounds; ++r) {
      const std::size_t count = (chunk * 7 + r * 3) % 11;  // some segments empty
      for (std::size_t i = 0; i < count; ++i, ++next) {
        std::vector<std::byte> record(record_bytes);
        for (std::size_t b = 0; b < record_bytes; ++b) record[b] = std::byte((next >> (8 * (b % 4))) + b / 4);
        out[chunk].bytes.insert(out[chunk].bytes.end(), record.begin(), record.end());
        expected[r].insert(expected[r].end(), record.begin(), record.end());
      }
      out[chunk].ends.push_back(out[chunk].bytes.size());
    }
  }
  return out;
}

std::uint64_t total_bytes(const std::vector<TestChunk>& chunks) {
  std::uint64_t bytes = 0;
  for (const TestChunk& chunk : chunks) bytes += chunk.bytes.size();
  return bytes;
}

// A spill file in DIR, or ("") in memory reserved for CHUNKS exactly, CHUNKS appended; the table
// pages (in a directory) hold 3 rows.
std::unique_ptr<SpillFile> spill_file_of(const std::string& dir, std::size_t rounds,
                                         const std::vector<TestChunk>& chunks) {
  auto file = dir.empty() ? std::make_unique<SpillFile>(SpillMemory::reserve(total_bytes(chunks), 3), rounds)
                          : std::make_unique<SpillFile>(TempDir::chosen(dir), rounds, 3 * (8 + 4 * rounds));
  for (const TestChunk& chunk : chunks) file->append(chunk.bytes, chunk.ends);
  file->finish_appending();
  return file;
}

// Round ROUND of FILE read whole (with room to spare), in pieces of PIECE bytes, and after a skip of
// half its records (RECORD_BYTES each): each is EXPECTED.
void expect_round(const SpillFile& file, std::size_t round, const std::vector<std::byte>& expected,
                  std::size_t record_bytes, std::size_t piece) {
  ASSERT_EQ(file.round_bytes(round), expected.size());
  std::vector<std::byte> whole(expected.size() + record_bytes);
  SpillRoundReader all(file, round);
  EXPECT_EQ(all.read(whole.data(), whole.size()), expected.size());
  whole.resize(expected.size());
  EXPECT_TRUE(whole == expected);
  SpillRoundReader pieces(file, round);
  std::vector<std::byte> joined, buffer(piece);
  for (std::size_t got; (got = pieces.read(buffer.data(), buffer.size())) > 0;)
    joined.insert(joined.end(), buffer.begin(), buffer.begin() + std::ptrdiff_t(got));
  EXPECT_TRUE(joined == expected);
  SpillRoundReader skipping(file, round);
  const std::size_t skip = expected.size() / record_bytes / 2 * record_bytes;
  skipping.skip(skip);
  EXPECT_EQ(skipping.bytes_left(), expected.size() - skip);
  std::vector<std::byte> rest(expected.size() - skip);
  EXPECT_EQ(skipping.read(rest.data(), rest.size()), rest.size());
  EXPECT_TRUE(std::equal(rest.begin(), rest.end(), expected.begin() + std::ptrdiff_t(skip)));
  // In chunks of two pieces (in memory: lent where they lie, at most that, whole records).
  SpillRoundChunks chunks(file, round, 2 * piece);
  std::vector<std::byte> chunked;
  for (std::span<const std::byte> chunk = chunks.next(); !chunk.empty(); chunk = chunks.next()) {
    EXPECT_LE(chunk.size(), 2 * piece);
    EXPECT_EQ(chunk.size() % record_bytes, 0u);
    chunked.insert(chunked.end(), chunk.begin(), chunk.end());
  }
  EXPECT_TRUE(chunked == expected);
}

// Rounds of a spill file in DIR ("": in memory) come back as appended: 40 chunks of 5 rounds (14
// table pages in a directory), records of 4, 13 and 100 bytes.
void expect_rounds_in_append_order(const std::string& dir) {
  constexpr std::size_t kRounds = 5;
  for (const std::size_t record_bytes : {4, 13, 100}) {
    SCOPED_TRACE(std::to_string(record_bytes) + "-byte records");
    std::vector<std::vector<std::byte>> expected;
    const std::vector<TestChunk> chunks = test_chunks(40, kRounds, record_bytes, expected);
    const std::unique_ptr<SpillFile> file = spill_file_of(dir, kRounds, chunks);
    for (std::size_t r = 0; r < kRounds; ++r) expect_round(*file, r, expected[r], record_bytes, 3 * record_bytes);
  }
}

TEST(SpillFileTest, RoundsComeBackInAppendOrderAcrossTablePages) { expect_rounds_in_append_order(temp_dir()); }

TEST(SpillFileTest, InMemoryRoundsComeBackInAppendOrder) { expect_rounds_in_append_order(""); }

// The same chunks give the same rounds, byte for byte, in a directory and in memory: one round, one
// record; rounds all empty but one; several rounds of 100-byte records.
TEST(SpillFileTest, InMemoryRoundsEqualTheFileModes) {
  for (const std::size_t rounds : {1, 3, 64}) {
    std::vector<std::vector<std::byte>> expected;
    std::vector<TestChunk> chunks;
    if (rounds == 1) {
      chunks.push_back(TestChunk{std::vector<std::byte>(100, std::byte{7}), {100}});
    } else if (rounds == 3) {
      chunks = test_chunks(2, rounds, 100, expected);
      for (TestChunk& chunk : chunks) chunk.ends = {0, 0, chunk.bytes.size()};
    } else {
      chunks = test_chunks(9, rounds, 100, expected);
    }
    const std::unique_ptr<SpillFile> in_dir = spill_file_of(temp_dir(), rounds, chunks);
    const std::unique_ptr<SpillFile> in_memory = spill_file_of("", rounds, chunks);
    EXPECT_EQ(in_memory->name(), "spill memory");
    EXPECT_TRUE(in_memory->in_memory());
    EXPECT_FALSE(in_dir->in_memory());
    for (std::size_t r = 0; r < rounds; ++r) {
      ASSERT_EQ(in_dir->round_bytes(r), in_memory->round_bytes(r));
      std::vector<std::byte> a(in_dir->round_bytes(r)), b(a.size());
      EXPECT_EQ(SpillRoundReader(*in_dir, r).read(a.data(), a.size()), a.size());
      EXPECT_EQ(SpillRoundReader(*in_memory, r).read(b.data(), b.size()), b.size());
      EXPECT_TRUE(a == b) << "round " << r << " of " << rounds;
    }
  }
}

// A pass over one round of a spill file in memory writes its own spill file over that round's bytes
// (spill_sort's pass over a round too large): chunks lent by SpillRoundChunks, each grouped into
// two rounds (even and odd numbers, stably) and appended after it was read, give rounds that hold
// the round's records in order; the other rounds of the first file stay as they were.
TEST(SpillFileTest, APassOverARoundInMemoryReusesItsBytes) {
  constexpr std::size_t kRounds = 4, kBytes = 13;
  std::vector<std::vector<std::byte>> expected;
  const std::unique_ptr<SpillFile> file = spill_file_of("", kRounds, test_chunks(30, kRounds, kBytes, expected));
  const std::size_t round = 2;
  SpillRoundChunks source(*file, round, 5 * kBytes);
  SpillFile again(SpillMemory::reuse_round(*file, round), 2);
  std::vector<std::byte> even, odd;
  for (std::span<const std::byte> chunk = source.next(); !chunk.empty(); chunk = source.next()) {
    std::vector<std::byte> grouped[2];
    for (std::size_t at = 0; at < chunk.size(); at += kBytes) {
      std::vector<std::byte>& to = grouped[std::size_t(chunk[at]) % 2];
      to.insert(to.end(), chunk.begin() + std::ptrdiff_t(at), chunk.begin() + std::ptrdiff_t(at + kBytes));
    }
    even.insert(even.end(), grouped[0].begin(), grouped[0].end());
    odd.insert(odd.end(), grouped[1].begin(), grouped[1].end());
    std::vector<std::byte> both = grouped[0];
    both.insert(both.end(), grouped[1].begin(), grouped[1].end());
    again.append(both, std::vector<std::uint64_t>{grouped[0].size(), both.size()});
  }
  again.finish_appending();
  EXPECT_EQ(even.size() + odd.size(), expected[round].size());
  expect_round(again, 0, even, kBytes, 2 * kBytes);
  expect_round(again, 1, odd, kBytes, 2 * kBytes);
  for (const std::size_t r : {0, 1, 3}) expect_round(*file, r, expected[r], kBytes, 7 * kBytes);
}

TEST(SpillFileTest, SpillMemoryThatCannotBeHadIsNamed) {
  try {
    (void)SpillMemory::reserve(std::uint64_t{1} << 62, 2);
    FAIL() << "reserved 4 EiB of spill memory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("spill memory: cannot allocate"), std::string::npos) << e.what();
  }
  SpillFile file(SpillMemory::reserve(8, 1), 1);
  const std::vector<std::byte> chunk(12);
  EXPECT_THROW(file.append(chunk, std::vector<std::uint64_t>{12}), Error);
}

TEST(SpillFileTest, AnUnusableTempDirIsNamed) {
  try {
    SpillFile file(TempDir::chosen("/nonexistent-rmgsort-dir"), 2, 4096);
    FAIL() << "created a spill file in a missing directory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--temp-dir /nonexistent-rmgsort-dir: cannot create a spill file"),
              std::string::npos)
        << e.what();
  }
}

// Where spill_sorted's keys come from: a regular file, or a pipe of which the first bytes (not a
// whole number of keys) were read already, as a stream's prefix.
enum class Source { file, stream_after_prefix };

// INPUT as the spill pass reads it: a sequence of one part, on a descriptor of its own (INPUT closes
// its own).
InputSequence one_part(const InputFile& input, const RecordLayout& layout) {
  std::vector<InputPart> parts(1);
  parts[0].file = InputFile(input.path, ::dup(input.fd), input.regular, input.size);
  return InputSequence(std::move(parts), layout);
}

// A stream's first PREFIX_BYTES, read from INPUT as read_sequence_prefix reads them before the pass.
std::vector<std::byte> read_prefix(InputSequence& input, std::size_t prefix_bytes) {
  std::vector<std::byte> prefix(prefix_bytes);
  EXPECT_EQ(input.read(prefix.data(), prefix.size()), prefix_bytes);
  return prefix;
}

// spill_sort of `dist` keys from `source`, rounds of `round_keys`, chunks of `chunk_bytes`: the
// rounds handed on, joined, are the keys in std::sort's order; returns the report.
SpillReport spill_sorted(const std::string& dist, std::uint64_t count, std::uint64_t round_keys,
                         Source source = Source::file, SortOrder order = SortOrder::ascending,
                         std::size_t chunk_bytes = 4096) {
  std::vector<std::uint64_t> keys(count);
  generate_keys(keys.data(), 0, count, count, parse_distribution(dist), 3);
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(keys.data()), count * 8);
  std::optional<InputFile> file;
  std::optional<test::Feeder> pipe;
  const std::size_t prefix_bytes = std::min<std::size_t>(bytes.size(), 8 * 1000 + 3);
  if (source == Source::file) {
    const std::string path = temp_dir() + "/rmgsort-spill-test-" + std::to_string(::getpid());
    std::FILE* out = std::fopen(path.c_str(), "wb");
    EXPECT_NE(out, nullptr);
    EXPECT_EQ(std::fwrite(keys.data(), 8, count, out), count);
    std::fclose(out);
    file = open_input(path);
    ::unlink(path.c_str());
  } else {
    pipe.emplace(std::vector<std::byte>(bytes.begin(), bytes.end()));
  }
  std::vector<std::uint64_t> buffers(2 * round_keys), sorted;
  SpillJob job;
  job.layout = RecordLayout::bare_key(KeyType::u64);
  job.order = order;
  job.temp_dir = TempDir::chosen("");
  job.round_keys = round_keys;
  job.chunk_bytes = chunk_bytes;
  job.round_buffers = [&]() -> std::array<std::byte*, 2> {
    return {reinterpret_cast<std::byte*>(buffers.data()), reinterpret_cast<std::byte*>(buffers.data() + round_keys)};
  };
  job.sort_round = [&](std::byte* round, std::uint64_t n) {
    radix_sort(reinterpret_cast<std::uint64_t*>(round), n, order);
    return std::span<const std::byte>(round, n * 8);
  };
  job.sorted = [&](std::span<const std::byte> round) {
    EXPECT_LE(round.size(), round_keys * 8);
    const auto* begin = reinterpret_cast<const std::uint64_t*>(round.data());
    sorted.insert(sorted.end(), begin, begin + round.size() / 8);
  };
  InputSequence input = one_part(source == Source::file ? *file : pipe->input(), job.layout);
  const std::vector<std::byte> prefix =
      source == Source::file ? std::vector<std::byte>() : read_prefix(input, prefix_bytes);
  const SpillReport report = spill_sort(job, SpillSource{&input, prefix});
  if (order == SortOrder::ascending) {
    std::sort(keys.begin(), keys.end());
  } else {
    std::sort(keys.begin(), keys.end(), std::greater<>());
  }
  EXPECT_EQ(sorted, keys);
  EXPECT_EQ(report.keys, count);
  std::uint64_t handed_on = 0;
  for (const std::uint64_t n : report.round_keys) handed_on += n;
  EXPECT_EQ(handed_on, count);
  return report;
}

TEST(SpillSortTest, SkewedKeysSortInFewLevels) {
  for (const char* dist : {"zipf:1.0", "zipf:2.0", "bits:3", "zero", "sorted", "uniform"}) {
    SCOPED_TRACE(dist);
    const SpillReport report = spill_sorted(dist, 200000, 1000);
    // 200 rounds' worth of keys, at most 64 rounds a pass: 2 levels on a good sample, a few more
    // where skew defeats it, never one per split of the value range.
    EXPECT_LE(report.levels, 6);
  }
}

// Rounds of 8 keys for 40000: 64 rounds a pass leave ~600 keys a round, partitioned again into
// rounds of ~10, many partitioned a third time, with the CPU sorting each round: uniform keys from
// a file in ascending order in chunks of a page, skewed ones from a stream whose prefix ends inside
// a key in descending order in chunks of three.
TEST(SpillSortTest, RepartitionsOverSeveralLevels) {
  struct Case {
    const char* dist;
    Source source;
    SortOrder order;
    std::size_t chunk_bytes;
  };
  for (const Case& c : {Case{"uniform", Source::file, SortOrder::ascending, 4096},
                        Case{"zipf:1.0", Source::stream_after_prefix, SortOrder::descending, 3 * 4096}}) {
    SCOPED_TRACE(c.dist);
    const SpillReport report = spill_sorted(c.dist, 40000, 8, c.source, c.order, c.chunk_bytes);
    EXPECT_GE(report.levels, 3);
    EXPECT_LE(report.levels, 8);
    EXPECT_GT(report.spilled_bytes, 2 * 40000 * 8);  // the input and its rounds, spilled again
  }
}

// How spill_records_sorted runs spill_sort.
struct RecordsRun {
  SortOrder order = SortOrder::ascending;
  Source source = Source::file;
  bool append_position = false;
  bool in_memory = false;       // the spill files in anonymous memory, not in temp_dir() (files only)
  std::uint64_t round_keys = 16;
  std::size_t chunk_bytes = 4096;
};

std::string describe(const RecordsRun& run) {
  return std::string(run.order == SortOrder::ascending ? "ascending" : "descending") +
         (run.source == Source::file ? ", file" : ", stream") + (run.append_position ? ", positions" : "") +
         (run.in_memory ? ", in memory" : "") + ", rounds of " + std::to_string(run.round_keys) + ", chunks of " +
         std::to_string(run.chunk_bytes);
}

// spill_sort of RECORDS (of LAYOUT) as RUN says, each round sorted by std::stable_sort by
// compare_ranks into a buffer of the test's own: the records handed on, joined, are
// std::stable_sort's (positions appended when asked), in rounds of at most round_keys records.
SpillReport spill_records_sorted(const std::vector<std::byte>& records, const RecordLayout& layout,
                                 const RecordsRun& run) {
  const std::string path = temp_dir() + "/rmgsort-spill-records-test-" + std::to_string(::getpid());
  std::optional<InputFile> file;
  std::optional<test::Feeder> pipe;
  // A stream's prefix: a third of the input, ending inside a record.
  const std::size_t prefix_bytes = std::min(records.size(), records.size() / 3 + 3);
  if (run.source == Source::file) {
    test::write_plain_file(path, records);
    file = open_input(path);
    ::unlink(path.c_str());
  } else {
    pipe.emplace(records);
  }
  SpillJob job;
  job.layout = layout;
  job.order = run.order;
  job.append_position = run.append_position;
  if (!run.in_memory) job.temp_dir = TempDir::chosen("");
  if (run.in_memory) job.memory_bytes = records.size() / layout.record_size * job.spilled_layout().record_size;
  job.round_keys = run.round_keys;
  job.chunk_bytes = run.chunk_bytes;
  const RecordLayout spilled = job.spilled_layout();
  const std::size_t size = spilled.record_size;
  std::vector<std::byte> buffers(2 * run.round_keys * size), own(run.round_keys * size), sorted;
  job.round_buffers = [&]() -> std::array<std::byte*, 2> {
    return {buffers.data(), buffers.data() + run.round_keys * size};
  };
  std::uint64_t input_bytes = 0;
  job.on_input = [&](std::span<const std::byte> chunk) {
    EXPECT_EQ(chunk.size() % layout.record_size, 0u);
    input_bytes += chunk.size();
  };
  job.sort_round = [&](std::byte* round, std::uint64_t n) {
    EXPECT_LE(n, run.round_keys);
    const std::vector<std::byte> in(round, round + n * size);
    const std::vector<std::byte> out = test::stable_sorted(in, spilled, run.order);
    std::copy(out.begin(), out.end(), own.begin());
    return std::span<const std::byte>(own.data(), out.size());
  };
  job.sorted = [&](std::span<const std::byte> round) {
    EXPECT_EQ(round.size() % size, 0u);
    EXPECT_LE(round.size(), run.round_keys * size);
    sorted.insert(sorted.end(), round.begin(), round.end());
  };
  InputSequence input = one_part(run.source == Source::file ? *file : pipe->input(), layout);
  const std::vector<std::byte> prefix =
      run.source == Source::file ? std::vector<std::byte>() : read_prefix(input, prefix_bytes);
  const SpillReport report = spill_sort(job, SpillSource{&input, prefix});
  const std::vector<std::byte> expected =
      test::stable_sorted(run.append_position ? test::with_positions(records, layout) : records, spilled, run.order);
  EXPECT_EQ(sorted.size(), expected.size());
  EXPECT_TRUE(sorted == expected) << "the records handed on differ from std::stable_sort's";
  EXPECT_EQ(input_bytes, records.size());
  EXPECT_EQ(report.keys, records.size() / layout.record_size);
  return report;
}

template <class Key>
class SpillRecordsTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpillRecordsTest, test::AllKeySpecs);

// Two thousand records in every layout, rounds of 16 (two or three levels): both orders, files and
// streams, positions appended or not, in a directory or in memory, chunks of a page or not, each
// combination met by every key type.
TYPED_TEST(SpillRecordsTest, EveryLayoutSortsStably) {
  const std::vector<RecordLayout> layouts = test::layouts_of(TypeParam::spec());
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    for (const int variant : {0, 1}) {
      RecordsRun run;
      run.order = variant == 0 ? SortOrder::ascending : SortOrder::descending;
      run.source = (i + std::size_t(variant)) % 2 == 0 ? Source::file : Source::stream_after_prefix;
      run.append_position = (i / 2 + std::size_t(variant)) % 2 == 0;
      run.in_memory = run.source == Source::file && (i + 2 * std::size_t(variant)) % 3 < 2;  // (regular inputs only)
      run.chunk_bytes = i % 2 == 0 ? 4096 : 3000;
      SCOPED_TRACE(test::describe(layouts[i]) + ", " + describe(run));
      const std::vector<std::byte> records = test::make_records(layouts[i], 2000, test::Keys::spread, i + 1);
      const SpillReport report = spill_records_sorted(records, layouts[i], run);
      EXPECT_GE(report.levels, 2);
    }
  }
}

// Heavy duplicates (stability: the position in the payload tells equal keys apart), and keys that
// share their leading bytes (bytes keys: rounds partitioned again by their later rank words).
TYPED_TEST(SpillRecordsTest, HeavyAndSharedPrefixKeysKeepInputOrder) {
  const std::vector<RecordLayout> layouts = test::layouts_of(TypeParam::spec());
  for (const RecordLayout& layout : {layouts.front(), layouts.back()}) {
    for (const test::Keys keys : {test::Keys::heavy, test::Keys::shared_prefix}) {
      for (const SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        RecordsRun run;
        run.order = order;
        run.append_position = order == SortOrder::descending;
        run.in_memory = keys == test::Keys::heavy;
        SCOPED_TRACE(test::describe(layout) + ", keys " + std::to_string(int(keys)) + ", " + describe(run));
        (void)spill_records_sorted(test::make_records(layout, 2500, keys, 11), layout, run);
      }
    }
  }
}

// One key in every record: each pass finds one value of its word and moves to the next word, and
// the last word's round is one repeated key, copied through in input order.
TYPED_TEST(SpillRecordsTest, AllKeysEqualCopiedThroughInInputOrder) {
  const std::vector<RecordLayout> layouts = test::layouts_of(TypeParam::spec());
  for (const RecordLayout& layout : {layouts.front(), layouts.back()}) {
    for (const Source source : {Source::file, Source::stream_after_prefix}) {
      RecordsRun run;
      run.source = source;
      run.order = source == Source::file ? SortOrder::ascending : SortOrder::descending;
      run.append_position = source == Source::file;
      run.in_memory = source == Source::file;
      SCOPED_TRACE(test::describe(layout) + ", " + describe(run));
      const SpillReport report = spill_records_sorted(test::make_records(layout, 2000, test::Keys::equal), layout, run);
      const int words = int((layout.key_size + 7) / 8);
      EXPECT_EQ(report.levels, layout.key_type == KeyType::bytes ? words : 1);
    }
  }
}

TYPED_TEST(SpillRecordsTest, NoneOneAndSevenRecords) {
  const std::vector<RecordLayout> layouts = test::layouts_of(TypeParam::spec());
  for (const RecordLayout& layout : {layouts.front(), layouts[layouts.size() / 2], layouts.back()}) {
    for (const std::size_t count : {0, 1, 7}) {
      for (const Source source : {Source::file, Source::stream_after_prefix}) {
        RecordsRun run;
        run.source = source;
        run.order = count == 7 ? SortOrder::descending : SortOrder::ascending;
        run.append_position = source == Source::stream_after_prefix;
        run.in_memory = source == Source::file && count > 0;  // (an empty file is read as a stream)
        run.round_keys = 2;
        SCOPED_TRACE(test::describe(layout) + ", " + std::to_string(count) + " records, " + describe(run));
        (void)spill_records_sorted(test::make_records(layout, count, test::Keys::spread, count), layout, run);
      }
    }
  }
}

}  // namespace
}  // namespace rmgsort
