#include "app/malloc_arenas.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rmgsort {

void bound_malloc_arenas() {
#if defined(__GLIBC__)
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.arena_max") != nullptr) return;
  (void)mallopt(M_ARENA_MAX, kMallocArenas);  // a hint: malloc works as before if it is refused
#endif
}

}  // namespace rmgsort
