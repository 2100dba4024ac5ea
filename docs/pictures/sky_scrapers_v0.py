"""Pictures of the Sky Scrapers page (docs/envs/sky_scrapers_v0.md): positions of the
recorded game docs/replays/sky_scrapers_v0.json, replayed move by move, and the starts of
the options that change the board or the set-up."""

from __future__ import annotations

import numpy as np

import sky_envs
from _helpers import replay_states

ENV_ID = "sky_scrapers_v0"

# strategic positioning on a 4x4 board: the placements made so far, in turn order
PLACEMENTS = ["+b2", "+c3", "+c2", "+b3", "+a1", "+d4"]


def _start(seed: int = 0, **options):
    game = sky_envs.make_game(ENV_ID, **options)
    return game, game.new_initial_state(np.random.default_rng(seed))


def pictures() -> dict:
    game = sky_envs.make_game(ENV_ID)
    states = replay_states(game)
    out = {
        "start": game.render_rgb(states[0]),
        "first_move": game.render_rgb(states[1]),       # after c5>N
        "stack_move_before": game.render_rgb(states[6]),  # player_0 to play b5>NE
        "stack_move_after": game.render_rgb(states[7]),
        "final": game.render_rgb(states[-1]),
    }
    strategic, state = _start(board="square", rows=4, cols=4, positioning="strategic")
    for text in PLACEMENTS:
        state.apply(state.string_to_action(text))
    out["strategic_placement"] = strategic.render_rgb(state)
    random_game, state = _start(seed=3, board="random", rows=6, cols=7, positioning="random")
    out["random_board"] = random_game.render_rgb(state)
    hex_game, state = _start(board="square", rows=5, cols=5, lines="hex", positioning="random")
    out["hex_board"] = hex_game.render_rgb(state)
    four, state = _start(players=4)
    out["four_players"] = four.render_rgb(state)
    return out
