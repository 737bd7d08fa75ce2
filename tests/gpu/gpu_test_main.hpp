// main() of the GPU test executables (rmgsort_add_gtest ... OWN_MAIN LABELS gpu): they run on a
// GPU host and exit 77 (ctest: skipped) where there is no CUDA device, before any test runs.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <string>

#include "gpu/devices.hpp"

namespace rmgsort::testing {

// Returns 77 where cuda_device_count() is 0, else runs every test and returns RUN_ALL_TESTS().
// `summary`, when given, is printed before the tests and again after them, so that what was
// tested (and what was skipped for lack of devices) also ends the log.
inline int gpu_test_main(int argc, char** argv, const std::function<std::string()>& summary = {}) {
  try {
    if (cuda_device_count() == 0) {
      std::printf("no CUDA device: every test skipped\n");
      return 77;
    }
    ::testing::InitGoogleTest(&argc, argv);
    const std::string text = summary ? summary() : std::string();
    if (!text.empty()) std::printf("%s\n", text.c_str());
    const int status = RUN_ALL_TESTS();
    if (!text.empty()) std::printf("%s\n", text.c_str());
    return status;
  } catch (const std::exception& error) {  // from cuda_device_count() or summary(), outside any test
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}

}  // namespace rmgsort::testing
