// Records of a generated data set (generate/generate.hpp): each key from generate/number_keys.hpp or
// generate/bytes_keys.hpp at the key offset, the payload around it from generate/record_payload.hpp.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "generate/bytes_keys.hpp"
#include "generate/generate.hpp"
#include "generate/number_keys.hpp"
#include "generate/record_payload.hpp"

namespace rmgsort {
namespace {

// 128 KiB of records per task (at least one), as for bare keys: scheduling costs nothing next to the
// work, and a task's output stays in L2.
constexpr std::uint64_t kBytesPerTask = std::uint64_t{128} << 10;

// KEY_AT(i, key) writes key i at `key`.
template <class KeyAt>
void fill_records(std::byte* out, std::uint64_t first_index, std::uint64_t count, const RecordLayout& layout,
                  const detail::RecordPayload& payload, const KeyAt& key_at) {
  const std::size_t size = layout.record_size;
  const std::uint64_t grain = std::max<std::uint64_t>(1, kBytesPerTask / size);
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, grain),
                    [&](const tbb::blocked_range<std::uint64_t>& block) {
                      for (std::uint64_t j = block.begin(); j != block.end(); ++j) {
                        std::byte* record = out + j * size;
                        key_at(first_index + j, record + layout.key_offset);
                        payload.write(first_index + j, record);
                      }
                    });
}

}  // namespace

void generate_records(std::byte* out, std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                      const RecordLayout& layout, const Distribution& dist, std::uint64_t seed) {
  RMGSORT_EXPECTS(layout.valid(), "generate_records: the key must fit the record");
  if (layout.is_bare_key()) {
    return visit_key_type(layout.key_type, [&]<class T>(T) {
      generate_keys(reinterpret_cast<T*>(out), first_index, count, total_count, dist, seed);
    });
  }
  validate_distribution(dist, layout.key());
  check_generate_range(first_index, count, total_count, "records");
  if (count == 0) return;
  const detail::RecordPayload payload(layout, seed);
  const auto fill = [&](const auto& key_at) { fill_records(out, first_index, count, layout, payload, key_at); };
  if (layout.key_type == KeyType::bytes) return detail::visit_bytes_keys(dist, layout.key_size, seed, total_count, fill);
  visit_key_type(layout.key_type, [&]<class T>(T) {
    detail::visit_number_keys<T>(dist, seed, total_count, [&](const auto& number_at) {
      fill([&](std::uint64_t i, std::byte* key) {
        const T value = number_at(i);
        std::memcpy(key, &value, sizeof value);
      });
    });
  });
}

}  // namespace rmgsort
