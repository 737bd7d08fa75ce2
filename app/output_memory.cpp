#include "app/output_memory.hpp"

namespace rmgsort {

OutputMemory output_memory_for(const SortPlan& plan, const InputSequence& input, const OutputFile* output,
                               const NpyOutputFormats& formats, const SortRun& run, unsigned threads) {
  OutputMemory memory;
  const bool in_memory = plan.path == SortPath::in_memory || plan.path == SortPath::rounds;
  if (!in_memory || output == nullptr || output->staging() == OutputFile::Staging::in_place || run.index_fd >= 0)
    return memory;
  const std::uint64_t count = input.size() / plan.engine->layout().record_size;
  if (plan.engine->output_bytes(count) != 0) return memory;  // records gathered by tags into buffers of its own
  // After the .npy header, whose length does not depend on the count (npy_output_headers.hpp).
  const std::uint64_t offset = formats.array ? npy_header_for(*formats.array, count).size() : 0;
  const bool written_while_sorting = plan.path == SortPath::in_memory && plan.engine->hands_prefixes() && !run.verify;
  // The output's pages beside everything the plan holds (the keys' own memory, the sort's scratch),
  // within --host-memory.
  const bool fits_beside = plan.memory.peak() + input.size() <= plan.memory.limit;
  if (written_while_sorting && fits_beside && threads >= output_memory_config::kMinThreadsToSortBeside)
    memory.reservation = OutputReservation::start(run.output_fd, run.output_name, offset, input.size());
  // Not reserved (a ramfs, no thread to be had): the keys' home is the pages, as on fewer threads.
  if (!memory.reservation) memory.pages = OutputPages::open(run.output_fd, run.output_name, offset, input.size());
  return memory;
}

}  // namespace rmgsort
