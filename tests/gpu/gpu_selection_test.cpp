#include "gpu/gpu_selection.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace rmgsort {
namespace {

TEST(GpuSelectionTest, AllAndNone) {
  EXPECT_EQ(resolve_gpus(parse_gpu_spec("all"), 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(resolve_gpus(parse_gpu_spec("all"), 0).empty());
  EXPECT_TRUE(resolve_gpus(parse_gpu_spec("none"), 8).empty());
}

TEST(GpuSelectionTest, ListsKeepTheirOrderAndNeedNotBePowersOfTwo) {
  EXPECT_EQ(resolve_gpus(parse_gpu_spec("2,0,1"), 3), (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(resolve_gpus(parse_gpu_spec("7"), 8), (std::vector<int>{7}));
}

TEST(GpuSelectionTest, MalformedListsAreRejectedWithTheText) {
  for (const char* bad : {"", "0,", ",1", "0,,1", "-1", "a", "0,0", "1.5", "0 1", "all,0"}) {
    try {
      (void)parse_gpu_spec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--gpus"), std::string::npos) << e.what();
    }
  }
}

TEST(GpuSelectionTest, ADeviceThatIsNotPresentIsAnError) {
  try {
    (void)resolve_gpus(parse_gpu_spec("0,2"), 2);
    ADD_FAILURE() << "accepted GPU 2 of 2";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("GPU 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("only 2 GPUs"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)resolve_gpus(parse_gpu_spec("0"), 0), Error);
}

}  // namespace
}  // namespace rmgsort
