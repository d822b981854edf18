// The verbs of the `flopspy` program, one file each.
#pragma once

#include <CLI/CLI.hpp>

namespace flopspy::tools {

// Each Register* adds a subcommand to `app` and sets `*run` to the function that executes it.
using CommandFn = std::function<int()>;
// The words after "--" on the command line (`flopspy run [options] -- CMD ARGS`).
void SetCommandAfterDashes(std::vector<std::string> command);

// A usage error: one line on stderr, "flopspy: <what> (flopspy <verb> --help for usage)", with
// control characters made visible; returns 2, the status of every usage error (CLI11's own codes
// could be mistaken for the program's). `verb` may be empty (the top level).
int UsageError(const std::string& verb, const std::string& what);

void RegisterRun(CLI::App& app, CommandFn* run);
void RegisterInfo(CLI::App& app, CommandFn* run);
void RegisterCeilings(CLI::App& app, CommandFn* run);

}  // namespace flopspy::tools
