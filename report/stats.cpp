#include "report/stats.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "io/blocking_io.hpp"
#include "core/error.hpp"

namespace rmgsort {

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {

// "[a,b,...]" of each value's JSON text.
template <class Values, class ToJson>
std::string json_array(const Values& values, ToJson&& to_json) {
  std::string json = "[";
  bool first = true;
  for (const auto& value : values) {
    if (!first) json += ',';
    first = false;
    json += to_json(value);
  }
  return json + "]";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

JsonObject& JsonObject::add_raw(std::string_view key, std::string json) {
  members_.emplace_back(std::string(key), std::move(json));
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, std::string_view value) { return add_raw(key, json_quote(value)); }
JsonObject& JsonObject::add(std::string_view key, bool value) { return add_raw(key, value ? "true" : "false"); }
JsonObject& JsonObject::add(std::string_view key, std::uint64_t value) { return add_raw(key, std::to_string(value)); }
JsonObject& JsonObject::add(std::string_view key, std::int64_t value) { return add_raw(key, std::to_string(value)); }
JsonObject& JsonObject::add(std::string_view key, const JsonObject& value) { return add_raw(key, value.dump()); }

JsonObject& JsonObject::add(std::string_view key, double value) { return add_raw(key, json_number(value)); }

namespace {
template <class Integer>
std::string integer_array(const std::vector<Integer>& values) {
  std::string json = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) json += ',';
    json += std::to_string(values[i]);
  }
  return json + "]";
}
}  // namespace

JsonObject& JsonObject::add(std::string_view key, const std::vector<int>& values) {
  return add_raw(key, integer_array(values));
}
JsonObject& JsonObject::add(std::string_view key, const std::vector<std::uint64_t>& values) {
  return add_raw(key, integer_array(values));
}


JsonObject& JsonObject::add(std::string_view key, const std::vector<double>& values) {
  return add_raw(key, json_array(values, json_number));
}
JsonObject& JsonObject::add(std::string_view key, const std::vector<std::string>& values) {
  return add_raw(key, json_array(values, [](const std::string& v) { return json_quote(v); }));
}
JsonObject& JsonObject::add(std::string_view key, const std::vector<JsonObject>& values) {
  return add_raw(key, json_array(values, [](const JsonObject& v) { return v.dump(); }));
}
JsonObject& JsonObject::add(std::string_view key, const std::vector<std::vector<std::uint64_t>>& rows) {
  return add_raw(key, json_array(rows, [](const std::vector<std::uint64_t>& row) {
                   return json_array(row, [](std::uint64_t v) { return std::to_string(v); });
                 }));
}

std::string JsonObject::dump() const {
  std::string json = "{";
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (i > 0) json += ',';
    json += json_quote(members_[i].first);
    json += ':';
    json += members_[i].second;
  }
  return json + "}";
}

std::uint64_t peak_host_memory_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) throw_errno("--stats", "cannot read the peak resident memory");
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux counts ru_maxrss in KiB
}

StatsOutput::StatsOutput(const std::string& path) : path_(path) {
  if (path.empty() || path == "-") return;
  try {
    file_.emplace(OutputFile::create(path));
  } catch (const Error& e) {
    throw Error(std::string("--stats: ") + e.what(), e.error_number());
  }
}

void StatsOutput::prepare(const JsonObject& json) {
  if (path_.empty()) return;
  const std::string line = json.dump() + '\n';
  const auto* bytes = reinterpret_cast<const std::byte*>(line.data());
  if (file_) {
    write_all(file_->fd(), path_, bytes, line.size());
    try {
      file_->finish_writing();
    } catch (const Error& e) {
      throw Error(std::string("--stats: ") + e.what(), e.error_number());
    }
  } else {
    write_all(STDOUT_FILENO, "standard output", bytes, line.size());
  }
}

void StatsOutput::commit() {
  if (!file_) return;
  try {
    file_->commit();
  } catch (const Error& e) {
    throw Error(std::string("--stats: ") + e.what(), e.error_number());
  }
}

}  // namespace rmgsort
