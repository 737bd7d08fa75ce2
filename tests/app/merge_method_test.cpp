// merge --method auto's rule (app/merge_method.hpp), each step in its order: a stream merges, inputs
// sort's machinery refused merge, sort's spill path merges, the GPUs sort, and on the CPU the count
// of inputs decides at kSortFromRunsOnCpu.
#include "app/merge_method.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace rmgsort {
namespace {

// An engine that only names where it sorts: the rule asks nothing else.
class NamedEngine final : public SortEngine {
 public:
  explicit NamedEngine(std::string devices) : devices_(std::move(devices)) {}
  std::string_view name() const override { return devices_.empty() ? "cpu" : "gpu"; }
  std::string devices() const override { return devices_; }
  const RecordLayout& layout() const override { return layout_; }
  std::uint64_t round_keys() const override { return 0; }
  std::uint64_t host_bytes_beside(std::uint64_t) const override { return 0; }
  std::uint64_t output_bytes(std::uint64_t) const override { return 0; }
  void place(std::byte*, std::size_t) const override {}
  void pin(std::byte*, std::size_t) override {}
  void allocate(std::uint64_t) override {}
  SortedRound sort(std::byte*, std::uint64_t, SortOrder) override { return {}; }
  std::vector<std::uint64_t> device_bytes_allocated() const override { return {}; }
  Json stats() const override { return nullptr; }

 private:
  std::string devices_;
  RecordLayout layout_ = RecordLayout::bare_key(KeyType::u64);
};

SortPlan plan_on(SortPath path, const std::string& devices) {
  SortPlan plan;
  plan.path = path;
  plan.engine = std::make_unique<NamedEngine>(devices);
  return plan;
}

TEST(MergeMethodTest, AStreamIsMergedWhateverElse) {
  const SortPlan gpus = plan_on(SortPath::in_memory, "2 GPUs");
  const MethodChoice choice = choose_merge_method(1000, "stdin", &gpus);
  EXPECT_EQ(choice.method, MergeMethod::merge);
  EXPECT_EQ(choice.because.rfind("stdin is a stream", 0), 0u) << choice.because;
  EXPECT_EQ(choose_merge_method(1000, "", nullptr).method, MergeMethod::merge) << "sort refused the inputs";
}

TEST(MergeMethodTest, WhatExceedsSortsMemoryIsMerged) {
  for (const char* devices : {"", "4 GPUs"}) {
    const SortPlan spill = plan_on(SortPath::spill, devices);
    EXPECT_EQ(choose_merge_method(5000, "", &spill).method, MergeMethod::merge) << devices;
  }
}

TEST(MergeMethodTest, TheGpusSortAnyNumberOfInputs) {
  for (SortPath path : {SortPath::in_memory, SortPath::rounds}) {
    const SortPlan gpus = plan_on(path, "1 GPU");
    const MethodChoice choice = choose_merge_method(2, "", &gpus);
    EXPECT_EQ(choice.method, MergeMethod::sort);
    EXPECT_NE(choice.because.find("GPUs (1 GPU)"), std::string::npos) << choice.because;
  }
}

TEST(MergeMethodTest, TheCpuSortsFromTheMeasuredCountOfInputsOn) {
  const SortPlan cpu = plan_on(SortPath::in_memory, "");
  EXPECT_EQ(choose_merge_method(2, "", &cpu).method, MergeMethod::merge);
  EXPECT_EQ(choose_merge_method(kSortFromRunsOnCpu - 1, "", &cpu).method, MergeMethod::merge);
  EXPECT_EQ(choose_merge_method(kSortFromRunsOnCpu, "", &cpu).method, MergeMethod::sort);
  EXPECT_EQ(choose_merge_method(100000, "", &cpu).method, MergeMethod::sort);
}

TEST(MergeMethodTest, Names) {
  EXPECT_STREQ(merge_method_name(MergeMethod::automatic), "auto");
  EXPECT_STREQ(merge_method_name(MergeMethod::merge), "merge");
  EXPECT_STREQ(merge_method_name(MergeMethod::sort), "sort");
}

}  // namespace
}  // namespace rmgsort
