// flopspy: run a program under flopspy, or say what this machine offers.
#include <CLI/CLI.hpp>
#include <iostream>

#include "flopspy/commands.h"
#include "report/crash_handler.h"

int main(int argc, char** argv) {
  flopspy::tools::InstallCrashHandler("flopspy");
  CLI::App app{
      "flopspy: FLOPs, bytes, GPU time and launch cost of every kernel and cuBLAS call of an "
      "unmodified program.\n\nExamples:\n  flopspy run -- python train.py\n  flopspy info\n"
      "  flopspy ceilings --cpu\n  flopspy-report flopspy-out/",
      "flopspy"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("flopspy ") + FLOPSPY_VERSION);
  flopspy::tools::CommandFn command;
  flopspy::tools::RegisterRun(app, &command);
  flopspy::tools::RegisterInfo(app, &command);
  flopspy::tools::RegisterCeilings(app, &command);
  // Everything after the first "--" is the command to run, verbatim (its own options included).
  std::vector<std::string> program;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      program.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  }
  flopspy::tools::SetCommandAfterDashes(std::move(program));
  CLI11_PARSE(app, argc, argv);
  return command ? command() : 2;
}
