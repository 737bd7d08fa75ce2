// The sort plan: which path and engine a file or stream of a chosen size gets against a
// --host-memory, and the host memory budget it computes, with the CPU engine and with a fake engine
// standing in for the GPUs (it sorts at most round_keys keys at once and needs nothing beside them).
#include "sort/sort_plan.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "host/radix_sort.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

class FakeGpus final : public SortEngine {
 public:
  // Records (any layout but a bare key, or positions wanted) as the GPU engine sorts them: tags
  // beside them, gathered into output buffers.
  FakeGpus(const RecordLayout& layout, std::uint64_t round_keys, PositionSource positions = PositionSource::none)
      : layout_(layout), round_keys_(round_keys), tags_(!layout.is_bare_key() || positions != PositionSource::none),
        positions_(positions) {}
  std::string_view name() const override { return "gpu"; }
  std::string devices() const override { return "1 GPU"; }
  const RecordLayout& layout() const override { return layout_; }
  std::uint64_t round_keys() const override { return round_keys_; }
  std::uint64_t host_bytes_beside(std::uint64_t keys) const override { return tags_ ? 8 * keys : 0; }
  std::uint64_t output_bytes(std::uint64_t keys) const override {
    return tags_ ? keys * layout_.record_size : 0;
  }
  void place(std::byte*, std::size_t) const override {}
  void pin(std::byte*, std::size_t) override {}
  void allocate(std::uint64_t) override {}
  SortedRound sort(std::byte*, std::uint64_t, SortOrder) override { return {}; }
  std::vector<std::uint64_t> device_bytes_allocated() const override { return {0}; }
  Json stats() const override { return nullptr; }

 private:
  RecordLayout layout_;
  std::uint64_t round_keys_;
  bool tags_;
  PositionSource positions_;
};

const RecordLayout kU64 = RecordLayout::bare_key(KeyType::u64);

// The CPU only: no GPU selected.
PlanRequest cpu_request(std::uint64_t host_memory) {
  return PlanRequest{kU64, false, "in.u64", host_memory,
                     [](const RecordLayout&, PositionSource, std::uint64_t, RoundSorting, std::string& why_not) {
                       why_not = "no GPU selected";
                       return std::unique_ptr<SortEngine>();
                     }};
}

// Fake GPUs that sort at most round_keys keys at once; `asked` records the keys each choice was for,
// `sortings` how their rounds would be sorted.
PlanRequest gpu_request(std::uint64_t host_memory, std::uint64_t round_keys, std::vector<std::uint64_t>* asked,
                        std::vector<RoundSorting>* sortings = nullptr) {
  return PlanRequest{kU64, false, "in.u64", host_memory,
                     [round_keys, asked, sortings](const RecordLayout& layout, PositionSource positions,
                                                   std::uint64_t keys, RoundSorting rounds,
                                                   std::string&) -> std::unique_ptr<SortEngine> {
                       if (asked) asked->push_back(keys);
                       if (sortings) sortings->push_back(rounds);
                       return std::make_unique<FakeGpus>(layout, round_keys, positions);
                     }};
}

// The spill path's chunks for --host-memory H: C = H / 16 in whole pages, 4 KiB to 64 MiB; 5 held.
std::uint64_t spill_chunks(std::uint64_t host_memory) {
  return 5 * std::clamp<std::uint64_t>(host_memory / 16 / 4096 * 4096, 4096, 64 * kMiB);
}

// The CPU's radix sort of u64 keys: in place, with a few buffers a thread (host/radix_sort.hpp).
std::uint64_t cpu_scratch(std::uint64_t keys) { return radix_sort_scratch_bytes(KeyType::u64, keys); }

TEST(SortPlanTest, CpuSortsAFileInMemoryInPlace) {
  // The sort's buffers grow with the threads (a stripe buffer each): 33 MiB for these keys on 32.
  const std::uint64_t host_memory = 2 * (32 * kMiB + cpu_scratch(4 * kMiB));
  const SortPlan plan = plan_file(cpu_request(host_memory), 32 * kMiB);
  EXPECT_EQ(plan.path, SortPath::in_memory);
  EXPECT_EQ(plan.engine->name(), "cpu");
  EXPECT_EQ(plan.cpu_because, "no GPU selected");
  EXPECT_EQ(plan.round_keys, 4 * kMiB);
  EXPECT_EQ(plan.memory.input, 32 * kMiB);
  EXPECT_EQ(plan.memory.sort_scratch, cpu_scratch(4 * kMiB));
  EXPECT_EQ(plan.memory.partition + plan.memory.round_buffers + plan.memory.spill_chunks, 0u);
  EXPECT_EQ(plan.memory.peak(), 32 * kMiB + cpu_scratch(4 * kMiB));
  EXPECT_EQ(plan.memory.limit, host_memory);
  // 8 GiB of keys: their sort's buffers are a small part of them (the out-of-place sort took as much again).
  const SortPlan large = plan_file(cpu_request(std::uint64_t{16} << 30), std::uint64_t{8} << 30);
  EXPECT_EQ(large.path, SortPath::in_memory);
  EXPECT_LT(large.memory.sort_scratch, large.memory.input / 64);
}

