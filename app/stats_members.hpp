// What sort's and merge's --stats (schema 1) share: how an output is named, and the records' format,
// layout and order, each null until the run has learnt it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "report/json.hpp"

namespace rmgsort {

// An output as --stats names it: its path, "stdout" for "-", null when there is none.
[[nodiscard]] inline Json output_json(const std::string& path) {
  if (path.empty()) return nullptr;
  return path == "-" ? "stdout" : path;
}

// input_format, key_field, output, index_output, key_type, record_size, key_offset and order.
inline void add_record_members(Json& json, const std::optional<std::string>& input_format, const std::string& key_field,
                               const std::string& output, const std::string& index_output,
                               const std::optional<RecordLayout>& layout, SortOrder order) {
  json["input_format"] = input_format ? Json(*input_format) : Json(nullptr);
  json["key_field"] = string_or_null(key_field);
  json["output"] = output_json(output);
  json["index_output"] = output_json(index_output);
  json["key_type"] = layout ? Json(layout->key().name()) : Json(nullptr);
  json["record_size"] = layout ? Json(std::uint64_t(layout->record_size)) : Json(nullptr);
  json["key_offset"] = layout ? Json(std::uint64_t(layout->key_offset)) : Json(nullptr);
  json["order"] = order == SortOrder::ascending ? "ascending" : "descending";
}

}  // namespace rmgsort
