// glibc's malloc gives threads arenas of their own, up to eight per core, and an arena keeps the
// memory freed into it resident. rmgsort's threads allocate and free their working memory in turn, so
// on many cores what the arenas kept came above --host-memory: on a 16-core host, spilling 256 MiB
// with --host-memory 16M peaked at 31.8-34.0 MB resident against 29.3 allowed (the limit + 5 % + the
// program's 12 MB), 23.0-23.6 MB with two threads. Two arenas held it to 25.0-27.6 MB, with end-to-end
// times within the runs' noise (bench_results/2026-12-01-malloc-arenas-h200.md).
#pragma once

namespace rmgsort {

// At most kMallocArenas arenas for the process, unless the user chose their number
// (MALLOC_ARENA_MAX, or glibc.malloc.arena_max in GLIBC_TUNABLES). Called before any thread starts.
inline constexpr int kMallocArenas = 2;
void bound_malloc_arenas();

}  // namespace rmgsort
