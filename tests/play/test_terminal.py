"""The terminal front end: scripted keyboards play whole games in every env."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sky_envs
from sky_envs.core.state import IllegalActionError
from sky_envs.play.__main__ import main
from sky_envs.play.board import board_view_of
from sky_envs.play.session import PlaySession
from sky_envs.play.terminal import notation_help, run_terminal

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


def well_formed_illegal_move(state) -> str:
    """A move in the notation that parses but is not legal here."""
    for action in np.flatnonzero(~state.legal_mask()):
        text = state.action_to_string(int(action))
        try:
            state.string_to_action(text)
        except IllegalActionError:
            return text
        except ValueError:
            continue
    raise AssertionError("no well-formed illegal move found")


class Keyboard:
    """A player who first mistypes, then tries an illegal move, asks for help, a hint and the
    move list, takes a move back, and otherwise plays the middle legal move."""

    def __init__(self, session: PlaySession):
        self.session, self.typed, self.output, self.undone = session, [], [], False
        self.opening = ["xyzzy", None, "help", "hint", "moves", "board"]

    def read(self, prompt: str) -> str:
        if self.opening:
            line = self.opening.pop(0)
            line = well_formed_illegal_move(self.session.state) if line is None else line
        elif any(m.by == "human" for m in self.session.moves) and not self.undone:
            line, self.undone = "undo", True
        else:
            moves = self.session.legal_moves()
            line = moves[len(moves) // 2][1]
        self.typed.append(line)
        return line

    def write(self, text: str) -> None:
        self.output.append(text)


@pytest.mark.parametrize("env_id", BUILTIN)
def test_a_scripted_player_finishes_a_game_through_the_terminal_loop(env_id):
    session = PlaySession(env_id, opponent="random", human_seats=[0], seed=4)
    keyboard = Keyboard(session)
    result = run_terminal(session, keyboard.read, keyboard.write)
    text = "\n".join(keyboard.output)
    assert result == session.result() and session.is_over
    assert "Game over:" in text
    assert board_view_of(session.game).result_words(session.state) in text    # who won and why
    assert "not understood: 'xyzzy' is not a move" in text and "expected" in text
    assert "illegal move:" in text
    assert "Commands:" in text and "Move notation" in text and "### Move notation" not in text
    assert "hint: random would play" in text and "legal moves:" in text
    assert "took back your last move" in text
    assert any(m.by == "human" for m in session.moves)


def test_hot_seat_save_and_load(tmp_path):
    session = PlaySession("skybridge_v0", {"players": 3}, opponent="greedy", human_seats=[0, 1], seed=0)
    seats_asked, script = [], iter(["T0a1", f"save {tmp_path / 'p.txt'}", "T1a1", "T1c3", "save", "load " + str(tmp_path / "p.txt"),
                                    "load", "bad position", "", "quit"])
    output = []

    def read(prompt):
        seats_asked.append(prompt)
        return next(script)

    assert run_terminal(session, read, output.append) is None
    text = "\n".join(output)
    assert {"player_0> ", "player_1> "} <= set(seats_asked)
    assert "illegal move: T1a1" in text    # a block goes on the lowest level, and a1 is 3 high
    assert "position saved to" in text and "position loaded" in text and "could not load the position" in text
    saved = (tmp_path / "p.txt").read_text()
    assert session.game.state_from_text(saved).to_text() == saved.strip()


def test_the_cli_refuses_bad_arguments_before_playing(capsys):
    for argv in (["--env", "nope_v0"], ["--env", "scala_v0", "--seat", "5"], ["--opponent", "wizard"],
                 ["--option", "players=9", "--env", "sky_towers_v0"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_python_m_sky_envs_play_runs_a_hot_seat_game_from_piped_stdin():
    script = PlaySession("sky_scrapers_v0", human_seats=[0, 1])
    lines = ["oops", "a1>N"]
    while not script.is_over:
        lines.append(script.legal_moves()[-1][1])
        script.play(lines[-1])
    run = subprocess.run([sys.executable, "-m", "sky_envs.play", "--env", "sky_scrapers_v0", "--seat", "0", "--seat", "1"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "not understood: 'oops'" in run.stdout and "illegal move: a1>N" in run.stdout
    assert f"Game over: {script.result()}" in run.stdout


def test_every_env_documents_its_notation():
    for env_id in BUILTIN:
        assert notation_help(env_id).startswith("### Move notation")


def test_a_registered_third_party_game_is_playable_through_the_default_notation():
    from tests.tiny_game import NimGame

    sky_envs.register("tiny_nim_v0", NimGame, overwrite=True)
    session = PlaySession("tiny_nim_v0", opponent="random", seed=0)
    output, script = [], iter(["help", "nonsense"])

    def read(prompt):
        return next(script, None) or session.legal_moves()[0][1]

    assert run_terminal(session, read, output.append) == session.result()
    assert notation_help("tiny_nim_v0") == "" and "not understood: 'nonsense'" in "\n".join(output)
