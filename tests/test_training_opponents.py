"""The greedy baseline as a training opponent: its all-at-once move scoring gives exactly
the values of playing each move on a clone."""

import numpy as np

from sky_envs.agents import GreedyAgent
from sky_envs.agents.heuristics import ACTION_VALUES
from sky_envs.core.registry import make_game

OPTIONS = {"board": "square", "rows": 4, "cols": 4, "positioning": "random"}


def test_greedy_scores_every_move_at_once_exactly_as_playing_each_one():
    checked = 0
    for options in (OPTIONS, {"players": 4}, {"board": "random", "rows": 5, "cols": 6, "positioning": "random",
                                              "lines": "orthogonal"}, {"positioning": "strategic"}):
        game = make_game("sky_scrapers_v0", **options)
        rng = np.random.default_rng(7)
        for _ in range(6):
            state = game.new_initial_state(rng)
            while state.current_player >= 0:
                legal = state.legal_actions()
                fast = ACTION_VALUES["sky_scrapers"](state, state.current_player, legal)
                if fast is not None:
                    assert np.array_equal(fast, GreedyAgent.played_values(state, state.current_player, legal))
                    checked += 1
                state.apply(int(legal[rng.integers(legal.size)]))
    assert checked > 100
