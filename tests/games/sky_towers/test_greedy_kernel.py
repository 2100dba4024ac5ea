"""The greedy baseline's compiled moves (``sky_towers/greedy_kernel.py``) against its Python
reference (``GreedyAgent.act_on_a_world``: a dealt world, each action on a clone), bit for bit:
the same action in every position and the agent's generator in the same state after each
decision, over random play with 2 to 4 seats, decks where bonuses are won, full rows and
``max_turns`` cuts; the three ways a greedy opponent reaches it (a vector env's slots, plain
states, the self-play collector) agree."""

from __future__ import annotations

import numpy as np
import pytest

from sky_envs import make_game, vector
from sky_envs.agents.baselines import GreedyAgent
from sky_envs.core.state import Heuristic
from sky_envs.integrations.actors import AgentActor, SlotStates
from tests.games.sky_towers.test_batched import CASES

ENV = "sky_towers_v0"


def walk(options: dict, num_envs: int, steps: int, seed: int):
    """A vector env's batches over random play: (venv, slots waiting on a decision) per step."""
    venv = vector.make(ENV, num_envs, seed=seed, **options)
    batch, rng = venv.reset(), np.random.default_rng(seed)
    for _ in range(steps):
        yield venv, np.flatnonzero(rng.random(num_envs) < 0.6)
        batch = venv.step(vector.random_actions(batch.action_mask, rng))


@pytest.mark.parametrize("options", CASES.values(), ids=CASES.keys())
def test_compiled_greedy_moves_are_the_python_agents_bit_for_bit(options):
    reference, compiled = GreedyAgent(seed=7), GreedyAgent(seed=7)
    decisions = ties = 0
    for venv, slots in walk(options, num_envs=8, steps=120, seed=3):
        states = [venv.game_state(int(i)) for i in slots]
        expected = [reference.act_on_a_world(state) for state in states]
        assert venv.engine.greedy_actions(slots, compiled.rng).tolist() == expected
        assert compiled.rng.bit_generator.state == reference.rng.bit_generator.state
        decisions += len(slots)
        ties += sum(len(set(GreedyAgent.played_values(state, state.current_player, state.legal_actions())))
                    < len(state.legal_actions()) for state in states)
    assert decisions > 400 and ties > 0


def test_slots_plain_states_and_the_reference_agree():
    by_slots, by_states, reference = (AgentActor(GreedyAgent(seed=11)) for _ in range(3))
    for venv, slots in walk({"players": 3}, num_envs=6, steps=60, seed=5):
        batch = venv.engine
        observations, masks = batch.observation[slots], batch.action_mask[slots]
        states = SlotStates(venv, slots)
        from_slots = by_slots.act_batch(observations, masks, states)
        from_states = by_states.act_batch(observations, masks, lambda states=states: states())
        expected = [reference.agent.act_on_a_world(state) for state in states()]
        assert from_slots.tolist() == from_states.tolist() == expected


def test_a_game_with_its_own_heuristic_is_played_in_python():
    class Cautious(Heuristic):   # the smallest own score: another greedy
        def value(self, state, seat):
            return -float(state.info()["scores"][seat])

    game = make_game(ENV)
    walked = [venv.game_state(int(i)) for venv, slots in walk({}, 4, 80, seed=2) for i in slots]
    states = [game.state_from_text(state.to_text()) for state in walked]
    assert game.greedy_engine() is not None
    default_moves = GreedyAgent(seed=1).act_many(states)
    game.heuristic = Cautious()
    assert game.greedy_engine() is None and not game.batched_games(1).plays_greedy
    cautious, reference = GreedyAgent(seed=1), GreedyAgent(seed=1)
    moves = cautious.act_many(states)
    assert moves == [reference.act_on_a_world(state) for state in states] != default_moves


def test_bad_slots_and_generators_are_refused():
    venv = vector.make(ENV, 3, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match=r"slots must be a 1-d array of slots in \[0, 2\]"):
        venv.engine.greedy_actions(np.array([3]), np.random.default_rng(0))
    with pytest.raises(ValueError, match="the agent's generator is MT19937"):
        venv.engine.greedy_actions(np.array([0]), np.random.Generator(np.random.MT19937(0)))
    skybridge = vector.make("skybridge_v0", 2, seed=0)
    assert not skybridge.engine.plays_greedy
    with pytest.raises(ValueError, match="plays no greedy moves"):
        skybridge.engine.greedy_actions(np.array([0]), np.random.default_rng(0))
