"""Playouts of search leaves: greedy ones follow the greedy agent's move values, end games
as the rules do, and are refused where a game has no move values; Sky Scrapers' compiled
greedy playouts (``BatchedGames.greedy_play_out``) make the readable ones' moves and results
bit for bit. (What they are worth is measured by evaluation: Sky Scrapers'
``checkpoints/sky_scrapers_v0/report_search200*.json``.)"""

import numpy as np
import pytest

import sky_envs
from sky_envs.agents import SearchAgent
from sky_envs.agents.playouts import greedy_playouts, playout_error, playouts
from sky_envs.agents.search import PUCTSearch, search_setting_error
from sky_envs.core import state as core_state
from sky_envs.games.sky_scrapers.heuristic import SkyScrapersHeuristic
from tests.agents.test_search import OPTIONS, evaluator_for, random_positions
from tests.core.test_compiled_playouts import positions

GREEDY_GAMES = [("sky_scrapers_v0", OPTIONS), ("highrise_heist_v0", {}), ("golden_rush_v0", {})]


@pytest.mark.parametrize("env_id, options", GREEDY_GAMES, ids=[env for env, _ in GREEDY_GAMES])
def test_a_greedy_playout_without_exploration_plays_only_best_rated_moves(env_id, options, monkeypatch):
    """With epsilon 0 every move of the playout is one the move values rate best (the
    greedy agent's choice up to ties), and the playout ends the game with the rules' returns."""
    game = sky_envs.make_game(env_id, **options)
    rated = game.heuristic.move_values
    decisions = []  # (legal actions, their values) of each decision, then the action played

    def recording_values(states):
        values = rated(states)
        decisions.append([states[0].legal_actions(), values[0], None])
        return values

    monkeypatch.setattr(game.heuristic, "move_values", recording_values)
    state_class = type(game.new_initial_state(np.random.default_rng(0)))
    apply = state_class.apply_unchecked

    def recording_apply(self, action):
        if decisions and decisions[-1][2] is None:
            decisions[-1][2] = int(action)
        apply(self, action)

    monkeypatch.setattr(state_class, "apply_unchecked", recording_apply)
    for state in random_positions(game, 3, 4, seed=3):
        decisions.clear()
        returns, = greedy_playouts([state], np.random.default_rng(0), epsilon=0.0)
        assert state.current_player < 0 and np.array_equal(returns, state.returns())
        assert decisions
        for legal, values, action in decisions:
            if values is not None:  # a decision the values cover: a best-rated move
                assert values[np.flatnonzero(legal == action)[0]] == values.max()


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_playouts_played_together_end_as_each_played_alone(kind):
    """Each playout draws its own stream first: batching (one move-values call per ply for
    all) changes nothing, the same generator state gives the same ends, and the states
    played out from are left as they are."""
    game = sky_envs.make_game("sky_scrapers_v0", **OPTIONS)
    states = random_positions(game, 6, 2, seed=4)
    texts = [state.to_text() for state in states]
    returns = playouts(states, kind, np.random.default_rng(9))
    assert [state.to_text() for state in states] == texts
    rng = np.random.default_rng(9)
    for state, result in zip(states, returns):
        assert np.array_equal(playouts([state], kind, rng)[0], result)
    if kind == "random":  # random playouts are the state's own
        assert np.array_equal(playouts([states[0]], kind, np.random.default_rng(9))[0],
                              states[0].clone().random_playout(np.random.default_rng(9)))


def test_greedy_playouts_are_refused_where_the_game_has_no_move_values():
    game, evaluator = evaluator_for("sky_towers_v0", spec={"kind": "mlp", "hidden": [16]})
    assert "sky_towers has not" in playout_error("greedy", game)
    assert playout_error("random", game) is None
    state = random_positions(game, 1, 2, seed=0)[0]
    with pytest.raises(ValueError, match="greedy playouts need the game's array move values"):
        PUCTSearch(evaluator, 8, rollout_weight=0.5, rollout_policy="greedy").run([state])
    # without playouts the setting is never used, so nothing to refuse
    PUCTSearch(evaluator, 8, rollout_policy="greedy").run([state])


@pytest.mark.parametrize("kind", ["greedy ", "GREEDY", None, 1])
def test_an_unknown_rollout_policy_is_refused(kind):
    assert "rollout_policy must be one of random, greedy" in search_setting_error("rollout_policy", kind)
    _, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    with pytest.raises(ValueError, match="rollout_policy must be one of"):
        PUCTSearch(evaluator, 8, rollout_policy=kind)


