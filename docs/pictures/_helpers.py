"""Shared by the picture modules: positions from a position text, from moves played in
notation, or from the recorded game in docs/replays/, as the env's ``rgb_array`` pictures."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import sky_envs
from sky_envs.core.replay_file import load_replay, positions

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def position_picture(env_id: str, text: str, **options) -> np.ndarray:
    """The picture ``render_mode="rgb_array"`` shows of the position ``text``."""
    game = sky_envs.make_game(env_id, **options)
    return game.render_rgb(game.state_from_text(text))


def played(env_id: str, text: str, moves: list[str] = (), **options):
    """The game and the state after ``moves`` (notation) from the position ``text``."""
    game = sky_envs.make_game(env_id, **options)
    state = game.state_from_text(text, np.random.default_rng(0))
    for move in moves:
        state.apply(state.string_to_action(move))  # string_to_action refuses an illegal move
    return game, state


def played_picture(env_id: str, text: str, moves: list[str] = (), **options) -> np.ndarray:
    """The ``rgb_array`` picture of the position after ``moves`` from ``text``."""
    game, state = played(env_id, text, moves, **options)
    return game.render_rgb(state)


def replay_states(game) -> list:
    """Every position of the recorded game ``docs/replays/<env_id>.json`` (made with
    ``game``'s options), the start first, checked move by move as ``sky_envs.replay`` does."""
    return [state for state, _ in positions(load_replay(REPLAYS / f"{game.env_id}.json"))]