TEST(SortPlanTest, CpuSpillsAFileOneByteBeyondItsSizeAndItsSortsBuffers) {
  EXPECT_EQ(plan_file(cpu_request(8000), 4000).path, SortPath::in_memory);
  EXPECT_EQ(plan_file(cpu_request(32 * kMiB + cpu_scratch(4 * kMiB)), 32 * kMiB).path, SortPath::in_memory);
  const std::uint64_t host_memory = 32 * kMiB + cpu_scratch(4 * kMiB) - 1;
  const SortPlan plan = plan_file(cpu_request(host_memory), 32 * kMiB);
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_EQ(plan.engine->name(), "cpu");
  const std::uint64_t chunks = spill_chunks(host_memory);
  EXPECT_EQ(plan.spill_chunk_bytes * 5, chunks);
  EXPECT_EQ(plan.memory.spill_chunks, chunks);
  // Two round buffers and the sort's buffers: the largest round they fit in.
  const auto round_bytes = [](std::uint64_t keys) { return 2 * keys * 8 + cpu_scratch(keys); };
  EXPECT_LE(round_bytes(plan.round_keys), host_memory - chunks);
  EXPECT_GT(round_bytes(plan.round_keys + 1), host_memory - chunks) << "rounds as large as the memory left holds";
  EXPECT_EQ(plan.memory.round_buffers, 2 * plan.round_keys * 8);
  EXPECT_EQ(plan.memory.sort_scratch, cpu_scratch(plan.round_keys));
  EXPECT_EQ(plan.memory.input, 0u);
  EXPECT_LE(plan.memory.peak(), host_memory);
}

// The least is five chunks of a page and the smallest round: as many u64 keys as a chunk holds (512),
// 24 bytes each (two round buffers and the sort's scratch). Rounds of a key or a few once made the
// passes recurse down to single keys.
TEST(SortPlanTest, TooLittleMemoryToSpillIsAnErrorNamingTheInputAndTheLeastThatWorks) {
  constexpr std::uint64_t kLeast = 5 * 4096 + 512 * 3 * 8;
  for (std::uint64_t memory : {std::uint64_t{7999}, kLeast - 1}) {
    try {
      (void)plan_file(cpu_request(memory), 40000);
      FAIL() << "planned with " << memory << " bytes";
    } catch (const Error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("in.u64: --host-memory"), std::string::npos) << message;
      EXPECT_NE(message.find("(" + std::to_string(kLeast) + " bytes)"), std::string::npos) << message;
    }
  }
  const SortPlan least = plan_file(cpu_request(kLeast), 40000);
  EXPECT_EQ(least.path, SortPath::spill);
  EXPECT_EQ(least.round_keys, 512u);
  EXPECT_LE(least.memory.peak(), kLeast);
}

TEST(SortPlanTest, AFileOfPartKeysIsAnErrorNamingIt) {
  EXPECT_THROW((void)plan_file(cpu_request(64 * kMiB), 4001), Error);
}

TEST(SortPlanTest, GpusSortAFileTheyHoldInMemoryWithNothingBeside) {
  std::vector<std::uint64_t> asked;
  const SortPlan plan = plan_file(gpu_request(40 * kMiB, 8 * kMiB, &asked), 32 * kMiB);
  EXPECT_EQ(asked, std::vector<std::uint64_t>{4 * kMiB});
  EXPECT_EQ(plan.path, SortPath::in_memory);
  EXPECT_EQ(plan.engine->name(), "gpu");
  EXPECT_EQ(plan.cpu_because, "");
  EXPECT_EQ(plan.round_keys, 4 * kMiB);
  EXPECT_EQ(plan.memory.peak(), 32 * kMiB) << "the keys only";
}

