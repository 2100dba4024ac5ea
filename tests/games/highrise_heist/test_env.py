"""Both modes through PettingZoo's test utilities, engine properties and random-play fuzzing."""

import copy
import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import sky_envs
from sky_envs import golden_rush_v0, highrise_heist_v0
from sky_envs.games.highrise_heist import GoldenRushGame, HighriseHeistGame
from sky_envs.games.highrise_heist.state import PLACE, cells_array, top_group

CONFIGS = [
    (highrise_heist_v0, {}),
    (highrise_heist_v0, {"max_turns": 40}),
    (golden_rush_v0, {}),
    (golden_rush_v0, {"mode": "teams"}),
    (golden_rush_v0, {"mode": "teams", "reward": "score"}),
    (golden_rush_v0, {"reward": "score"}),
]
IDS = ["heist", "heist-max40", "rush-ffa", "rush-teams", "rush-teams-score", "rush-ffa-score"]


@pytest.mark.parametrize("module, options", CONFIGS, ids=IDS)
def test_pettingzoo_api_seed_and_render(module, options):
    api_test(module.env(**options), num_cycles=200)
    seed_test(lambda: module.env(**options), num_cycles=60)
    render_test(lambda render_mode=None: module.env(render_mode=render_mode, **options))


def test_registered_under_both_spellings():
    for env_id, seats in (("highrise_heist", 2), ("golden_rush", 4)):
        env = pettingzoo.make("aec", f"sky_envs/{env_id}-v0")
        env.reset(seed=0)
        assert env.possible_agents == [f"player_{i}" for i in range(seats)]
        assert f"{env_id}_v0" in sky_envs.env_ids()
        assert sky_envs.make(f"{env_id}_v0").game.env_id == f"{env_id}_v0"
    assert highrise_heist_v0.raw_env().strict and not highrise_heist_v0.env().strict


def test_spaces_and_observation_bounds():
    for module, seats, n, shape in ((highrise_heist_v0, 2, 267, (10, 11, 14)), (golden_rush_v0, 4, 217, (9, 11, 26))):
        env = module.env()
        env.reset(seed=0)
        agent = env.agent_selection
        assert env.action_space(agent).n == n
        assert env.observation_space(agent)["observation"].shape == shape
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        assert env.observation_space(agent).contains(obs)


