#include "dist/classified_slice.hpp"

#include <algorithm>

namespace rmgsort::dist {

ClassifiedSlice::ClassifiedSlice(Destinations classifier, SliceReader& reader, const RecordLayout& layout,
                                 SortOrder order, int ranks)
    : initial_(classifier), classifier_(std::move(classifier)), reader_(reader), layout_(layout), order_(order),
      ranks_(ranks), width_(destination_width(ranks)) {
  const std::uint64_t most = reader.in_memory() ? reader.count() : std::min(reader.window_records(), reader.count());
  // (Not zeroed: classifying writes every destination, in parallel, which first touches the memory.)
  destinations_ = std::make_unique_for_overwrite<std::byte[]>(std::size_t(most) * std::size_t(width_));
  block_counts_.resize(std::size_t((most + kClassifyBlockRecords - 1) / kClassifyBlockRecords) * std::size_t(ranks));
}

void ClassifiedSlice::rewind() {
  started_ = false;
  window_ = ClassifiedWindow{};
  if (!kept()) classifier_ = initial_;
}

bool ClassifiedSlice::next() {
  const std::uint64_t first = started_ ? window_.first + window_.count : 0;
  started_ = true;
  const std::uint64_t count =
      kept() ? (first == 0 ? reader_.count() : 0) : std::min(reader_.window_records(), reader_.count() - first);
  window_ = ClassifiedWindow{nullptr, first, count, destinations_.get(), block_counts_.data()};
  if (count == 0) return false;
  window_.records = kept() ? reader_.memory() : reader_.records(first, count);
  if (kept() && classified_) return true;
  visit_destination_width(width_, [&]<class D>(D) {
    classify_records(classifier_, window_.records, count, layout_, order_, reinterpret_cast<D*>(destinations_.get()),
                     block_counts_.data(), ranks_);
  });
  classified_ = kept();
  return true;
}

}  // namespace rmgsort::dist
