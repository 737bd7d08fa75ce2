#include "report/progress_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/json.hpp"
#include "report/printable.hpp"
#include "report/size_parse.hpp"

namespace rmgsort {
namespace {

constexpr const char* kLinePrefix = "rmgsort: ";

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// TEXT in at most WIDTH bytes, its middle replaced by "..." when it does not fit. The cuts never
// split a UTF-8 sequence (the path in a phase name may hold any).
std::string elide_middle(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  if (width < 5) return std::string(std::min<std::size_t>(width, 3), '.');
  const std::size_t keep = width - 3;
  std::size_t front = keep / 2;
  std::size_t back = text.size() - (keep - front);
  while (front > 0 && utf8_continuation(text[front])) --front;
  while (back < text.size() && utf8_continuation(text[back])) ++back;
  return text.substr(0, front) + "..." + text.substr(back);
}

double rate_of(const ProgressSnapshot& snapshot) {
  return snapshot.seconds > 0 ? double(snapshot.done) / snapshot.seconds : 0;
}

// Everything a line shows after the phase name: rounds, bytes, rate and, while the phase runs with
// a known total, the ETA.
std::string numbers_of(const ProgressSnapshot& snapshot, bool with_eta) {
  std::string tail;
  if (snapshot.rounds_total > 0) {
    tail.append(" [").append(std::to_string(std::min(snapshot.rounds_done, snapshot.rounds_total)));
    tail.append("/").append(std::to_string(snapshot.rounds_total)).append(" rounds]");
  }
  const double rate = rate_of(snapshot);
  if (snapshot.total > 0) {
    const std::uint64_t done = std::min(snapshot.done, snapshot.total);
    // Truncated, so 100 % means done; no input comes near the 2^64 / 100 bytes that would overflow.
    const std::uint64_t percent = done * 100 / snapshot.total;
    tail.append(" ").append(format_bytes(done)).append("/").append(format_bytes(snapshot.total));
    tail.append(" (").append(std::to_string(percent)).append("%)");
  } else if (snapshot.done > 0) {
    tail.append(" ").append(format_bytes(snapshot.done));
  }
  if (rate >= 1) tail.append(" ").append(format_bytes(std::uint64_t(rate))).append("/s");
  if (with_eta && snapshot.total > 0 && rate >= 1 && snapshot.done < snapshot.total)
    tail.append(" ETA ").append(format_duration(double(snapshot.total - snapshot.done) / rate));
  return tail;
}

// SECONDS to the millisecond, as JSON shows them.
double milliseconds_rounded(double seconds) { return std::round(seconds * 1000) / 1000; }

// The first word of a phase's description: what kind of phase it is.
std::string phase_kind(const std::string& description) { return description.substr(0, description.find(' ')); }

std::string summary_text(const ProgressSummary& summary) {
  std::string text = summary.verb + " " + format_bytes(summary.bytes) + " in " + format_seconds(summary.seconds);
  if (summary.seconds > 0) text += " (" + format_bytes(std::uint64_t(double(summary.bytes) / summary.seconds)) + "/s)";
  return text + " on " + (summary.devices.empty() ? std::string("the CPU") : summary.devices);
}

}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long long s = std::llround(seconds);
  char text[48];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%llds", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, s / 60 % 60);
  }
  return text;
}

std::string format_seconds(double seconds) {
  // Below 59.995 s, "%.2f" cannot round up to "60.00s".
  if (!std::isfinite(seconds) || seconds < 0 || seconds >= 59.995) return format_duration(seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%.2fs", seconds);
  return text;
}

std::string progress_line(const ProgressSnapshot& snapshot, std::size_t columns) {
  // The numbers keep their room; the name takes what is left.
  const std::string tail = numbers_of(snapshot, /*with_eta=*/true);
  const std::string prefix = kLinePrefix;
  const std::size_t fixed = prefix.size() + tail.size();
  std::string line = prefix;
  line.append(elide_middle(without_controls(snapshot.phase), columns > fixed ? columns - fixed : 0)).append(tail);
  if (line.size() > columns) line.resize(columns);  // a terminal too narrow for the numbers
  return line;
}

std::string progress_log_line(const ProgressSnapshot& snapshot) {
  std::string line = kLinePrefix + without_controls(snapshot.phase) + numbers_of(snapshot, !snapshot.finished);
  if (snapshot.finished) line += ", done in " + format_seconds(snapshot.seconds);
  return line;
}

std::string progress_json_line(const ProgressSnapshot& snapshot) {
  const double rate = rate_of(snapshot);
  const bool eta_known = !snapshot.finished && snapshot.total > 0 && rate > 0 && snapshot.done < snapshot.total;
  const bool in_rounds = snapshot.rounds_total > 0;
  Json object;
  object["phase"] = phase_kind(snapshot.phase);
  object["description"] = snapshot.phase;
  object["finished"] = snapshot.finished;
  object["bytes_done"] = snapshot.done;
  object["bytes_total"] = snapshot.total > 0 ? Json(snapshot.total) : Json(nullptr);
  object["bytes_per_second"] = std::round(rate);
  object["eta_seconds"] =
      eta_known ? Json(milliseconds_rounded(double(snapshot.total - snapshot.done) / rate)) : Json(nullptr);
  object["phase_seconds"] = milliseconds_rounded(snapshot.seconds);
  object["elapsed_seconds"] = milliseconds_rounded(snapshot.elapsed);
  object["rounds_done"] = in_rounds ? Json(std::min(snapshot.rounds_done, snapshot.rounds_total)) : Json(nullptr);
  object["rounds_total"] = in_rounds ? Json(snapshot.rounds_total) : Json(nullptr);
  return json_line(object);
}

std::string summary_line(const ProgressSummary& summary) { return kLinePrefix + summary_text(summary); }

std::string summary_json_line(const ProgressSummary& summary) {
  Json object;
  object["phase"] = "done";
  object["description"] = summary_text(summary);
  object["bytes"] = summary.bytes;
  object["elapsed_seconds"] = milliseconds_rounded(summary.seconds);
  object["bytes_per_second"] =
      summary.seconds > 0 ? Json(std::round(double(summary.bytes) / summary.seconds)) : Json(nullptr);
  object["engine"] = summary.engine;
  return json_line(object);
}

std::string failure_json_line(const std::string& message, int exit_status, double seconds) {
  Json object;
  object["phase"] = "failed";
  object["description"] = message;
  object["exit_status"] = exit_status;
  object["elapsed_seconds"] = milliseconds_rounded(seconds);
  return json_line(object);
}

}  // namespace rmgsort
