#include "sort/sort_plan.hpp"

#include <algorithm>
#include <limits>

#include "report/size_parse.hpp"
#include "core/error.hpp"
#include "sort/chunk_size.hpp"
#include "sort/cpu_engine.hpp"

namespace rmgsort {
namespace {

// The spill path's largest chunk (its chunks are a sixteenth of --host-memory, at least 4 KiB and a
// record: sort/chunk_size.hpp).
constexpr std::size_t kMaxSpillChunkBytes = std::size_t{64} << 20;
constexpr std::size_t kMinSpillChunkBytes = 4096;
// spill_sort's chunks held at once, at most (sort/spill_sort.hpp).
constexpr std::uint64_t kSpillChunksHeld = 5;

// The least a spill chunk may be for records of `width` bytes as spilled.
std::size_t smallest_spill_chunk(std::size_t width) {
  return std::size_t(smallest_chunk(kMinSpillChunkBytes, width));
}

// The fewest records a round of the spill path holds: as many as the smallest spill chunk (at least
// one), or all the engine takes when that is fewer. With rounds of a record or a few (at the least
// --host-memory, once), the passes recursed down to single records: 16 MiB of u64 keys took 2 M
// rounds, 450 s and 270 MiB of bookkeeping, against 0.6 s with rounds of the chunk's 512 keys.
std::uint64_t fewest_round_keys(std::size_t width, std::uint64_t engine_round_keys) {
  return std::clamp<std::uint64_t>(smallest_spill_chunk(width) / width, 1, std::max<std::uint64_t>(1, engine_round_keys));
}

// The spill chunks for --host-memory H and records of `width` bytes as spilled: H / 16 in whole
// pages, within [smallest_spill_chunk, kMaxSpillChunkBytes]; smaller where the chunks held would
// leave no room for the smallest round (`one_round` bytes), so that more memory never plans a sort
// that fails where less planned one.
std::size_t spill_chunk_bytes(std::uint64_t host_memory, std::size_t width, std::uint64_t one_round) {
  const std::size_t smallest = smallest_spill_chunk(width);
  const std::size_t sixteenth = std::size_t(host_memory / 16 / kChunkAlignment * kChunkAlignment);
  std::size_t chunk = std::clamp<std::size_t>(sixteenth, smallest, std::max(kMaxSpillChunkBytes, smallest));
  if (kSpillChunksHeld * chunk + one_round > host_memory && host_memory > one_round) {
    const std::uint64_t room = (host_memory - one_round) / kSpillChunksHeld;
    chunk = std::max(smallest, std::size_t(room / kChunkAlignment * kChunkAlignment));
  }
  return chunk;
}

// Records of any layout but a bare key, and every sort whose positions are written, go through
// record tags (sort/sort_engine.hpp).
bool sorts_records(const PlanRequest& request) { return !request.layout.is_bare_key() || request.positions; }

// The GPUs when they take `keys` records of `layout`, else the CPU, and why.
SortPlan with_engine(const PlanRequest& request, const RecordLayout& layout, PositionSource positions,
                     std::uint64_t keys, RoundSorting rounds) {
  SortPlan plan;
  if (request.choose_gpus) plan.engine = request.choose_gpus(layout, positions, keys, rounds, plan.cpu_because);
  if (plan.engine) {
    plan.cpu_because.clear();
  } else {
    plan.engine = std::make_unique<CpuEngine>(layout, positions);
  }
  plan.positions = positions;
  plan.memory.limit = request.host_memory;
  return plan;
}

SortPlan with_engine(const PlanRequest& request, std::uint64_t keys, RoundSorting rounds) {
  return with_engine(request, request.layout, request.positions ? PositionSource::sort_input : PositionSource::none,
                     keys, rounds);
}

// How `bytes` of the input in memory would be sorted in rounds: overlapped (two sorters on the GPUs)
// when they are bare keys whose rounds path fits --host-memory (the keys and the partition buffer:
// the GPUs sort bare keys in place, nothing beside them), else through spill files, a round at a time.
RoundSorting rounds_of(const PlanRequest& request, std::uint64_t bytes) {
  const bool in_memory = bytes <= request.host_memory / 2;
  return !sorts_records(request) && in_memory ? RoundSorting::overlapped : RoundSorting::one_at_a_time;
}

// Records sorted in rounds (spill_sort's passes): the engine for them, whose records carry their
// input positions when those are written.
SortPlan with_round_engine(const PlanRequest& request, std::uint64_t keys) {
  if (!request.positions)
    return with_engine(request, request.layout, PositionSource::none, keys, RoundSorting::one_at_a_time);
  return with_engine(request, request.layout.with_position(), PositionSource::appended, keys,
                     RoundSorting::one_at_a_time);
}

// `keys` keys (`bytes`) in memory: sorted at once when the engine takes them all (with its buffer
// beside them), else partitioned into rounds of the most it takes.
void plan_in_memory(SortPlan& plan, std::uint64_t bytes, std::uint64_t keys) {
  const SortEngine& engine = *plan.engine;
  plan.memory.input = bytes;
  plan.memory.outputs = engine.output_bytes(keys);
  if (keys > engine.round_keys()) {
    plan.path = SortPath::rounds;
    plan.round_keys = engine.round_keys();
    plan.memory.partition = bytes;
    plan.memory.sort_scratch = engine.host_bytes_beside(plan.round_keys);
  } else {
    plan.path = SortPath::in_memory;
    plan.round_keys = keys;
    plan.memory.sort_scratch = engine.host_bytes_beside(keys);
  }
}

// Through spill files: the chunks first, then rounds as large as the rest of --host-memory holds
// in two round buffers and the engine's buffer (linear in the keys), at most one sort of the engine.
void plan_spill(SortPlan& plan, const PlanRequest& request, std::uint64_t prefix_bytes) {
  const SortEngine& engine = *plan.engine;
  const std::uint64_t host_memory = request.host_memory;
  const std::size_t width = engine.layout().record_size;
  // A round of r keys holds r * (2 * width + 2 * output_bytes(1)) + host_bytes_beside(r): the
  // largest r that fits in `left`, found by bisection, as host_bytes_beside need not be linear in r
  // (the CPU's in-place radix sort needs a few buffers a thread, whatever r). It never decreases.
  const auto round_bytes = [&](std::uint64_t r) {
    return r * 2 * width + engine.host_bytes_beside(r) + 2 * engine.output_bytes(r);
  };
  const std::uint64_t fewest = fewest_round_keys(width, engine.round_keys());
  const std::uint64_t smallest_round = round_bytes(fewest);
  const std::size_t chunk_bytes = spill_chunk_bytes(host_memory, width, smallest_round);
  const std::uint64_t chunks = kSpillChunksHeld * chunk_bytes;
  const std::uint64_t left = host_memory > chunks ? host_memory - chunks : 0;
  std::uint64_t round_keys = 0;
  for (std::uint64_t high = std::min(left / (2 * width), engine.round_keys()); round_keys < high;) {
    const std::uint64_t middle = high - (high - round_keys) / 2;  // in (round_keys, high]
    if (round_bytes(middle) <= left) {
      round_keys = middle;
    } else {
      high = middle - 1;
    }
  }
  if (round_keys < fewest)
    throw Error(request.input_name + ": " + request.host_memory_name + " " + format_bytes_exactly(host_memory) +
                " is too small to sort through spill files; give it at least " +
                format_bytes_exactly(kSpillChunksHeld * smallest_spill_chunk(width) + smallest_round));
  plan.path = SortPath::spill;
  plan.round_keys = round_keys;
  plan.spill_chunk_bytes = chunk_bytes;
  plan.memory = HostMemoryBudget{};
  plan.memory.limit = host_memory;
  plan.memory.input = prefix_bytes;
  plan.memory.sort_scratch = engine.host_bytes_beside(round_keys);
  plan.memory.round_buffers = 2 * round_keys * width;
  plan.memory.spill_chunks = chunks;
  plan.memory.outputs = 2 * engine.output_bytes(round_keys);
}

// Records of a file of `keys` records that one sort of the engine does not take (or whose sort
// does not fit --host-memory): spill_sort's passes, the spill file in memory when it fits beside
// the rounds, else in --temp-dir.
void plan_record_rounds(SortPlan& plan, const PlanRequest& request, std::uint64_t keys) {
  plan.engine.reset();  // first: the GPUs' engine holds device memory the next one is planned from
  plan = with_round_engine(request, keys);
  const std::uint64_t spilled = keys * plan.engine->layout().record_size;
  // In memory: the rounds are planned within what the spill memory leaves of --host-memory. Only
  // when that leaves rounds of at least a sixteenth of the records (else the passes would multiply)
  // does memory take the spill; otherwise --temp-dir does, and the rounds get all of --host-memory.
  if (spilled < request.host_memory) {
    PlanRequest beside = request;
    beside.host_memory = request.host_memory - spilled;
    try {
      plan_spill(plan, beside, 0);
      if (plan.round_keys >= std::min(keys, plan.engine->round_keys()) || plan.round_keys >= keys / 16) {
        plan.spill_in_memory = true;
        plan.memory.spill_memory = spilled;
        plan.memory.limit = request.host_memory;
        return;
      }
    } catch (const Error&) {
      // Not even one round beside it: the spill goes to --temp-dir.
    }
  }
  plan_spill(plan, request, 0);
}

}  // namespace

std::string_view sort_path_name(SortPath path) {
  switch (path) {
    case SortPath::in_memory: return "in_memory";
    case SortPath::rounds: return "rounds";
    case SortPath::spill: return "spill";
  }
  return "?";
}

std::uint64_t HostMemoryBudget::peak() const {
  const std::uint64_t sorting = partition + sort_scratch + round_buffers + outputs;
  return spill_chunks + spill_memory + (round_buffers == 0 ? input + sorting : std::max(input, sorting));
}

Json SortPlan::json() const {
  return {
      {"path", sort_path_name(path)},
      {"engine", engine->name()},
      {"cpu_because", string_or_null(cpu_because)},
      {"round_keys", round_keys},
      {"spill_chunk_bytes", std::uint64_t(spill_chunk_bytes)},
      {"spill_in_memory", spill_in_memory},
      {"positions", positions == PositionSource::none         ? "none"
                    : positions == PositionSource::sort_input ? "sort_input"
                                                              : "appended"},
      {"host_memory",
       {
           {"input_bytes", memory.input},
           {"partition_bytes", memory.partition},
           {"sort_scratch_bytes", memory.sort_scratch},
           {"round_buffers_bytes", memory.round_buffers},
           {"spill_chunks_bytes", memory.spill_chunks},
           {"outputs_bytes", memory.outputs},
           {"spill_memory_bytes", memory.spill_memory},
           {"peak_bytes", memory.peak()},
           {"limit_bytes", memory.limit},
       }},
  };
}

std::uint64_t stream_prefix_limit(std::uint64_t host_memory) { return host_memory / 2; }

SortPlan plan_file(const PlanRequest& request, std::uint64_t bytes) {
  const std::uint64_t keys = request.layout.whole_records(request.input_name, bytes);
  SortPlan plan = with_engine(request, keys, rounds_of(request, bytes));
  plan_in_memory(plan, bytes, keys);
  if (sorts_records(request)) {
    // Records are not partitioned in memory: what one sort does not take goes through spill_sort.
    if (plan.path == SortPath::rounds || plan.memory.peak() > request.host_memory)
      plan_record_rounds(plan, request, keys);
    return plan;
  }
  if (plan.memory.peak() > request.host_memory) plan_spill(plan, request, 0);
  return plan;
}

SortPlan plan_stream(const PlanRequest& request, std::uint64_t prefix_bytes, bool complete) {
  if (!complete) {
    // Its length is unknown: the GPUs are planned for their largest round.
    SortPlan plan = sorts_records(request) ? with_round_engine(request, std::numeric_limits<std::uint64_t>::max())
                                           : with_engine(request, std::numeric_limits<std::uint64_t>::max(),
                                                         RoundSorting::one_at_a_time);
    plan_spill(plan, request, prefix_bytes);
    return plan;
  }
  // At most half of --host-memory: the rounds' partition buffer fits beside it (and, on the CPU, the
  // buffers of the pairs' or the tags' sort; bare keys are sorted in place).
  const std::uint64_t keys = request.layout.whole_records(request.input_name, prefix_bytes);
  SortPlan plan = with_engine(request, keys, rounds_of(request, prefix_bytes));
  plan_in_memory(plan, prefix_bytes, keys);
  if (sorts_records(request) && (plan.path == SortPath::rounds || plan.memory.peak() > request.host_memory)) {
    // The prefix leads spill_sort's pass (its spill file in --temp-dir: planned like a stream's).
    plan.engine.reset();  // first: its device memory is free for the next engine
    plan = with_round_engine(request, keys);
    plan_spill(plan, request, prefix_bytes);
  }
  return plan;
}

}  // namespace rmgsort
