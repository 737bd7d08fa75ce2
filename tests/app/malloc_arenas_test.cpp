// app/malloc_arenas.hpp: threads that allocate at once share at most kMallocArenas arenas. Its own
// executable: a process's arenas are never given back, so they must all be this test's.
#include "app/malloc_arenas.hpp"

#include <gtest/gtest.h>

#include <malloc.h>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace rmgsort {
namespace {

// The arenas malloc_info() reports: one "<heap nr=" element each.
int arena_count() {
  char* text = nullptr;
  std::size_t size = 0;
  FILE* stream = open_memstream(&text, &size);
  EXPECT_NE(stream, nullptr);
  EXPECT_EQ(malloc_info(0, stream), 0);
  std::fclose(stream);
  const std::string info(text, size);
  std::free(text);
  int heaps = 0;
  for (std::size_t at = info.find("<heap nr="); at != std::string::npos; at = info.find("<heap nr=", at + 1)) ++heaps;
  return heaps;
}

TEST(MallocArenas, ThreadsAllocatingAtOnceShareAtMostTheBound) {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr || std::getenv("GLIBC_TUNABLES") != nullptr)
    GTEST_SKIP() << "the environment chooses malloc's arenas";
  bound_malloc_arenas();
  constexpr int kThreads = 16;
  std::barrier all_started(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      all_started.arrive_and_wait();
      // Held while the other threads allocate: no thread finds an arena another one left.
      std::vector<void*> blocks;
      for (int i = 0; i < 64; ++i) blocks.push_back(std::malloc(1024));
      all_started.arrive_and_wait();
      for (void* block : blocks) std::free(block);
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(arena_count(), kMallocArenas);
}

}  // namespace
}  // namespace rmgsort
