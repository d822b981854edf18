// One command-line style for `flopspy` and `flopspy-report` (docs/flopspy-report.md, "Exit
// status"): help without CLI11's type and validator notation (`TEXT:INT in [64 - 1048576]`,
// `--no-save{false}`), value checks that say what is allowed in plain words, and CLI11's
// parse errors rewritten as one plain line. Header-only: both programs include it; the report
// core links no CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace flopspy::tools {

// Help lines as `--buffer-kb N`, `--color auto|always|never`, `--html FILE`: the label is the
// option's type name up to CLI11's ':' (validators add nothing), TEXT shown as VALUE; no
// `{false}` after a negated flag, no REQUIRED.
class PlainHelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, positional);
    for (size_t open; (open = name.find('{')) != std::string::npos;) {
      const size_t close = name.find('}', open);
      if (close == std::string::npos) break;
      name.erase(open, close - open + 1);
    }
    return name;
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0) return "";
    // CLI11 appends each validator's description after a ':' to its own type names only; a
    // label we set ("START:END") is kept whole.
    std::string label = opt->get_type_name();
    const std::string base = label.substr(0, label.find(':'));
    if (base == "TEXT" || base == "INT" || base == "UINT" || base == "FLOAT" || base == "NUMBER" ||
        base == "BOOLEAN") {
      label = base;
    }
    if (label == "TEXT") label = "VALUE";
    if (label == "INT" || label == "UINT" || label == "FLOAT" || label == "NUMBER") label = "N";
    std::string out = label.empty() ? "" : " " + label;
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    return out;
  }
};

// Sets the plain formatter on `app` (subcommands made after this inherit it).
inline void UsePlainHelp(CLI::App& app) {
  app.formatter(std::make_shared<PlainHelpFormatter>());
}

// "--color: must be auto, always or never, not 'maybe'"; the help label is auto|always|never.
inline CLI::Option* OneOf(CLI::Option* option, const std::vector<std::string>& choices) {
  std::string label, listed;
  for (size_t i = 0; i < choices.size(); ++i) {
    label += (i ? "|" : "") + choices[i];
    listed += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  option->type_name(label);
  option->check(CLI::Validator(
      [choices, listed](std::string& value) -> std::string {
        for (const std::string& c : choices) {
          if (value == c) return "";
        }
        return "must be " + listed + ", not '" + value + "'";
      },
      ""));
  return option;
}

// A whole number from `low` to `high`, said in the help after the description.
inline CLI::Option* WholeNumber(CLI::Option* option, int64_t low, int64_t high) {
  option->type_name("N");
  option->description(option->get_description() + " (" + std::to_string(low) + " to " +
                      std::to_string(high) + ")");
  option->check(CLI::Validator(
      [low, high](std::string& value) -> std::string {
        int64_t n = 0;
        if (!CLI::detail::lexical_cast(value, n) || n < low || n > high) {
          return "must be a whole number from " + std::to_string(low) + " to " +
                 std::to_string(high) + ", not '" + value + "'";
        }
        return "";
      },
      ""));
  return option;
}

// CLI11's parse error as one plain phrase: "unknown option --bogus", "--chrome needs a value",
// "--color: must be ...". What it does not recognise is passed on as CLI11 wrote it.
inline std::string PlainUsageMessage(const CLI::ParseError& e) {
  const std::string what = e.what();
  // By exit code: get_name() is the app's name for some errors.
  const auto code = static_cast<CLI::ExitCodes>(e.get_exit_code());
  const auto after_colon = [&what] {
    const size_t colon = what.find(": ");
    return colon == std::string::npos ? what : what.substr(colon + 2);
  };
  if (code == CLI::ExitCodes::ExtrasError) {
    // "The following argument(s) was/were not expected: --bogus x"
    const std::string extras = after_colon();
    return (extras.starts_with('-') ? "unknown option " : "unexpected argument ") + extras;
  }
  if (code == CLI::ExitCodes::ArgumentMismatch) {
    // "--chrome: 1 required TEXT missing", "--json: too many arguments" and the like
    const std::string name = what.substr(0, what.find(':'));
    if (what.find("missing") != std::string::npos) return name + " needs a value";
    if (what.find("flag") != std::string::npos || what.find("too many") != std::string::npos ||
        what.find("unexpected") != std::string::npos) {
      return name + " takes no value";
    }
  }
  if (code == CLI::ExitCodes::ExcludesError) {
    // "--run excludes --all-runs"
    const size_t at = what.find(" excludes ");
    if (at != std::string::npos) {
      return what.substr(0, at) + " and " + what.substr(at + 10) + " cannot be used together";
    }
  }
  // "A subcommand is required" is plain already (and pinned by tests/tools/launcher_usage_test).
  if (code == CLI::ExitCodes::RequiredError && what.find("subcommand") != std::string::npos) {
    return what;
  }
  if (code == CLI::ExitCodes::ConversionError) {
    // "Could not convert: --top = abc"
    constexpr std::string_view kPrefix = "Could not convert: ";
    const size_t eq = what.find(" = ");
    if (what.starts_with(kPrefix) && eq != std::string::npos) {
      return what.substr(kPrefix.size(), eq - kPrefix.size()) + " " + what.substr(eq + 3) +
             ": not a valid value";
    }
  }
  if (!what.empty() && std::isupper(static_cast<unsigned char>(what.front())) &&
      !(what.size() > 1 && std::isupper(static_cast<unsigned char>(what[1])))) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(what.front()))) +
           what.substr(1);
  }
  return what;
}

}  // namespace flopspy::tools
