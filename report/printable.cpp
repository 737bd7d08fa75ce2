#include "report/printable.hpp"

namespace rmgsort {

std::string without_controls(std::string text) {
  for (char& c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) c = '?';
  }
  return text;
}

}  // namespace rmgsort
