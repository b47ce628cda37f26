"""The one argument parser every tool's command line uses.

A bad argument is one line on stderr, ``<tool>: <what was wrong> (see --help)``,
and the tool's usage exit code; never argparse's usage block, never a
traceback. Each tool keeps its own exit codes.
"""

from __future__ import annotations

import argparse
import sys


class OneLineParser(argparse.ArgumentParser):
    """argparse, with errors printed as one line and a chosen exit code."""

    def __init__(self, *args, tool: str | None = None, exit_code: int = 2, **kw):
        super().__init__(*args, **kw)
        self.tool = tool or self.prog  # the name the one line starts with
        self.exit_code = exit_code

    def error(self, message):  # one line, not argparse's usage block
        print(f"{self.tool}: {message} (see --help)", file=sys.stderr)
        raise SystemExit(self.exit_code)