TEST(SortPlanTest, GpusSortAFileLargerThanTheirRoundInRoundsWithAPartitionBuffer) {
  const SortPlan plan = plan_file(gpu_request(64 * kMiB, kMiB, nullptr), 32 * kMiB);
  EXPECT_EQ(plan.path, SortPath::rounds);
  EXPECT_EQ(plan.round_keys, kMiB);
  EXPECT_EQ(plan.memory.input, 32 * kMiB);
  EXPECT_EQ(plan.memory.partition, 32 * kMiB);
  EXPECT_EQ(plan.memory.sort_scratch, 0u);
  EXPECT_EQ(plan.memory.peak(), 64 * kMiB);
}

TEST(SortPlanTest, GpusSpillAFileBeyondMemoryInRoundsOfTheirSizeAtMost) {
  // Memory would hold larger rounds than the GPUs take: rounds of the GPUs' size.
  const SortPlan small_rounds = plan_file(gpu_request(48 * kMiB, 1000, nullptr), 32 * kMiB);
  EXPECT_EQ(small_rounds.path, SortPath::spill);
  EXPECT_EQ(small_rounds.round_keys, 1000u);
  EXPECT_EQ(small_rounds.memory.round_buffers, 2 * 1000 * 8u);
  // The GPUs would take the whole file, larger than memory: rounds as large as memory holds in two
  // round buffers, nothing beside them.
  const std::uint64_t host_memory = 48 * kMiB;
  const SortPlan plan = plan_file(gpu_request(host_memory, 8 * kMiB, nullptr), 64 * kMiB);
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_EQ(plan.engine->name(), "gpu");
  EXPECT_EQ(plan.round_keys, (host_memory - spill_chunks(host_memory)) / (2 * 8));
  EXPECT_EQ(plan.memory.sort_scratch, 0u);
  EXPECT_LE(plan.memory.peak(), host_memory);
}

TEST(SortPlanTest, ACompleteStreamIsSortedInMemory) {
  EXPECT_EQ(stream_prefix_limit(64 * kMiB), 32 * kMiB);
  const SortPlan cpu = plan_stream(cpu_request(64 * kMiB), 32 * kMiB, /*complete=*/true);
  EXPECT_EQ(cpu.path, SortPath::in_memory);
  EXPECT_EQ(cpu.memory.peak(), 32 * kMiB + cpu_scratch(4 * kMiB));
  std::vector<std::uint64_t> asked;
  const SortPlan rounds = plan_stream(gpu_request(64 * kMiB, kMiB, &asked), 32 * kMiB, true);
  EXPECT_EQ(asked, std::vector<std::uint64_t>{4 * kMiB});
  EXPECT_EQ(rounds.path, SortPath::rounds);
  EXPECT_EQ(rounds.memory.peak(), 64 * kMiB);
  EXPECT_THROW((void)plan_stream(cpu_request(64 * kMiB), 12, true), Error) << "a cut key";
}

TEST(SortPlanTest, AnIncompleteStreamSpillsItsPrefixFirst) {
  const std::uint64_t host_memory = 64 * kMiB;
  std::vector<std::uint64_t> asked;
  const SortPlan plan = plan_stream(gpu_request(host_memory, 8 * kMiB, &asked), 32 * kMiB + 1, false);
  EXPECT_EQ(asked, std::vector<std::uint64_t>{std::numeric_limits<std::uint64_t>::max()}) << "its length unknown";
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_EQ(plan.memory.input, 32 * kMiB + 1);
  EXPECT_LE(plan.memory.peak(), host_memory) << "the prefix goes before the round buffers come";
  const SortPlan cpu = plan_stream(cpu_request(host_memory), 32 * kMiB + 1, false);
  EXPECT_EQ(cpu.path, SortPath::spill);
  const std::uint64_t left = host_memory - spill_chunks(host_memory);
  EXPECT_LE(2 * cpu.round_keys * 8 + cpu_scratch(cpu.round_keys), left);
  EXPECT_GT(2 * (cpu.round_keys + 1) * 8 + cpu_scratch(cpu.round_keys + 1), left);
}

