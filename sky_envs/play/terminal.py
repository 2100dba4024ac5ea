"""The terminal front end: a :class:`PlaySession` driven by typed commands.

The loop reads lines through ``read(prompt)`` and writes through ``write(text)`` (``input``
and ``print`` by default), so scripts and tests drive it like a person at a keyboard.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sky_envs.core.state import IllegalActionError
from sky_envs.play.board import board_view_of
from sky_envs.play.session import PlaySession

SHOWN_MOVES = 60   # longer legal-move lists are cut (``moves`` prints them all)

HELP = """Commands:
  <move>        play a move in the game's notation (the legal moves are listed)
  moves         list every legal move
  board         show the position again
  undo          take back your last move (and the answers to it)
  hint          what the opponent agent would play here
  save [FILE]   write the position text to FILE (without FILE: print it)
  load [FILE]   continue from the position text in FILE (without FILE: paste it, end with an empty line)
  help          this text, the rules in short and the game's notation
  quit          leave the game"""


def notation_help(env_id: str) -> str:
    """The "Move notation" section of a built-in env's docstring ('' for other games)."""
    import importlib

    try:
        doc = importlib.import_module(f"sky_envs.{env_id}").__doc__ or ""
    except ImportError:     # a game registered from elsewhere: its notation is its action_to_string
        return ""
    start = doc.find("### Move notation")
    if start < 0:
        return ""
    end = doc.find("\n### ", start + 1)
    return doc[start:end if end > 0 else None].strip()


def plain_text(markdown: str) -> str:
    """Markdown as the terminal shows it: no ``**``, backticks or heading marks."""
    import re

    text = re.sub(r"\*\*(.+?)\*\*", r"\1", markdown)
    text = re.sub(r"``?([^`]+)``?", r"\1", text)
    text = re.sub(r"^#{1,6}\s+", "", text, flags=re.MULTILINE)
    return text.strip()


def rules_help(session: PlaySession) -> str:
    """The help text's game part: the rules summary, the notation and the docs page."""
    try:
        rules = plain_text(session.game.rules_summary())
    except FileNotFoundError:
        rules = ""
    parts = [rules, plain_text(notation_help(session.env_id)),
             f"More: the docs page docs/envs/{session.env_id}.md of the project docs."]
    return "\n\n".join(part for part in parts if part)


def move_list(session: PlaySession, limit: int | None = SHOWN_MOVES) -> str:
    texts = [text for _, text in session.legal_moves()]
    shown = texts if limit is None else texts[:limit]
    more = f" ... and {len(texts) - len(shown)} more (type 'moves')" if len(shown) < len(texts) else ""
    return "  ".join(shown) + more


def run_terminal(session: PlaySession, read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print) -> str | None:
    """Play ``session`` to its end; the result line, or ``None`` if the player quit (or the
    input ended)."""
    humans = ", ".join(f"player_{s}" for s in session.human_seats)
    write(f"{session.env_id}: {humans} (you) against {session.opponent}. Type 'help' for the commands.")
    show_board = True
    while True:
        for move in session.advance():
            write(f"player_{move.seat} ({move.by}) plays {move.text}")
            show_board = True
        if session.is_over:
            write(session.render_text())
            write(f"Game over: {session.result()}; rewards {session.scores}")
            why = board_view_of(session.game).result_words(session.state)
            if why:
                write(why)
            return session.result()
        if show_board:
            write(session.render_text())
            write(f"legal moves: {move_list(session)}")
            show_board = False
        try:
            line = read(f"player_{session.current_seat}> ")
        except EOFError:
            write("end of input: leaving the game")
            return None
        command, _, argument = line.strip().partition(" ")
        argument = argument.strip()
        word = command.lower()
        if not command:
            continue
        if word in ("quit", "exit"):
            write("leaving the game")
            return None
        if word == "help":
            write(HELP + "\n\n" + rules_help(session))
        elif word == "moves":
            write(f"legal moves: {move_list(session, None)}")
        elif word == "board":
            show_board = True
        elif word == "undo":
            show_board = session.undo()
            write("took back your last move" if show_board else "there is no move of yours to take back")
        elif word == "hint":
            write(f"hint: {session.opponent} would play {session.hint()[1]}")
        elif word == "save":
            text = session.position_text()
            if argument:
                Path(argument).write_text(text + "\n")
                write(f"position saved to {argument}")
            else:
                write(text)
        elif word == "load":
            show_board = _load(session, argument, read, write)
        else:
            show_board = _play(session, line, write)


def _play(session: PlaySession, text: str, write: Callable[[str], None]) -> bool:
    try:
        move = session.play(text)
    except IllegalActionError as error:
        write(f"illegal move: {error}. Try again ('moves' lists the legal ones).")
        return False
    except ValueError as error:
        write(f"not understood: {error}. Type 'help' for the commands and the notation.")
        return False
    write(f"player_{move.seat} (you) plays {move.text}")
    return True


def _load(session: PlaySession, path: str, read: Callable[[str], str], write: Callable[[str], None]) -> bool:
    try:
        if path:
            text = Path(path).read_text()
        else:
            write("paste the position text, then an empty line:")
            lines = []
            while (line := read("")).strip():
                lines.append(line)
            text = "\n".join(lines)
        session.load_position(text)
    except (OSError, EOFError, ValueError) as error:
        write(f"could not load the position: {error}")
        return False
    write("position loaded")
    return True
