"""``dicetable replay FILE [--json]``: audit a saved game.

Exit 0 once the file was read (whatever the rules refused), 2 with one line
naming the problem for a structural fault (GAME_LOG.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from table.game import Game, SetupError, replay
from table.gamelog import LoadedGame, LogError, load
from table.service.resume import named_log
from table.service.screens import escaped

COUNTERS = ("lives", "points", "sips")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a game file (JSON or JSON Lines)")
    parser.add_argument("--json", action="store_true", help="print the final state as JSON")


def replay_file(path: str) -> tuple[LoadedGame, Game]:
    """Load and replay; LogError or SetupError for structural faults."""
    loaded = load(path)
    try:
        game = replay(loaded.header, loaded.events)
    except SetupError as exc:
        raise LogError(f"{path}: {exc}") from None
    return loaded, game


def run(args: argparse.Namespace) -> int:
    try:
        if not args.file.strip():  # an unset shell variable: as a path it is the folder "."
            raise LogError("an empty path is no game file")
        loaded, game = replay_file(args.file)
    except LogError as exc:
        text = str(exc)
        named = _log_named_by(args.file)
        if named is not None:  # the table's games/current: only the name of a log
            text = (
                f"{args.file}: not a game file: it names the game in progress "
                f"(dicetable replay {named})"
            )
        print(f"dicetable replay: {escaped(text)}", file=sys.stderr)  # one line, a path too
        return 2
    if loaded.torn:
        print(f"dicetable replay: {escaped(args.file)}: {loaded.torn}", file=sys.stderr)
    view = game.view()
    if args.json:
        print(json.dumps(view))
    else:
        print(summary(view))
    return 0


def _log_named_by(path: str) -> Path | None:
    """The log beside ``path`` that ``path`` names, if it holds nothing but that name
    (as the table's ``games/current`` does); None otherwise."""
    try:
        log = named_log(Path(path))
    except LogError:
        return None
    return log if log is not None and log.name != Path(path).name else None


def _one_line(value: object, most: int = 40) -> str:
    """A name (or an event) from the game file as the summary prints it: control
    characters escaped as JSON escapes them (a line break in a name split its row, an
    ESC reached the terminal), and cut to ``most`` characters (a name of 100 000
    characters made every row that wide)."""
    text = escaped(str(value))  # each such character alone: C1 controls (a CSI), U+2028
    return text if len(text) <= most else text[: most - 3] + "..."


def _turn_text(turn: dict[str, Any]) -> str:
    if "phase" in turn:
        who = _one_line(turn.get("player") or "everyone")
        if turn.get("phase") == "bids":
            return f"{who} to bid"
        return f"{who} to roll, trick {turn.get('trick')}"
    # ``throw`` counts the throws made this turn (GAME_LOG.md), not the one to come
    made, limit = turn.get("throw"), turn.get("max_throws")
    return f"{_one_line(turn.get('player'))}'s turn, {made} of {limit} throws made"


def summary(view: dict[str, Any]) -> str:
    """A readable summary of a replay view: standings, round, refusals."""
    lines: list[str] = []
    head = f"{view.get('rules')}, round {view.get('round')}"
    if view.get("over"):
        if view.get("draw"):
            head += ": game over, a draw"
        elif view.get("winner"):
            head += f": game over, winner {_one_line(view['winner'])}"
        else:
            head += ": game over, no single winner"
    lines.append(head)
    players = view.get("players", [])
    width = max((len(_one_line(p.get("name", ""))) for p in players), default=0)
    for p in players:
        counts = "  ".join(f"{k} {p[k]}" for k in COUNTERS if k in p)
        out = "  out" if p.get("out") else ""
        lines.append(f"  {_one_line(p.get('name')):<{width}}  {counts}{out}")
    if "pot" in view:
        lines.append(f"pot: {view['pot']}")
    pirate = view.get("pirate")
    if pirate:
        lines.append(f"pirate: {_one_line(pirate.get('name'))} (x{pirate.get('multiplier')})")
    turn = view.get("turn")
    if turn:
        lines.append(f"next: {_turn_text(turn)}")
    refused = view.get("refused", [])
    if refused:
        lines.append(f"refused ({len(refused)}):")
        for r in refused:
            event = _one_line(json.dumps(r["event"], ensure_ascii=False), 80)
            lines.append(f"  event {r['index']} {event}: {_one_line(r['reason'], 200)}")
    else:
        lines.append("refused: none")
    return "\n".join(lines)
