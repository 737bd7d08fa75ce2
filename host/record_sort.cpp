#include "host/record_sort.hpp"

#include "host/radix_sort.hpp"
#include "host/record_tags.hpp"

namespace rmgsort {

void sort_records(const std::byte* records, std::uint64_t count, const RecordLayout& layout, SortOrder order,
                  std::byte* out, std::uint64_t* tags, std::uint64_t* scratch) {
  const TagPlan plan = build_record_tags(records, count, layout, order, tags);
  // The rank words already hold ORDER: tags always sort ascending. Tags are unique (they hold the
  // position), so the radix sort's own stability does not matter.
  radix_sort<std::uint64_t>(tags, count, SortOrder::ascending, scratch);
  refine_record_tags(tags, count, plan, records, layout, order);
  gather_records(tags, count, plan, records, layout.record_size, out);
}

}  // namespace rmgsort
