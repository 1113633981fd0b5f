"""`python -m pteshare ARGS`: the pteshare command line, the same commands,
flags, output and exit status as the executable (the same C++ runs)."""

from pteshare import main

if __name__ == "__main__":
    raise SystemExit(main())
