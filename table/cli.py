"""The ``dicetable`` command. Each subcommand lives in its own module, exposing
``add_arguments(parser)`` and ``run(args) -> int``; only the module of the
command being run is imported (so ``replay`` never loads OpenCV).

Nobody at the table should ever read a stack trace: every failure ends in one
line on standard error and a non-zero exit (``DICETABLE_DEBUG=1`` shows the
traceback for developers).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from typing import Protocol, cast

from table import __version__


class _Command(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


# name: (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("table.replay", "replay a saved game and print its final state"),
    "read": ("vision.cli_read", "read the dice in photos (one line per image)"),
    "run": ("table.service.cli_run", "run the table (real hardware, or stand-ins off a Pi)"),
    "demo": ("table.service.demo", "play scripted games headless on replayed real photos"),
    "simulate": ("table.cpu.simulate", "play many games between CPU players"),
}


def _top_parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {name:<10} {text}" for name, (_, text) in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="dicetable",
        description="A referee for dice games played with real dice.",
        epilog=f"commands:\n{lines}\n\n'dicetable COMMAND --help' tells more.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dicetable {__version__}")
    parser.add_argument("command", choices=sorted(COMMANDS), metavar="COMMAND")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C before a command runs (while its modules load)
        print("dicetable: stopped", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    # Started with standard output or error closed (">&-"), Python has None for them and
    # the first print was an "internal error": what is printed there goes nowhere instead,
    # and the work asked for (pictures, a game) is still done.
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    args_in = list(sys.argv[1:] if argv is None else argv)
    top = _top_parser()
    first = args_in[0] if args_in else ""
    if first.startswith("-") and first not in ("-h", "--help", "--version"):
        named = next((a for a in args_in if a in COMMANDS), "COMMAND")
        print(
            f"dicetable: {first}: not an option of dicetable itself; a command's options go "
            f"after it ('dicetable {named} --help' lists them)",
            file=sys.stderr,
        )
        return 2
    if not args_in or args_in[0].startswith("-") or args_in[0] not in COMMANDS:
        try:
            top.parse_args(args_in[:1] if args_in else [])
        except SystemExit as exc:
            return int(exc.code or 0)
        return 2  # pragma: no cover - parse_args exits on every path above
    name, rest = args_in[0], args_in[1:]
    module_name, text = COMMANDS[name]
    try:
        command = cast(_Command, importlib.import_module(module_name))
    except ImportError as exc:
        print(f"dicetable {name}: cannot start ({exc})", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog=f"dicetable {name}", description=text)
    command.add_arguments(parser)
    try:
        args = parser.parse_args(rest)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return command.run(args)
    except KeyboardInterrupt:
        print(f"dicetable {name}: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the machine said no (a full disk, an I/O error): no bug of ours
        if os.environ.get("DICETABLE_DEBUG"):
            traceback.print_exc()
        where = f": {exc.filename}" if exc.filename else ""
        print(f"dicetable {name}: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1
    except Exception as exc:  # the last line of defence: one line, no traceback
        if os.environ.get("DICETABLE_DEBUG"):
            traceback.print_exc()
        print(f"dicetable {name}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
