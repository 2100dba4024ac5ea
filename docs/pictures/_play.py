"""Shared by the picture modules of Highrise Heist, Golden Rush and Sky Towers: positions
reached by playing moves in notation from a position text."""

from __future__ import annotations

import numpy as np

import sky_envs


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
