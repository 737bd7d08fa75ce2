// The machine-readable --stats output: one JSON object, written to a file or to standard output.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/output_file.hpp"

namespace rmgsort {

// A JSON object whose members keep the order they were added in.
class JsonObject {
 public:
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
  JsonObject& add(std::string_view key, bool value);
  JsonObject& add(std::string_view key, std::uint64_t value);
  JsonObject& add(std::string_view key, int value) { return add(key, std::int64_t(value)); }
  JsonObject& add(std::string_view key, std::int64_t value);
  JsonObject& add(std::string_view key, double value);
  JsonObject& add(std::string_view key, const JsonObject& value);
  JsonObject& add(std::string_view key, const std::vector<int>& values);
  JsonObject& add(std::string_view key, const std::vector<std::uint64_t>& values);
  JsonObject& add(std::string_view key, const std::vector<double>& values);
  JsonObject& add(std::string_view key, const std::vector<std::string>& values);
  JsonObject& add(std::string_view key, const std::vector<JsonObject>& values);
  JsonObject& add(std::string_view key, const std::vector<std::vector<std::uint64_t>>& rows);

  [[nodiscard]] std::string dump() const;  // one line

 private:
  JsonObject& add_raw(std::string_view key, std::string json);
  std::vector<std::pair<std::string, std::string>> members_;
};

[[nodiscard]] std::string json_quote(std::string_view text);

// The most memory this process has held resident so far, in bytes (getrusage's ru_maxrss): every
// touched page counts, page-locked or not; memory mapped but never touched does not.
[[nodiscard]] std::uint64_t peak_host_memory_bytes();

// Where --stats goes: nowhere (""), standard output ("-") or a file. Opened at the start of a run,
// so that a bad path fails before any data moves; a file is written through a temporary file like
// every output, so a failed run leaves no half-written statistics and no output committed by a run
// whose statistics could not be written. The caller checks first that the file is neither the
// input nor another output (io/file_identity.hpp).
class StatsOutput {
 public:
  explicit StatsOutput(const std::string& path);

  // Writes `json` (one line) to the temporary file and closes it (a deferred write error surfaces
  // here), or writes it to standard output, which cannot be taken back: call it before committing
  // anything, so that a failed write commits nothing.
  void prepare(const JsonObject& json);
  // Makes the prepared statistics visible: renames the file into place.
  void commit();

 private:
  std::string path_;
  std::optional<OutputFile> file_;
};

}  // namespace rmgsort
