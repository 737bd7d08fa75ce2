#include "sort/spill_files_sort.hpp"

#include <optional>

#include "core/error.hpp"

#include "sort/spill_sort.hpp"
#include "sort/sorted_sink.hpp"

namespace rmgsort {
namespace {

// The plan's round buffers and the engine, made once the streaming pass is over: a stream's prefix
// is let go first, so that the two never take memory at once (sort/sort_plan.hpp).
class RoundMemory {
 public:
  RoundMemory(SortPlan& plan, HostBuffer& prefix, PhaseTimes& times) : plan_(plan), prefix_(prefix), times_(times) {}

  std::array<std::byte*, 2> operator()() {
    prefix_ = HostBuffer();
    SortEngine& engine = *plan_.engine;
    const std::size_t round_bytes = (plan_.round_keys * engine.layout().record_size + 4095) / 4096 * 4096;
    buffers_ = HostBuffer(2 * round_bytes);
    engine.place(buffers_.data(), buffers_.capacity());
    engine.pin(buffers_.data(), buffers_.capacity());
    Stopwatch allocating;
    allocate_engine(engine, plan_.round_keys, allocating, times_, nullptr);
    return {buffers_.data(), buffers_.data() + round_bytes};
  }

 private:
  SortPlan& plan_;
  HostBuffer& prefix_;
  PhaseTimes& times_;
  HostBuffer buffers_;
};

}  // namespace

SortOutcome sort_through_spill(SortPlan& plan, InputSequence& input, HostBuffer prefix, const std::string& temp_dir,
                               const SortRun& run) {
  SortEngine& engine = *plan.engine;
  const RecordLayout& layout = engine.layout();
  RMGSORT_EXPECTS(plan.path == SortPath::spill, "a spill plan");
  const std::size_t width = layout.record_size;
  // The user's records: the engine's, less the positions a pass appends to them.
  RecordLayout user = layout;
  if (plan.positions == PositionSource::appended) user.record_size -= 8;
  Progress& progress = *run.progress;
  SortOutcome outcome;
  Stopwatch phase;
  // The sink starts writing where the output's descriptor stands, so it is opened after the heads:
  // at once when there are none left to write (a file's, checked by its size, were written before),
  // else once the streaming pass has read the stream to its end (its reader checks each part's
  // length against its .npy header).
  std::optional<SortedSink> sink;
  const auto open_sink = [&] {
    if (sink) return;
    if (run.write_heads) run.write_heads();
    sink.emplace(run, user, input.regular() ? input.size() / user.record_size : 0);
  };
  if (!run.write_heads) open_sink();
  KeyChecksum input_checksum;
  RoundMemory round_memory(plan, prefix, outcome.times);
  SpillJob job;
  job.layout = user;
  job.append_position = plan.positions == PositionSource::appended;
  job.order = run.order;
  if (!plan.spill_in_memory) job.temp_dir = TempDir::chosen(temp_dir);
  job.memory_bytes = plan.spill_in_memory ? plan.memory.spill_memory : 0;  // what the plan counted, exactly
  job.round_keys = plan.round_keys;
  job.chunk_bytes = plan.spill_chunk_bytes;
  // Progress: the streaming pass reads the input ("spilling"), then the rounds are sorted and
  // written; the first rounds report comes when the input's pass is over, so its size is known.
  std::uint64_t bytes_in = 0;
  bool sorting_rounds = false;
  job.on_input = [&](std::span<const std::byte> chunk) {
    bytes_in += chunk.size();
    progress.advance(chunk.size());
    if (run.verify) input_checksum += checksum_records(chunk.data(), chunk.size(), user.record_size);
  };
  job.on_rounds = [&](std::uint64_t done, std::uint64_t total) {
    if (!sorting_rounds) {
      open_sink();
      progress.phase("sorting rounds", bytes_in);
    }
    sorting_rounds = true;
    progress.rounds(done, total);
  };
  job.round_buffers = [&] { return round_memory(); };
  // A round sort_round sorted is handed on as the engine left it (records gathered apart from their
  // positions). A round of one repeated key comes without a sort, as it was spilled: as it is, or,
  // when its records carry their positions, through the engine too, which keeps their order (it is
  // stable) and takes the positions apart.
  SortedRound sorted_round;
  bool round_sorted = false;
  job.sort_round = [&](std::byte* records, std::uint64_t count) {
    sorted_round = engine.sort(records, count, run.order);
    round_sorted = true;
    return std::span<const std::byte>(records, count * width);
  };
  job.sorted = [&](std::span<const std::byte> round) {
    if (!round_sorted && plan.positions == PositionSource::appended) {
      // (The round buffer is the driver's own memory: the engine only reads it.)
      sorted_round = engine.sort(const_cast<std::byte*>(round.data()), round.size() / width, run.order);
      round_sorted = true;
    }
    (*sink)(round_sorted ? sorted_round : SortedRound{round, {}});
    round_sorted = false;
  };
  progress.phase("spilling " + input.display_name() + " to " + (plan.spill_in_memory ? "memory" : job.temp_dir->path),
                 input.regular() ? input.size() : 0);
  SpillSource source{&input, prefix.bytes()};
  outcome.spill = spill_sort(job, source);
  open_sink();  // (no round at all: the heads still lead)
  outcome.verify_failure = sink->finish(input_checksum);
  outcome.duplicates_dropped = sink->duplicates_dropped();
  outcome.bytes = outcome.spill->keys * user.record_size;
  const double total = phase.lap();
  outcome.times.partition = outcome.spill->spill_seconds;
  for (double s : outcome.spill->round_sort_seconds) outcome.times.sort += s;
  outcome.times.write = std::max(0.0, total - outcome.times.partition - outcome.times.sort - outcome.times.allocate);
  return outcome;
}

}  // namespace rmgsort