TEST(SortPlanTest, JsonNamesThePathTheEngineEachPartAndTheLimit) {
  const std::string json = json_line(plan_file(gpu_request(64 * kMiB, kMiB, nullptr), 32 * kMiB).json());
  for (const std::string member :
       {"\"path\":\"rounds\"", "\"engine\":\"gpu\"", "\"cpu_because\":null", "\"input_bytes\":33554432",
        "\"partition_bytes\":33554432", "\"sort_scratch_bytes\":0", "\"round_buffers_bytes\":0",
        "\"spill_chunks_bytes\":0", "\"peak_bytes\":67108864", "\"limit_bytes\":67108864"})
    EXPECT_NE(json.find(member), std::string::npos) << member << " in " << json;
}

}  // namespace
}  // namespace rmgsort

namespace rmgsort {
namespace {

// 100-byte records with a bytes:10 key at offset 0 (the Sort Benchmark's layout).
const RecordLayout kRecords = RecordLayout::of(KeySpec{KeyType::bytes, 10}, 100, 0);

PlanRequest records_request(std::uint64_t host_memory, std::uint64_t round_keys, bool positions,
                            const RecordLayout& layout = kRecords) {
  PlanRequest request = round_keys == 0 ? cpu_request(host_memory) : gpu_request(host_memory, round_keys, nullptr);
  request.layout = layout;
  request.positions = positions;
  return request;
}

// The GPUs sort bare keys in rounds two at a time (overlapped) only where the rounds path holds them
// in memory: the spill path and records sort a round at a time, with all of the GPUs' memory.
TEST(SortPlanTest, BareKeysAskForOverlappedRoundsWhereTheRoundsPathHoldsThem) {
  const auto sorting_of = [](const PlanRequest& base, std::uint64_t bytes, bool stream, bool complete) {
    std::vector<RoundSorting> sortings;
    PlanRequest request = gpu_request(base.host_memory, kMiB, nullptr, &sortings);
    request.layout = base.layout;
    request.positions = base.positions;
    const SortPlan plan = stream ? plan_stream(request, bytes, complete) : plan_file(request, bytes);
    EXPECT_FALSE(sortings.empty());
    return std::pair{plan.path, sortings.empty() ? RoundSorting::one_at_a_time : sortings.front()};
  };
  const PlanRequest keys = gpu_request(64 * kMiB, kMiB, nullptr);
  EXPECT_EQ(sorting_of(keys, 32 * kMiB, false, false), std::pair(SortPath::rounds, RoundSorting::overlapped));
  EXPECT_EQ(sorting_of(keys, 32 * kMiB, true, true), std::pair(SortPath::rounds, RoundSorting::overlapped));
  EXPECT_EQ(sorting_of(keys, 32 * kMiB + 8, false, false), std::pair(SortPath::spill, RoundSorting::one_at_a_time));
  EXPECT_EQ(sorting_of(keys, 32 * kMiB, true, false), std::pair(SortPath::spill, RoundSorting::one_at_a_time));
  const PlanRequest records = records_request(64 * kMiB, kMiB, false);
  EXPECT_EQ(sorting_of(records, 100 * 1000, false, false).second, RoundSorting::one_at_a_time);
  const PlanRequest positions = records_request(64 * kMiB, kMiB, true, kU64);
  EXPECT_EQ(sorting_of(positions, 8 * 1000, false, false).second, RoundSorting::one_at_a_time);
}

TEST(SortPlanTest, RecordsInMemoryCountTheirTagsTheRadixBufferAndOneOutput) {
  const std::uint64_t records = 1000;
  const SortPlan plan = plan_file(records_request(64 * kMiB, 0, false), records * 100);
  EXPECT_EQ(plan.path, SortPath::in_memory);
  EXPECT_EQ(plan.engine->name(), "cpu");
  EXPECT_EQ(plan.positions, PositionSource::none);
  EXPECT_EQ(plan.memory.input, records * 100);
  EXPECT_EQ(plan.memory.sort_scratch, 16 * records);  // the tags and the radix sort's buffer of them
  EXPECT_EQ(plan.memory.outputs, records * 100);
  EXPECT_EQ(plan.memory.peak(), 2 * records * 100 + 16 * records);
}

TEST(SortPlanTest, BareKeysWithPositionsAreSortedInPlaceAsPairsWithTheirPlacesInTheInput) {
  const std::uint64_t keys = 1000;
  const SortPlan plan = plan_file(records_request(64 * kMiB, 0, true, kU64), keys * 8);
  EXPECT_EQ(plan.path, SortPath::in_memory);
  EXPECT_EQ(plan.positions, PositionSource::sort_input);
  EXPECT_EQ(plan.engine->layout().record_size, 8u);
  // Pairs of key and position (core/record_pair.hpp): no output buffer; beside the keys, the
  // pairs, the sort's scratch and the positions.
  EXPECT_EQ(plan.memory.outputs, 0u);
  EXPECT_EQ(plan.memory.sort_scratch, keys * (16 + 16 + 8));
}

TEST(SortPlanTest, RecordsBeyondOneGpuSortGoThroughASpillFileInMemoryWhenItFits) {
  const std::uint64_t records = 100000;  // 10 MB; the GPUs take 1000 a round
  const SortPlan plan = plan_file(records_request(256 * kMiB, 1000, false), records * 100);
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_TRUE(plan.spill_in_memory);
  EXPECT_EQ(plan.memory.spill_memory, records * 100);
  EXPECT_EQ(plan.round_keys, 1000u);
  EXPECT_EQ(plan.memory.outputs, 2 * 1000 * 100u);
  EXPECT_LE(plan.memory.peak(), 256 * kMiB);
}

TEST(SortPlanTest, RecordsInRoundsCarryTheirPositionsAppended) {
  const std::uint64_t records = 100000;
  const SortPlan plan = plan_file(records_request(256 * kMiB, 1000, true), records * 100);
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_EQ(plan.positions, PositionSource::appended);
  EXPECT_EQ(plan.engine->layout().record_size, 108u);
  EXPECT_EQ(plan.memory.spill_memory, records * 108);
}

TEST(SortPlanTest, RecordsBeyondHostMemorySpillToTheTempDir) {
  const std::uint64_t records = 1000000;  // 100 MB in 16 MiB
  const SortPlan plan = plan_file(records_request(16 * kMiB, 0, false), records * 100);
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_FALSE(plan.spill_in_memory);
  EXPECT_EQ(plan.memory.spill_memory, 0u);
  EXPECT_LE(plan.memory.peak(), 16 * kMiB);
  EXPECT_GT(plan.round_keys, 0u);
}

// The least --host-memory the error names, read from the error of a plan for `host_memory`.
std::uint64_t least_named(const PlanRequest& request, std::uint64_t bytes) {
  try {
    (void)plan_file(request, bytes);
  } catch (const Error& error) {
    const std::string message = error.what();
    const std::size_t open = message.rfind('('), space = message.find(' ', open);
    return std::stoull(message.substr(open + 1, space - open - 1));
  }
  return 0;
}

// Regression: records of more than 4096 bytes got spill chunks smaller than one record (spill_sort
// stopped with an internal error), and a --host-memory above the least that the error named could
// fail again (the chunks grew with it, a sixteenth of it, and left no room for a round). Every
// size from the least named up plans a spill whose chunks hold a record and whose memory fits.
TEST(SortPlanTest, EveryHostMemoryFromTheLeastNamedUpSpillsInChunksHoldingARecord) {
  for (const std::size_t record_size : {std::size_t{100}, std::size_t{4097}, std::size_t{30000}, std::size_t{65536}}) {
    for (const bool positions : {false, true}) {
      const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::u64, 8}, record_size, 0);
      const std::uint64_t records = 300, bytes = records * record_size;
      const std::uint64_t least = least_named(records_request(1024, 0, positions, layout), bytes);
      ASSERT_GT(least, 1024u) << record_size;
      EXPECT_THROW((void)plan_file(records_request(least - 1, 0, positions, layout), bytes), Error) << record_size;
      const std::size_t spilled = record_size + (positions ? 8 : 0);
      for (std::uint64_t host_memory = least; host_memory < 40 * least; host_memory += least / 7 + 1) {
        const SortPlan plan = plan_file(records_request(host_memory, 0, positions, layout), bytes);
        SCOPED_TRACE("record " + std::to_string(record_size) + ", --host-memory " + std::to_string(host_memory));
        EXPECT_GE(plan.spill_chunk_bytes == 0 ? spilled : plan.spill_chunk_bytes, spilled);
        EXPECT_EQ(plan.spill_chunk_bytes % 4096, 0u);
        EXPECT_GE(plan.round_keys, 1u);
        EXPECT_LE(plan.memory.peak(), host_memory);
      }
    }
  }
}

