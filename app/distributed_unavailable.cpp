// sort --distributed in a build without MPI (-DRMGSORT_MPI=OFF, or no MPI found when it was built).
#include "app/commands.hpp"
#include "core/error.hpp"

namespace rmgsort {

int run_distributed_sort(const SortOptions& /*options*/) {
  throw Error("--distributed: rmgsort was built without MPI (install Open MPI, e.g. apt-get install openmpi-bin "
              "libopenmpi-dev, and build again with -DRMGSORT_MPI=ON)");
}

}  // namespace rmgsort
