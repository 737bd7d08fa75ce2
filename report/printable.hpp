// Text that goes to a terminal or a log with the file names in it: a name may hold any byte but '/'
// and NUL, "\n", "\r" and a terminal's escape sequences among them.
#pragma once

#include <string>

namespace rmgsort {

// TEXT with each control character (C0 and DEL) written as '?', as `ls -q` shows names: a message
// or a line of progress stays one line, a terminal's redraw erases it whole, and a name's escape
// sequences do not reach the terminal. (Bytes 0x80-0x9f stay: they are parts of UTF-8 characters,
// and only a terminal set to 8-bit controls acts on them alone. JSON escapes controls itself: its
// text stays exact.)
[[nodiscard]] std::string without_controls(std::string text);

}  // namespace rmgsort
