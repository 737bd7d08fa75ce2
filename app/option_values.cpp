#include "app/option_values.hpp"

#include <charconv>
#include <iterator>

#include "core/error.hpp"

namespace rmgsort {
namespace {

std::string unknown_key_type(const std::string& text) {
  return "unknown key type '" + text + "' (expected one of u32 u64 i32 i64 f32 f64 bytes:N, N = 1..32)";
}

struct NamedProgressMode {
  const char* name;
  ProgressMode mode;
};
constexpr NamedProgressMode kProgressModes[] = {{"auto", ProgressMode::automatic},
                                                {"always", ProgressMode::always},
                                                {"never", ProgressMode::never},
                                                {"lines", ProgressMode::lines},
                                                {"json", ProgressMode::json}};

const NamedProgressMode* find_progress_mode(const std::string& text) {
  for (const NamedProgressMode& named : kProgressModes) {
    if (text == named.name) return &named;
  }
  return nullptr;
}

std::string unknown_progress_mode(const std::string& text) {
  std::string expected;  // "auto, always, never, lines or json"
  for (std::size_t i = 0; i < std::size(kProgressModes); ++i) {
    if (i > 0) expected += i + 1 == std::size(kProgressModes) ? " or " : ", ";
    expected += kProgressModes[i].name;
  }
  return "unknown mode '" + text + "' (expected " + expected + ")";
}

}  // namespace

KeySpec key_spec_option(const std::string& text) {
  if (auto spec = parse_key_spec(text)) return *spec;
  throw Error("--type: " + unknown_key_type(text));
}

const CLI::Validator& key_type_choices() {
  static const CLI::Validator check(
      [](std::string& text) { return parse_key_spec(text) ? std::string() : unknown_key_type(text); },
      "{u32,u64,i32,i64,f32,f64,bytes:N}", "key type");
  return check;
}

std::uint64_t byte_count_option(const std::string& text, const char* option) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw Error(std::string(option) + ": '" + text + "' is not a whole number of bytes");
  return value;
}

RecordLayout layout_option(const std::string& type, const std::string& record_size, const std::string& key_offset) {
  const KeySpec spec = key_spec_option(type);
  const std::uint64_t size = record_size.empty() ? 0 : byte_count_option(record_size, "--record-size");
  if (!record_size.empty() && size == 0) throw Error("--record-size: a record takes at least one byte");
  const std::uint64_t offset = key_offset.empty() ? 0 : byte_count_option(key_offset, "--key-offset");
  return record_layout_option(spec, size, offset);
}

std::uint64_t seed_option(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw Error("--seed: '" + text + "' is not a whole number from 0 to 18446744073709551615");
  return seed;
}

ProgressMode progress_option(const std::string& text) {
  if (const NamedProgressMode* named = find_progress_mode(text)) return named->mode;
  throw Error("--progress: " + unknown_progress_mode(text));
}

const CLI::Validator& progress_choices() {
  static const CLI::Validator check = [] {
    std::string names;
    for (const NamedProgressMode& named : kProgressModes) names += (names.empty() ? "{" : ",") + std::string(named.name);
    return CLI::Validator(
        [](std::string& text) { return find_progress_mode(text) ? std::string() : unknown_progress_mode(text); },
        names + "}", "progress mode");
  }();
  return check;
}

void apply_value_rules(CLI::App& command) {
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? std::string("empty value") : std::string(); }, "", "non-empty");
  for (CLI::Option* option : command.get_options()) {
    if (option->get_items_expected_max() == 0) {
      option->disable_flag_override();
    } else {
      option->transform(non_empty);
    }
  }
}

const CLI::Validator& thread_count_check() {
  static const CLI::Validator check(
      [](std::string& text) {
        unsigned value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && value >= 1 && value <= 4096) return std::string();
        return "'" + text + "' is not a whole number from 1 to 4096";
      },
      "", "thread count");
  return check;
}

}  // namespace rmgsort
