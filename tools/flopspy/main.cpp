// flopspy: run a program under flopspy, or say what this machine offers.
#include <CLI/CLI.hpp>
#include <iostream>

#include "flopspy/commands.h"
#include "flopspy/platform/terminal_text.h"
#include "report/cli_style.h"
#include "report/crash_handler.h"
#include "report/version.h"

namespace flopspy::tools {

int UsageError(const std::string& verb, const std::string& what) {
  std::cerr << "flopspy: " << platform::EscapeControls(what) << " (flopspy "
            << (verb.empty() ? "" : verb + " ") << "--help for usage)\n";
  return 2;
}

namespace {

// `flopspy -o DIR -- CMD` and `flopspy -- CMD` are common slips for `flopspy run ...`: a first
// word that is "--" or one of run's own options means run.
bool MeansRun(CLI::App& app, std::string_view first) {
  if (first == "--") return true;
  if (!first.starts_with('-') || first == "-h" || first == "--help" || first == "--version") {
    return false;
  }
  const std::string name(first.substr(0, first.find('=')));
  for (const CLI::Option* option : app.get_subcommand("run")->get_options()) {
    if (option->check_name(name)) return true;
  }
  return false;
}

// `flopspy` alone: what to type, on stderr, status 2 (it did nothing that was asked).
int ShortUsage() {
  std::cerr << "usage: flopspy run [options] -- CMD ARGS   trace a program (then flopspy-report)\n"
               "       flopspy info                        what this machine offers flopspy\n"
               "       flopspy ceilings --cpu|--gpu        measure this machine's roofs\n"
               "flopspy --help and flopspy COMMAND --help for the options\n";
  return 2;
}

int Main(int argc, char** argv) {
  if (argc <= 1) return ShortUsage();
  CLI::App app{
      "flopspy: FLOPs, bytes, GPU time and launch cost of every kernel and cuBLAS call of an "
      "unmodified program.\n\nExamples:\n  flopspy run -- python train.py\n  flopspy info\n"
      "  flopspy ceilings --cpu\n  flopspy-report flopspy-out/",
      "flopspy"};
  UsePlainHelp(app);
  app.require_subcommand(1);
  app.set_version_flag("--version", VersionText("flopspy"));
  CommandFn command;
  RegisterRun(app, &command);
  RegisterInfo(app, &command);
  RegisterCeilings(app, &command);
  std::vector<char*> words(argv, argv + argc);
  static char run_verb[] = "run";
  if (argc > 1 && MeansRun(app, argv[1])) words.insert(words.begin() + 1, run_verb);
  argc = static_cast<int>(words.size());
  argv = words.data();
  // Everything after the first "--" is the command to run, verbatim (its own options included).
  std::vector<std::string> program;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      program.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  }
  const bool dashes = !program.empty();
  SetCommandAfterDashes(std::move(program));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    const std::vector<CLI::App*> verbs = app.get_subcommands();
    if (verbs.empty() && argc > 1) {
      // No command was recognised: say what the first word was rather than CLI11's "a
      // subcommand is required".
      const std::string first = argv[1];
      return UsageError("", first.starts_with('-')
                                ? "unknown option " + first
                                : "unknown command " + first +
                                      "; the commands are run, info and ceilings; to profile " +
                                      first + ": flopspy run -- " + first + " ...");
    }
    return UsageError(verbs.empty() ? "" : verbs.front()->get_name(), PlainUsageMessage(e));
  }
  if (dashes && !app.got_subcommand("run")) {
    const std::string verb = app.get_subcommands().front()->get_name();
    return UsageError(verb, "flopspy " + verb + " runs no command: nothing may follow --");
  }
  return command ? command() : 2;
}

}  // namespace
}  // namespace flopspy::tools

int main(int argc, char** argv) {
  flopspy::tools::InstallCrashHandler("flopspy");
  return flopspy::tools::Main(argc, argv);
}