def random_play(game, seed, max_steps=10_000):
    """States of one seeded random game, first to last."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    yield state
    for _ in range(max_steps):
        if state.current_player < 0:
            return
        state.apply(int(rng.choice(state.legal_actions())))
        yield state


def fuzz(game, seeds):
    """Every game ends; heights stay in 0..11; closed stands never change; bookkeeping holds."""
    lengths = []
    for seed in seeds:
        closed_before: dict[int, list[int]] = {}
        queue_before: list[int] = []
        turn_before = 0
        previous = None  # (phase, closed_this_turn) before the last decision
        last = None
        for state in random_play(game, seed):
            last = state
            heights = [len(column) for column in state.stands]
            assert all(0 <= h <= 11 for h in heights)
            closed = {s: column[:] for s, column in enumerate(state.stands) if len(column) == 11}
            for s, column in closed_before.items():
                assert closed.get(s) == column, f"closed stand {s} changed (seed {seed})"
            assert state.turn >= turn_before and state.turn <= game.max_turns
            newly = len(closed) - len(closed_before)
            closed_before = closed
            if game.num_players == 2:  # one closure per turn: per decision, and none after a closing transfer
                assert newly <= 1 and not (previous == (PLACE, True) and newly), f"seed {seed}"
                previous = (state.phase, state.closed_this_turn)
            else:
                assert state.queue[:len(queue_before)] == queue_before
                queue_before = state.queue[:]
                caps = state.capacities()
                assert all(h <= cap for h, cap in zip(heights, caps))
            turn_before = state.turn
            assert state.groups == [top_group(column)[1] for column in state.stands]
            assert np.array_equal(state.cells, cells_array(state.stands))
        assert last.is_over() and last.current_player == -1
        lengths.append(last.turn)
    return lengths


@pytest.mark.parametrize("game", [HighriseHeistGame(), GoldenRushGame(), GoldenRushGame(mode="teams")],
                         ids=["heist", "rush-ffa", "rush-teams"])
def test_fuzz_random_games_end_and_keep_the_invariants(game):
    lengths = fuzz(game, range(25))
    assert max(lengths) < game.max_turns          # the defaults never cut a random game
    if game.num_players == 4:
        assert max(lengths) <= 99                  # every turn adds a block, 99 fill the cross


@pytest.mark.slow
@pytest.mark.parametrize("game", [HighriseHeistGame(), HighriseHeistGame(max_turns=25), GoldenRushGame(),
                                  GoldenRushGame(mode="teams", reward="score")])
def test_fuzz_long(game):
    fuzz(game, range(100, 1100))


def test_blocks_are_conserved_except_placements_and_trimming():
    for game in (HighriseHeistGame(), GoldenRushGame()):
        layout = game.layout
        for seed in range(6):
            rng = np.random.default_rng(seed)
            state = game.new_initial_state(rng)
            while state.current_player >= 0:
                before = sum(len(c) for c in state.stands)
                action = int(rng.choice(state.legal_actions()))
                trimmed = 0
                if action < layout.no_transfer:
                    a, b = divmod(action, layout.num_stands)
                    trimmed = max(0, len(state.stands[b]) + top_group(state.stands[a])[1] - 11)
                    assert game.num_players == 2 or trimmed == 0
                placed = sum(k for _, k in layout.placements[action - layout.single]) if layout.single <= action < layout.pair + 3 * len(layout.pairs) else 0
                state.apply(action)
                assert sum(len(c) for c in state.stands) == before + placed - trimmed


def test_clone_is_independent_and_play_is_deterministic():
    for game in (HighriseHeistGame(), GoldenRushGame()):
        texts = [[s.to_text() for s in random_play(game, 3)] for _ in range(2)]
        assert texts[0] == texts[1]
        state = game.new_initial_state(np.random.default_rng(0))
        for _ in range(30):
            state.apply(int(state.legal_actions()[-1]))
        text = state.to_text()
        twin = state.clone()
        while twin.current_player >= 0:
            twin.apply(int(twin.legal_actions()[0]))
        assert state.to_text() == text and twin.to_text() != text
        assert state.legal_mask().any() and not twin.legal_mask().any()


def test_env_deepcopy_pickle_and_position_reset():
    for module in (highrise_heist_v0, golden_rush_v0):
        env = module.env(render_mode="ansi")
        env.reset(seed=2)
        for _ in range(17):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
        twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
        for twin in twins:
            assert twin.unwrapped.game_state.to_text() == env.unwrapped.game_state.to_text()
            assert twin.render() == env.render()
        for e in [env, *twins]:
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
        assert len({e.unwrapped.game_state.to_text() for e in [env, *twins]}) == 1
        fresh = module.env()
        fresh.reset(options={"position": env.unwrapped.game_state.to_text()})
        assert fresh.agent_selection == env.agent_selection
        np.testing.assert_array_equal(fresh.observe(fresh.agent_selection)["observation"],
                                      env.observe(env.agent_selection)["observation"])


def test_observation_is_seat_relative():
    game = GoldenRushGame()
    state = game.state_from_text("\n".join(["0123", "1", "-", "-", "-", "-", "-", "-", "-", "to_move: 0",
                                            "phase: transfer", "turn: 0", "closed_this_turn: 0", "queue:"]))
    for seat in range(4):
        obs = state.observation(seat)
        assert obs[0, seat, 0] == 1 and obs[1, 0, (1 - seat) % 4] == 1   # own colour is channel 0
        assert obs[0, 0, 22] == (seat == 0)
    heist = HighriseHeistGame().state_from_text("\n".join(["br"] + ["-"] * 9 + ["to_move: 1", "phase: transfer",
                                                                              "turn: 1", "closed_this_turn: 0"]))
    mine, theirs = heist.observation(1), heist.observation(0)
    np.testing.assert_array_equal(mine[..., 0], theirs[..., 1])
    assert mine[0, 0, 11] == 1 and mine[0, 0, 8] == 1 and theirs[0, 0, 8] == 0
