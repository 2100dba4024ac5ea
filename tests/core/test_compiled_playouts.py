"""Random playouts in the games' compiled engines (``GameState.playout_returns``,
``BatchedGames.play_out``) against the readable reference (``GameState.random_playout``):
the same draw from the generator gives the same moves and the same returns, bit for bit
(Sky Towers' chance draws included: the slot takes over the state's own generator),
from every kind of position of every option kind the engines play, with and without a cap
on the plies; the position played out is left as it is; MCTS then picks the same moves
whichever engine plays its playouts."""

import numpy as np
import pytest

import sky_envs
from sky_envs.agents import make_agent
from sky_envs.core import state as core_state

COMPILED = [
    ("sky_scrapers_v0", {}),
    ("sky_scrapers_v0", {"board": "random", "rows": 6, "cols": 6, "positioning": "random", "lines": "all"}),
    ("sky_scrapers_v0", {"players": 4, "rows": 8, "cols": 8}),
    ("sky_scrapers_v0", {"board": "square", "lines": "hex", "rows": 5, "cols": 5, "positioning": "strategic"}),
    ("highrise_heist_v0", {}),
    ("golden_rush_v0", {}),
    ("golden_rush_v0", {"mode": "teams"}),
    ("scala_v0", {}),
    ("scala_v0", {"split_rule": "illegal"}),
    ("sky_towers_v0", {}),
    ("sky_towers_v0", {"players": 4}),
]
IDS = [f"{env}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}" for env, options in COMPILED]


def positions(game, games, seed):
    """Every third position of ``games`` random games (the first one included)."""
    rng = np.random.default_rng(seed)
    found = []
    for number in range(games):
        state = game.new_initial_state(np.random.default_rng(seed + number))
        ply = 0
        while state.current_player >= 0:
            if ply % 3 == 0:
                found.append(state.clone())
            state.apply(int(rng.choice(state.legal_actions())))
            ply += 1
    return found


@pytest.mark.parametrize("env_id, options", COMPILED, ids=IDS)
def test_compiled_playouts_end_as_the_reference_ones(env_id, options):
    game = sky_envs.make_game(env_id, **options)
    assert game.playout_engine() is game.playout_engine() is not None    # made once, kept
    draws = np.random.default_rng(5)
    checked = 0
    for state in positions(game, 3 if env_id in ("scala_v0", "sky_towers_v0") else 6, seed=11):
        text = state.to_text()
        for cap in (None, 1, 7):
            seed = int(draws.integers(1 << 62))
            reference = state.clone().random_playout(np.random.default_rng(seed), cap)
            compiled = state.playout_returns(np.random.default_rng(seed), cap)
            assert compiled.dtype == np.float64 and np.array_equal(compiled, reference), (text, cap)
            checked += 1
        assert state.to_text() == text
    assert checked > 60


PYTHON_ONLY = [("skybridge_v0", {}), ("golden_rush_v0", {"reward": "score"})]


@pytest.mark.parametrize("env_id, options", PYTHON_ONLY, ids=["skybridge", "golden_rush-score"])
def test_games_without_compiled_playouts_play_them_on_a_copy(env_id, options):
    """Skybridge's compiled playouts were no faster than its Python ones, and Golden Rush's
    score rewards are float32 in the kernel: these play out their states in Python."""
    game = sky_envs.make_game(env_id, **options)
    assert game.playout_engine() is None
    state = game.new_initial_state(np.random.default_rng(3))
    text = state.to_text()
    returns = state.playout_returns(np.random.default_rng(4))
    assert state.to_text() == text
    assert np.array_equal(returns, state.clone().random_playout(np.random.default_rng(4)))
    consumed = state.clone()
    assert np.array_equal(consumed.playout_returns(np.random.default_rng(4), consume=True), returns)
    assert consumed.current_player < 0


def test_an_engine_without_playouts_says_so():
    engine = sky_envs.make_game("skybridge_v0").batched_games(1)
    with pytest.raises(ValueError, match="plays no playouts"):
        engine.play_out(None, 0)


@pytest.mark.parametrize("env_id", ["highrise_heist_v0", "golden_rush_v0", "sky_scrapers_v0", "scala_v0", "sky_towers_v0"])
def test_mcts_picks_the_same_moves_with_either_engine(env_id, monkeypatch):
    game = sky_envs.make_game(env_id)
    states = positions(game, 2, seed=21)[::4][:12]

    def moves():
        return [make_agent("mcts@60", seed=k, env_id=env_id).act({}, state.clone()) for k, state in enumerate(states)]

    compiled = moves()
    monkeypatch.setattr(core_state.Game, "playout_engine", lambda self: None)
    assert moves() == compiled
