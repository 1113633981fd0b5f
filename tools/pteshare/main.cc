// pteshare: share mutable state across the methods of a compiled ExecuTorch
// program. The command line is command_line.cc's, which `python -m
// pteshare` runs too; every subcommand is one entry of its command table.
#include "tools/pteshare/command_line.h"

int main(int argc, char** argv) {
  pteshare::cli::KeepFreedMemoryForReuse();
  return pteshare::cli::RunCommandLine(argc, argv);
}
