#include "app/cli_messages.hpp"

#include <string_view>

#include "report/printable.hpp"

namespace rmgsort {
namespace {

// The command the error belongs to: the subcommand on the command line, else the program itself.
const CLI::App& command_of(const CLI::App& app) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  return parsed.empty() ? app : *parsed.front();
}

// "-o/--output" for an option, the name for a positional ("INPUT").
std::string names_of(const CLI::Option& option) {
  std::string names;
  for (const std::string& name : option.get_snames()) names += "-" + name + "/";
  for (const std::string& name : option.get_lnames()) names += "--" + name + "/";
  if (names.empty()) return option.get_name(/*positional=*/true);
  names.pop_back();
  return names;
}

// The name of the value an option takes ("TYPE"), without the choices --help lists beside it
// (CLI11 appends its validators' descriptions: "TYPE:{u32,u64,...}").
std::string value_name(const CLI::Option& option) {
  const std::string name = option.get_type_name();
  return name.substr(0, name.find(':'));
}

// The names and the value an option takes ("-o/--output FILE"); a positional's name ("FILE").
std::string names_and_value(const CLI::Option& option) {
  const std::string value = value_name(option);
  return option.nonpositional() && !value.empty() ? names_of(option) + " " + value : names_of(option);
}

// The option whose name starts CLI11's text ("--output: 1 required TEXT missing", "descending was
// given a disallowed flag override"), or nullptr.
const CLI::Option* option_named_in(const CLI::App& command, std::string_view text) {
  const std::string word(text.substr(0, text.find_first_of(": ")));
  if (word.empty()) return nullptr;
  for (const std::string& name : {word, "--" + word, "-" + word}) {
    if (const CLI::Option* option = command.get_option_no_throw(name)) return option;
  }
  return nullptr;
}

// "sort takes one INPUT", "generate takes options only".
std::string positionals_of(const CLI::App& command) {
  std::string names;
  for (const CLI::Option* option : command.get_options()) {
    if (!option->nonpositional()) names += (names.empty() ? "" : ", ") + option->get_name(true);
  }
  return command.get_name() + (names.empty() ? " takes options only" : " takes one " + names);
}

// A required option or positional that is missing ("generate needs -o/--output FILE").
std::string missing_text(const CLI::App& app, const CLI::App& command) {
  if (&command == &app) return "no command given (expected sort, merge, generate or check)";
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_required() && option->count() == 0)
      return command.get_name() + " needs " + names_and_value(*option);
  }
  return {};
}

// Two options that exclude each other, both given ("--count and --size exclude each other").
std::string excluded_text(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0) continue;
    for (const CLI::Option* other : option->get_excludes()) {
      if (other->count() > 0)
        return names_of(*option) + " and " + names_of(*other) + " exclude each other (" + command.get_name() +
               " takes one of them)";
    }
  }
  return {};
}

// An option given too often, without its value, or a flag given a value ("--verify=yes").
std::string mismatch_text(const CLI::App& command, std::string_view text) {
  const CLI::Option* option = option_named_in(command, text);
  if (option == nullptr) return {};
  if (option->get_items_expected_max() == 0) return names_of(*option) + " takes no value";
  const std::string value = value_name(*option);
  if (option->count() > 1)
    return names_of(*option) + " given " + std::to_string(option->count()) + " times (expected one " + value + ")";
  return names_of(*option) + " needs a value (" + value + ")";
}

// Arguments nothing took: an unknown option, or a positional too many.
std::string extra_text(const CLI::App& app, const CLI::App& command) {
  const std::vector<std::string> extras = app.remaining(/*recurse=*/true);
  if (extras.empty()) return {};
  const std::string& first = extras.front();
  if (first.size() > 1 && first.front() == '-') {
    if (&command == &app) return "unknown option " + first + " (options follow the command: sort, merge, generate or check)";
    return command.get_name() + " has no option " + first;
  }
  return "unexpected argument '" + first + "' (" + positionals_of(command) + ")";
}

}  // namespace

std::string usage_error_text(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App& command = command_of(app);
  std::string text;
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    // `rmgsort --frobnicate` lacks a command because of the unknown option: name that first.
    if (&command == &app) text = extra_text(app, command);
    if (text.empty()) text = missing_text(app, command);
  } else if (dynamic_cast<const CLI::ExcludesError*>(&error) != nullptr) {
    text = excluded_text(command);
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    text = mismatch_text(command, error.what());
  } else if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    text = extra_text(app, command);
  } else if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) {
    text = error.what();  // "--threads: 'abc' is not ...": option_values.cpp words the validators
  }
  // Anything else (a CLI11 version that words or throws differently): its text, in our frame.
  if (text.empty()) text = error.what();
  const std::string where = &command == &app ? "'rmgsort --help' for usage" : "'rmgsort " + command.get_name() +
                                                                                  " --help' for its options";
  // The text repeats what was typed: its control characters as '?' (report/printable.hpp).
  return "rmgsort: " + without_controls(text) + "\nRun " + where + ".\n";
}

}  // namespace rmgsort
