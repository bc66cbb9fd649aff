"""The trainer's command lines (train, serve, export): a bad argument is one line and exit status 2."""

import argparse
import sys


class CommandParser(argparse.ArgumentParser):
    """`python -m allocbench_rl.<command>`'s arguments; an error prints `<command>: <message>` and exits 2."""

    def __init__(self, command: str, description: str) -> None:
        super().__init__(prog=f"python -m allocbench_rl.{command}", description=description)
        self.command = command

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.command}: {message}", file=sys.stderr)
        raise SystemExit(2)
