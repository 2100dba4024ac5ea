"""The greedy baseline's compiled moves (``BatchedGames.greedy_actions``: Sky Towers'
``greedy_kernel.py``, Highrise Heist's and Golden Rush's, Scala's) against its readable reference
(``GreedyAgent.act_on_a_world``: a world dealt from the seat's view, each action played on a
clone, judged by the game's heuristic), bit for bit: the same action in every position and
the agent's generator in the same state after each decision, over random play in every
option kind (2 to 4 seats, decks where bonuses are won, full rows, teams and score rewards,
``max_turns`` cuts); the ways a greedy opponent reaches the kernel (a vector env's slots,
plain states) agree; a game given its own heuristic is played in Python."""

from __future__ import annotations

import numpy as np
import pytest

from sky_envs import make_game, vector
from sky_envs.agents.baselines import GreedyAgent
from sky_envs.core.state import WIN, Heuristic
from sky_envs.integrations.actors import AgentActor, SlotStates
from tests.games.highrise_heist.test_batched import HEIST, RUSH, RUSH_OPTIONS
from sky_envs.games.scala.rules import SPLIT_RULES
from tests.games.sky_towers.test_batched import CASES as TOWERS_CASES

TOWERS = "sky_towers_v0"
SCALA = "scala_v0"
CASES = {**{f"{TOWERS} {name}": (TOWERS, options) for name, options in TOWERS_CASES.items()},
         f"{HEIST}": (HEIST, {}), f"{HEIST} max_turns 7": (HEIST, {"max_turns": 7}),
         **{f"{RUSH} {options}": (RUSH, options) for options in RUSH_OPTIONS},
         f"{RUSH} max_turns 5": (RUSH, {"max_turns": 5}),
         **{f"{SCALA} {rule}": (SCALA, {"split_rule": rule}) for rule in SPLIT_RULES},
         f"{SCALA} max_turns 30": (SCALA, {"max_turns": 30})}


def walk(env_id: str, options: dict, num_envs: int, steps: int, seed: int):
    """Random play on a vector env: (venv, the slots that decide now) at each step."""
    venv = vector.make(env_id, num_envs, seed=seed, **options)
    batch, rng = venv.reset(), np.random.default_rng(seed)
    for _ in range(steps):
        yield venv, np.flatnonzero(rng.random(num_envs) < 0.6)
        batch = venv.step(vector.random_actions(batch.action_mask, rng))


@pytest.mark.parametrize("env_id, options", CASES.values(), ids=CASES.keys())
def test_compiled_greedy_moves_are_the_readable_agents_bit_for_bit(env_id, options):
    reference, compiled = GreedyAgent(seed=7), GreedyAgent(seed=7)
    decisions = ties = decisive = 0
    for venv, slots in walk(env_id, options, num_envs=4, steps=500, seed=3):
        assert venv.engine.plays_greedy
        states = [venv.game_state(int(i)) for i in slots]
        expected = [reference.act_on_a_world(state) for state in states]
        assert venv.engine.greedy_actions(slots, compiled.rng).tolist() == expected
        assert compiled.rng.bit_generator.state == reference.rng.bit_generator.state
        decisions += len(slots)
        for state in states:   # what the walk covered: tied best moves, moves that end the game
            values = GreedyAgent.played_values(state, state.current_player, state.legal_actions())
            ties += int((values == values.max()).sum() > 1)
            decisive += int(np.abs(values).max() == WIN)   # a move that wins or loses the game
    assert decisions > 1000 and ties > 0
    assert decisive > 0 or "max_turns" in options or options.get("reward") == "score"


@pytest.mark.parametrize("env_id, options", [(TOWERS, {"players": 3}), (RUSH, {"mode": "teams"}), (SCALA, {})])
def test_slots_plain_states_and_the_reference_agree(env_id, options):
    by_slots, by_states, reference = (AgentActor(GreedyAgent(seed=11)) for _ in range(3))
    for venv, slots in walk(env_id, options, num_envs=6, steps=60, seed=5):
        batch = venv.engine
        observations, masks = batch.observation[slots], batch.action_mask[slots]
        states = SlotStates(venv, slots)
        from_slots = by_slots.act_batch(observations, masks, states)
        from_states = by_states.act_batch(observations, masks, lambda states=states: states())
        expected = [reference.agent.act_on_a_world(state) for state in states()]
        assert from_slots.tolist() == from_states.tolist() == expected


@pytest.mark.parametrize("env_id", [TOWERS, RUSH, SCALA])
def test_a_game_with_its_own_heuristic_is_played_in_python(env_id):
    game = make_game(env_id)
    own = game.heuristic

    class Humble(Heuristic):   # the game's own judgement turned round: another greedy
        def value(self, state, seat):
            return -own.value(state, seat)

    walked = [venv.game_state(int(i)) for venv, slots in walk(env_id, {}, 4, 80, seed=2) for i in slots]
    states = [game.state_from_text(state.to_text()) for state in walked]
    venv = vector.make(env_id, 1, seed=0)
    default_moves = [GreedyAgent(seed=1).act_on_a_world(state) for state in states]
    venv.game.heuristic = game.heuristic = Humble()
    assert game.greedy_engine() is None and not venv.engine.plays_greedy
    humble, reference = AgentActor(GreedyAgent(seed=1)), GreedyAgent(seed=1)
    moves = humble.act(states).tolist()
    assert moves == [reference.act_on_a_world(state) for state in states] != default_moves
    venv.reset()
    fresh, reference = AgentActor(GreedyAgent(seed=3)), GreedyAgent(seed=3)
    from_slot = fresh.act_batch(None, None, SlotStates(venv, np.zeros(1, dtype=np.int64)))
    assert from_slot.tolist() == [reference.act_on_a_world(venv.game_state(0))]


def test_bad_slots_and_generators_are_refused():
    for env_id in (TOWERS, RUSH):
        venv = vector.make(env_id, 3, seed=0)
        venv.reset()
        with pytest.raises(ValueError, match=r"slots must be a 1-d array of slots in \[0, 2\]"):
            venv.engine.greedy_actions(np.array([3]), np.random.default_rng(0))
        with pytest.raises(ValueError, match="the agent's generator is MT19937"):
            venv.engine.greedy_actions(np.array([0]), np.random.Generator(np.random.MT19937(0)))
    skybridge = vector.make("skybridge_v0", 2, seed=0)
    assert not skybridge.engine.plays_greedy
    with pytest.raises(ValueError, match="plays no greedy moves"):
        skybridge.engine.greedy_actions(np.array([0]), np.random.default_rng(0))
