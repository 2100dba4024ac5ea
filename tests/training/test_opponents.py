"""Training opponents: batched policy decisions are legal and match the policy, and the greedy
baseline's all-at-once move scoring gives exactly the values of playing each move on a clone."""

import numpy as np
import pytest
import torch

from sky_envs.agents import GreedyAgent, PolicyAgent
from sky_envs.core.registry import make_game
from tests.training.training_support import TINY, one_torch_thread, random_policy  # noqa: F401 (an autouse fixture)
from training.actors import PolicyActor, sample_masked

OPTIONS = TINY["env.options"]


def random_game_positions(game, rng: np.random.Generator, games: int, limit: int | None = None) -> list:
    """Every position (a clone) where a seat decides, in ``games`` games of random moves
    (stopping at ``limit`` positions)."""
    states = []
    for _ in range(games):
        if limit is not None and len(states) >= limit:
            break
        state = game.new_initial_state(rng)
        while state.current_player >= 0 and (limit is None or len(states) < limit):
            states.append(state.clone())
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
    return states


def test_batched_opponents_never_choose_a_masked_action():
    game = make_game("sky_scrapers_v0", **OPTIONS)
    policy = random_policy(game)
    with torch.no_grad():  # make the network prefer illegal actions by far
        policy.action_net.bias.copy_(torch.linspace(50.0, -50.0, game.num_actions))
    states = random_game_positions(game, np.random.default_rng(0), games=10_000, limit=400)
    for deterministic in (False, True):
        actions = PolicyActor(policy, deterministic=deterministic, seed=1).act(states)
        assert all(state.legal_mask()[a] for state, a in zip(states, actions))
    # a legal action so unlikely that its probability underflows beside another legal one
    logits = torch.tensor([[-torch.inf, 0.0, -200.0, -torch.inf]] * 1000)
    assert set(sample_masked(logits, np.random.default_rng(3)).tolist()) == {1}


def test_policy_actor_plays_the_policy():
    game = make_game("sky_scrapers_v0", **OPTIONS)
    policy = random_policy(game, seed=4)
    with torch.no_grad():  # a distribution far from uniform, so that a wrong sampler shows
        policy.action_net.bias.copy_(torch.linspace(-3.0, 3.0, game.num_actions))
    rng = np.random.default_rng(1)
    states = [game.new_initial_state(rng) for _ in range(20)]
    agent = PolicyAgent(policy, deterministic=True)
    chosen = PolicyActor(policy, deterministic=True).act(states)
    for state, action in zip(states, chosen):  # the most likely action, as the single-game agent plays
        observation = {"observation": state.observation(state.current_player),
                       "action_mask": state.legal_mask().astype(np.int8)}
        assert agent.act(observation) == action
    state = states[0]
    drawn = PolicyActor(policy, seed=2).act([state] * 20_000)
    distribution = policy.get_distribution(torch.as_tensor(state.observation(state.current_player)[None]),
                                           action_masks=state.legal_mask()[None].copy())
    expected = distribution.distribution.probs[0].detach().numpy()
    assert np.abs(np.bincount(drawn, minlength=game.num_actions) / 20_000 - expected).max() < 0.015


def _takes_a_tallest_sky_scraper(state, action: int) -> bool:
    """Whether ``action`` lands on the tallest of a seat's two or more sky scrapers (the one
    case where the move values count that seat's sky scrapers again)."""
    target = state.landing[action // 8, action % 8]
    colour, height = state.tops[target], state.heights[target]
    built = state.heights[:-1][(state.tops == colour) & (state.heights[:-1] >= state.game.skyscraper_height)]
    return colour in state.seat_colours and height >= state.game.skyscraper_height and built.size > 1 \
        and height == built.max()


def test_greedy_scores_every_move_at_once_exactly_as_playing_each_one():
    checked = taken = 0
    for options in (OPTIONS, {"players": 4}, {"board": "random", "rows": 5, "cols": 6, "positioning": "random",
                                              "lines": "orthogonal"}, {"positioning": "strategic"},
                    {"board": "random", "rows": 7, "cols": 7, "lines": "hex", "positioning": "random",
                     "skyscraper_height": 3},
                    {"players": 4, "board": "square", "rows": 6, "cols": 6, "positioning": "random",
                     "skyscraper_height": 2}):
        game = make_game("sky_scrapers_v0", **options)
        # positions of several games (random boards: several boards at once)
        states = random_game_positions(game, np.random.default_rng(7), games=6)
        for state, fast in zip(states, game.heuristic.move_values(states)):
            if fast is not None:
                legal = state.legal_actions()
                assert np.array_equal(fast, GreedyAgent.played_values(state, state.current_player, legal))
                checked += 1
                taken += any(_takes_a_tallest_sky_scraper(state, int(action)) for action in legal)
    assert checked > 100 and taken > 10


@pytest.mark.parametrize("env_id, options", [
    ("highrise_heist_v0", {}),
    ("golden_rush_v0", {"mode": "teams", "reward": "win"}),
    ("golden_rush_v0", {"mode": "ffa", "reward": "score"}),
])
def test_stack_games_greedy_values_from_arrays_are_those_of_playing_each_move(env_id, options):
    game = make_game(env_id, **options)
    # every position of several random games: closures, eligibility and game ends included
    states = random_game_positions(game, np.random.default_rng(11), games=4)
    for state, fast in zip(states, game.heuristic.move_values(states)):
        legal = state.legal_actions()
        assert np.array_equal(fast, GreedyAgent.played_values(state, state.current_player, legal))
    last = states[-1]  # the last decision of the last game: some move of it ends the game
    ending = 0
    for action in last.legal_actions().tolist():
        child = last.clone()
        child.apply(action)
        ending += child.is_terminal()
    assert len(states) > 200 and ending > 0


@pytest.mark.parametrize("options", [{}, {"players": 3}, {"players": 4, "reward": "score"},
                                     {"variant": "classic"}, {"rows": 2, "cols": 4, "tall": 1, "short": 1}],
                         ids=["seed", "seed 3 seats", "seed 4 seats score", "classic", "2x4 few blocks"])
def test_skybridge_greedy_values_from_the_towers_tops_are_those_of_playing_each_move(options):
    game = make_game("skybridge_v0", **options)
    states = random_game_positions(game, np.random.default_rng(13), games=5)
    for state, fast in zip(states, game.heuristic.move_values(states)):
        legal = state.legal_actions()
        assert np.array_equal(fast, GreedyAgent.played_values(state, state.current_player, legal)), state.to_text()
    ending = 0                      # the last decision of the last game: some move of it ends the game
    for action in states[-1].legal_actions().tolist():
        child = states[-1].clone()
        child.apply(action)
        ending += child.is_terminal()
    assert len(states) > 40 and ending > 0


def test_greedy_decides_many_games_as_it_decides_each():
    game = make_game("sky_scrapers_v0", board="random", rows=6, cols=6, positioning="random")
    rng = np.random.default_rng(3)
    states = [game.new_initial_state(rng) for _ in range(30)]
    for state in states[::2]:  # some past the colour choice, in the move phase
        state.apply(int(state.legal_actions()[0]))
    together = GreedyAgent(seed=5).act_many(states)
    one_by_one = GreedyAgent(seed=5)
    assert together == [one_by_one.act({"action_mask": s.legal_mask()}, s) for s in states]
