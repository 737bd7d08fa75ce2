#include "app/merge_method.hpp"

namespace rmgsort {

MethodChoice choose_merge_method(std::size_t inputs, const std::string& stream_input, const SortPlan* sort_plan) {
  if (!stream_input.empty()) return {MergeMethod::merge, stream_input + " is a stream: merged as it is read, once"};
  if (sort_plan == nullptr) return {MergeMethod::merge, "sort cannot take the inputs"};
  if (sort_plan->path == SortPath::spill)
    return {MergeMethod::merge, "the inputs exceed what sort holds in memory under --host-memory: merged as they "
                                "are read, in as many passes as the fan-in needs"};
  if (!sort_plan->engine->devices().empty())
    return {MergeMethod::sort, "sort's plan takes the GPUs (" + sort_plan->engine->devices() + ")"};
  if (inputs >= kSortFromRunsOnCpu)
    return {MergeMethod::sort, std::to_string(inputs) + " inputs on the CPU: sorted from " +
                                   std::to_string(kSortFromRunsOnCpu) + " on"};
  return {MergeMethod::merge, std::to_string(inputs) + " inputs on the CPU: merged below " +
                                  std::to_string(kSortFromRunsOnCpu)};
}

const char* merge_method_name(MergeMethod method) {
  switch (method) {
    case MergeMethod::merge: return "merge";
    case MergeMethod::sort: return "sort";
    case MergeMethod::automatic: break;
  }
  return "auto";
}

}  // namespace rmgsort
