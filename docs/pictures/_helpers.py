"""Shared by the picture modules: a position text as the env's ``rgb_array`` picture."""

from __future__ import annotations

import numpy as np

import sky_envs


def position_picture(env_id: str, text: str, **options) -> np.ndarray:
    """The picture ``render_mode="rgb_array"`` shows of the position ``text``."""
    game = sky_envs.make_game(env_id, **options)
    return game.render_rgb(game.state_from_text(text))
