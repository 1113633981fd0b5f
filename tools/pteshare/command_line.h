// The whole `pteshare` command line as one call, so that the executable
// (main.cc) and `python -m pteshare` (python/) run the same commands with
// the same flags, output and exit status.
#pragma once

namespace pteshare::cli {

/// Parses `argv` (argv[0] is the program's name) and runs the command:
/// prints to stdout and stderr, returns the exit status (exit_codes.h).
int RunCommandLine(int argc, const char* const* argv);

/// A one-shot process's malloc settings (see command_line.cc); main() and
/// `python -m pteshare` call it, a library user never does.
void KeepFreedMemoryForReuse();

}  // namespace pteshare::cli