def test_search_with_greedy_playouts_plays_legal_moves_and_visits_the_budget():
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    states = random_positions(game, 3, 3, seed=6)
    search = PUCTSearch(evaluator, 24, rollout_weight=0.5, rollout_policy="greedy", rng=np.random.default_rng(1))
    for state, (actions, visits, value) in zip(states, search.run(states)):
        assert visits.sum() == 24 and np.array_equal(actions, state.legal_actions()) and -1 <= value <= 1
    agent = SearchAgent(evaluator.policy, simulations=16, rollout_weight=1.0, rollout_policy="greedy", seed=0)
    assert agent.act({}, states[0]) in states[0].legal_actions()


#: Sky Scrapers option kinds the compiled greedy playouts must follow: random boards and
#: set-ups (placement and colour-choice decisions), four seats, hex lines, low sky scrapers
#: (captured tallest ones), a max_turns cut
COMPILED_GREEDY = [
    {},
    {"board": "random", "rows": 6, "cols": 6, "positioning": "random", "lines": "all"},
    {"players": 4, "rows": 8, "cols": 8},
    {"players": 4, "board": "random", "rows": 9, "cols": 9, "lines": "hex", "positioning": "strategic"},
    {"board": "square", "rows": 5, "cols": 5, "positioning": "random", "lines": "orthogonal", "skyscraper_height": 2},
    {"positioning": "strategic", "max_turns": 12},
]


@pytest.mark.parametrize("options", COMPILED_GREEDY, ids=[str(options) or "default" for options in COMPILED_GREEDY])
def test_compiled_greedy_playouts_end_as_the_readable_ones(options):
    """From every third position of random games, with no, some and much exploration: the
    engine's playout of ``random.Random(seed)`` returns what ``greedy_playouts`` returns for
    a generator whose first draw is ``seed``, and ``playouts`` (which plays them there) leaves
    the states as they are and draws from its generator as ``greedy_playouts`` does."""
    game = sky_envs.make_game("sky_scrapers_v0", **options)
    engine = game.playout_engine()
    assert engine.plays_greedy_out
    draws, checked, wins = np.random.default_rng(5), 0, 0
    states = positions(game, 3, seed=13)
    for state in states:
        for epsilon in (0.0, 0.1, 0.7):
            generator_seed = int(draws.integers(1 << 62))
            reference, = greedy_playouts([state.clone()], np.random.default_rng(generator_seed), epsilon)
            seed = int(np.random.default_rng(generator_seed).integers(1 << 62))
            compiled = engine.greedy_play_out(state, seed, epsilon)
            assert compiled.dtype == np.float64 and np.array_equal(compiled, reference), (state.to_text(), epsilon)
            checked += 1
            wins += bool(reference.any())
    texts = [state.to_text() for state in states]
    rng, reference_rng = np.random.default_rng(8), np.random.default_rng(8)
    together = playouts(states, "greedy", rng)
    assert [state.to_text() for state in states] == texts
    expected = greedy_playouts([state.clone() for state in states], reference_rng)
    assert all(np.array_equal(a, b) for a, b in zip(together, expected))
    assert rng.bit_generator.state == reference_rng.bit_generator.state
    assert checked > 30 and (wins > 0 or "max_turns" in options)


def test_a_search_with_greedy_playouts_is_the_same_whichever_engine_plays_them(monkeypatch):
    game, evaluator = evaluator_for("sky_scrapers_v0", {"players": 4, "board": "square", "rows": 6, "cols": 6,
                                                       "positioning": "random"})
    states = random_positions(game, 4, 6, seed=2)

    def searched():
        search = PUCTSearch(evaluator, 40, rollout_weight=0.5, rollout_policy="greedy", rng=np.random.default_rng(3))
        return [(actions.tolist(), visits.tolist(), value) for actions, visits, value in search.run(states)]

    compiled = searched()
    monkeypatch.setattr(core_state.Game, "playout_engine", lambda self: None)
    assert searched() == compiled


def test_a_game_given_another_heuristic_plays_its_greedy_playouts_in_python():
    """The kernel compiles Sky Scrapers' own judgement: another heuristic's move values are
    asked in Python (here one that prefers the lowest-numbered move)."""

    class FirstMove(SkyScrapersHeuristic):
        def move_values(self, states):
            return [None if values is None else -np.arange(values.size, dtype=float)
                    for values in super().move_values(states)]

    game = sky_envs.make_game("sky_scrapers_v0", **OPTIONS)
    game.heuristic = FirstMove()
    assert not game.playout_engine().plays_greedy_out
    with pytest.raises(ValueError, match="plays no greedy playouts"):
        game.playout_engine().greedy_play_out(random_positions(game, 1, 2, seed=0)[0], 0, 0.1)
    states = random_positions(game, 3, 6, seed=1)
    assert states[0].phase == "move"
    expected = greedy_playouts([state.clone() for state in states], np.random.default_rng(4), epsilon=0.1)
    together = playouts(states, "greedy", np.random.default_rng(4))
    assert all(np.array_equal(a, b) for a, b in zip(together, expected))
