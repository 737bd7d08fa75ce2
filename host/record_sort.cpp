#include "host/record_sort.hpp"

#include "host/record_tags.hpp"
#include "host/tag_sort.hpp"

namespace rmgsort {

void sort_records(const std::byte* records, std::uint64_t count, const RecordLayout& layout, SortOrder order,
                  std::byte* out, std::uint64_t* tags, std::uint64_t* scratch) {
  const TagPlan plan = build_record_tags(records, count, layout, order, tags);
  // The rank words already hold ORDER: tags always sort ascending.
  sort_tags(tags, count, plan.index_bits, scratch);
  refine_record_tags(tags, count, plan, records, layout, order);
  gather_records(tags, count, plan, records, layout.record_size, out);
}

}  // namespace rmgsort
