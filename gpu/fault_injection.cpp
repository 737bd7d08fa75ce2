// The test-only fault injection of gpu/fault_injection.hpp; compiled only with RMGSORT_FAULT_INJECTION.
#include "gpu/fault_injection.hpp"

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/memory_plan.cuh"

namespace rmgsort::fault_injection {
namespace {

enum class Kind { stage, allocate_once, allocate_always };

// A stage as RMGSORT_INJECT_FAULT names it, the words InCoreSorter::Impl::at() gives it (a prefix),
// and, where one stage label covers two steps, the text of the check's call that is the named step.
struct StageName {
  std::string_view name;
  Kind kind;
  std::string_view label;
  std::string_view call;
};

constexpr StageName kStages[] = {
    {"copy-in", Kind::stage, "copy in", ""},
    {"histogram", Kind::stage, "histogram", ""},
    {"scatter", Kind::stage, "scatter", ""},
    {"swap", Kind::stage, "key swap", ""},
    {"bucket-sort", Kind::stage, "bucket sorts", "DeviceRadixSort"},
    {"copy-back", Kind::stage, "bucket sorts", "cudaMemcpyDeviceToHost"},
    {"page-lock", Kind::stage, "page-locking", "cudaHostRegister"},
    {"allocate", Kind::allocate_once, "", ""},
    {"allocate-always", Kind::allocate_always, "", ""},
};

struct Fault {
  std::string spec;
  const StageName* stage = nullptr;  // nullptr: nothing is injected
  std::optional<int> gpu;            // nullopt: any GPU
  [[nodiscard]] bool on(int device) const { return !gpu || *gpu == device; }
};

Fault parse(std::string_view spec) {
  Fault fault;
  fault.spec = spec;
  if (spec.empty()) return fault;
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  for (const StageName& stage : kStages)
    if (stage.name == name) fault.stage = &stage;
  bool valid = fault.stage != nullptr;
  if (valid && colon != std::string_view::npos) {
    const std::string_view digits = spec.substr(colon + 1);
    int gpu = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), gpu);
    valid = !digits.empty() && error == std::errc() && end == digits.data() + digits.size() && gpu >= 0;
    fault.gpu = gpu;
  }
  if (!valid) {
    std::string names;
    for (const StageName& stage : kStages) names += std::string(names.empty() ? "" : ", ") + std::string(stage.name);
    throw Error("RMGSORT_INJECT_FAULT=" + std::string(spec) + ": expected STAGE[:GPU], STAGE one of " + names +
                ", GPU a device ordinal");
  }
  return fault;
}

std::mutex mutex;  // guards everything below but `fired`
bool loaded = false;
Fault fault;
std::vector<int> devices_seen;                 // every device a stage was entered on: waited for
std::vector<std::pair<int, void*>> taken;      // memory `allocate` took: (device, pointer)
std::atomic<bool> fired{false};                // a fault fired (allocate-always: never set)

thread_local bool armed = false;     // this thread is in the fault's stage, on its GPU
thread_local bool injected = false;  // the last failure this thread reported was injected

const Fault& loaded_fault() {
  if (!loaded) {
    const char* value = std::getenv("RMGSORT_INJECT_FAULT");
    fault = parse(value != nullptr ? value : "");
    loaded = true;
  }
  return fault;
}

// As a real fault would have stopped them: no copy may still write host memory while the error
// unwinds and the caller frees it. Errors are ignored: a fault is being reported.
void wait_for_devices_seen() {
  int current = 0;
  (void)cudaGetDevice(&current);
  for (int device : devices_seen) {
    (void)cudaSetDevice(device);
    (void)cudaDeviceSynchronize();
  }
  (void)cudaSetDevice(current);
}

// Takes `device`'s memory until the margin and `left` bytes more are free, as another process would.
// (Called without the lock: its checks go through checked().)
void take_memory(int device, std::uint64_t left) {
  int current = 0;
  RMGSORT_CUDA_TRY(cudaGetDevice(&current));
  RMGSORT_CUDA_TRY(cudaSetDevice(device));
  std::size_t free = 0, total = 0;
  RMGSORT_CUDA_TRY(cudaMemGetInfo(&free, &total));
  const std::uint64_t keep = left + kGpuMemoryMargin;
  if (free > keep) {
    void* data = nullptr;
    RMGSORT_CUDA_TRY(cudaMalloc(&data, free - keep));
    const std::lock_guard lock(mutex);
    taken.emplace_back(device, data);
  }
  RMGSORT_CUDA_TRY(cudaSetDevice(current));
}

}  // namespace

std::string spec() {
  const std::lock_guard lock(mutex);
  return loaded_fault().spec;
}

void set_spec(std::string_view spec) {
  Fault parsed = parse(spec);
  const std::lock_guard lock(mutex);
  fault = std::move(parsed);
  loaded = true;
  fired = false;
  armed = false;
}

void enter_stage(int device, std::string_view stage) {
  const std::lock_guard lock(mutex);
  const Fault& f = loaded_fault();
  armed = false;
  if (f.stage == nullptr || f.stage->kind != Kind::stage || fired) return;
  bool seen = false;
  for (int d : devices_seen) seen = seen || d == device;
  if (!seen) devices_seen.push_back(device);
  armed = f.on(device) && stage.starts_with(f.stage->label);
}

cudaError_t checked(cudaError_t status, const char* call) {
  if (!armed || status != cudaSuccess) return status;
  const std::lock_guard lock(mutex);
  if (!fault.stage->call.empty() && std::string_view(call).find(fault.stage->call) == std::string_view::npos)
    return status;  // the stage's other step
  armed = false;
  if (fired.exchange(true)) return status;
  wait_for_devices_seen();
  injected = true;
  return cudaErrorLaunchFailure;
}

bool take_injected() { return std::exchange(injected, false); }

void before_allocation(int device, std::uint64_t planned_bytes) {
  Kind kind = Kind::stage;
  std::string text;
  {
    const std::lock_guard lock(mutex);
    const Fault& f = loaded_fault();
    if (f.stage == nullptr || !f.on(device)) return;
    kind = f.stage->kind;
    text = f.spec;
  }
  if (kind == Kind::stage || (kind == Kind::allocate_once && fired.exchange(true))) return;
  if (kind == Kind::allocate_once) take_memory(device, planned_bytes / 2);
  throw Error("GPU " + std::to_string(device) + ": cannot allocate " + std::to_string(planned_bytes) +
              " bytes for the sorter's buffers: " + cudaGetErrorString(cudaErrorMemoryAllocation) +
              " (injected: RMGSORT_INJECT_FAULT=" + text + ")");
}

void release_taken_memory() {
  std::vector<std::pair<int, void*>> memory;
  {
    const std::lock_guard lock(mutex);
    memory.swap(taken);
  }
  int current = 0;
  RMGSORT_CUDA_TRY(cudaGetDevice(&current));
  for (const auto& [device, data] : memory) {
    RMGSORT_CUDA_TRY(cudaSetDevice(device));
    RMGSORT_CUDA_TRY(cudaFree(data));
  }
  RMGSORT_CUDA_TRY(cudaSetDevice(current));
}

}  // namespace rmgsort::fault_injection