TEST(SortPlanTest, AFileOfCutRecordsIsRefusedNamingItsSizeAndTheRecordSize) {
  try {
    (void)plan_file(records_request(64 * kMiB, 0, false), 1050);
    FAIL() << "a cut record was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "in.u64: 1050 bytes are not a whole number of records (100 bytes each)");
  }
}

}  // namespace
}  // namespace rmgsort

namespace rmgsort {
namespace {

// An engine that counts itself in `*live` while it exists (the GPUs' engine holds device memory).
class Counted final : public SortEngine {
 public:
  Counted(std::unique_ptr<SortEngine> engine, int* live) : engine_(std::move(engine)), live_(live) { ++*live_; }
  ~Counted() override { --*live_; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  std::string_view name() const override { return engine_->name(); }
  std::string devices() const override { return engine_->devices(); }
  const RecordLayout& layout() const override { return engine_->layout(); }
  std::uint64_t round_keys() const override { return engine_->round_keys(); }
  std::uint64_t host_bytes_beside(std::uint64_t keys) const override { return engine_->host_bytes_beside(keys); }
  std::uint64_t output_bytes(std::uint64_t keys) const override { return engine_->output_bytes(keys); }
  void place(std::byte* data, std::size_t bytes) const override { engine_->place(data, bytes); }
  void pin(std::byte* data, std::size_t bytes) override { engine_->pin(data, bytes); }
  void allocate(std::uint64_t keys) override { engine_->allocate(keys); }
  SortedRound sort(std::byte* records, std::uint64_t count, SortOrder order) override {
    return engine_->sort(records, count, order);
  }
  std::vector<std::uint64_t> device_bytes_allocated() const override { return engine_->device_bytes_allocated(); }
  Json stats() const override { return engine_->stats(); }

 private:
  std::unique_ptr<SortEngine> engine_;
  int* live_;
};

// The GPUs' engine holds its device memory from its choice on: a plan that chooses a second engine
// (records in rounds) lets the first go before, or the second would be planned without its memory.
TEST(SortPlanTest, AnEngineIsGoneBeforeTheNextIsChosen) {
  int live = 0;
  std::vector<int> live_at_choice;
  PlanRequest request = records_request(256 * kMiB, 1000, false);
  request.choose_gpus = [&](const RecordLayout& layout, PositionSource positions, std::uint64_t, RoundSorting,
                            std::string&) -> std::unique_ptr<SortEngine> {
    live_at_choice.push_back(live);
    return std::make_unique<Counted>(std::make_unique<FakeGpus>(layout, 1000, positions), &live);
  };
  const std::uint64_t records = 100000;  // more than a round: chosen for all, then for the rounds
  {
    const SortPlan plan = plan_file(request, records * 100);
    EXPECT_EQ(plan.path, SortPath::spill);
    EXPECT_EQ(live_at_choice, (std::vector<int>{0, 0}));
    EXPECT_EQ(live, 1);
  }
  live_at_choice.clear();
  {
    const SortPlan plan = plan_stream(request, records * 100, /*complete=*/true);
    EXPECT_EQ(plan.path, SortPath::spill);
    EXPECT_EQ(live_at_choice, (std::vector<int>{0, 0}));
    EXPECT_EQ(live, 1);
  }
  EXPECT_EQ(live, 0);
}

// When the GPUs' memory cannot be had (sort/gpu_engine.hpp: the chooser gives up), the plan is the
// CPU's, budget and all: 32 MiB of keys the GPUs would sort in place within one byte less than the
// CPU's sort needs (the keys and its buffers beside them) spill.
TEST(SortPlanTest, GpusWhoseMemoryCannotBeHadLeaveAValidPlanForTheCpu) {
  const std::string why = "GPU 0 has only 1.00 MiB usable (513.00 MiB free) of the 40.00 MiB planned";
  const std::uint64_t host_memory = 32 * kMiB + cpu_scratch(4 * kMiB) - 1;
  EXPECT_EQ(plan_file(gpu_request(host_memory, 8 * kMiB, nullptr), 32 * kMiB).path, SortPath::in_memory);
  PlanRequest request = gpu_request(host_memory, 8 * kMiB, nullptr);
  request.choose_gpus = [&](const RecordLayout&, PositionSource, std::uint64_t, RoundSorting, std::string& why_not) {
    why_not = why;
    return std::unique_ptr<SortEngine>();
  };
  const SortPlan plan = plan_file(request, 32 * kMiB);
  EXPECT_EQ(plan.engine->name(), "cpu");
  EXPECT_EQ(plan.cpu_because, why);
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_EQ(plan.memory.sort_scratch, cpu_scratch(plan.round_keys)) << "the CPU's radix sort buffers";
  EXPECT_LE(plan.memory.peak(), host_memory);
}

}  // namespace
}  // namespace rmgsort
