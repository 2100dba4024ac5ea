"""The oracle test of the batched engines, as EnvPool runs it against pgx: ``num_envs`` AEC
envs (``raw_env``) stepped beside one VectorEnv with the same actions, compared exactly at
every step: observations, masks, seats to move, rewards, ends, final observations, and the
next game each slot starts."""

from __future__ import annotations

import numpy as np

import sky_envs
from sky_envs import vector


class AecSlots:
    """What the VectorEnv promises, played with ``num_envs`` AEC envs: slot ``i``'s ``k``-th
    game is ``env.reset(seed=seed + i + k * num_envs)`` (from ``positions[i]`` if given)."""

    def __init__(self, env_id: str, options: dict, num_envs: int, seed: int, positions=None):
        self.envs = [sky_envs.make_raw(env_id, **options) for _ in range(num_envs)]
        self.num_envs, self.seed, self.positions = num_envs, seed, positions
        self.games = [0] * num_envs
        for slot in range(num_envs):
            self._start(slot)

    def _start(self, slot: int) -> None:
        options = None if self.positions is None else {"position": self.positions[slot]}
        self.envs[slot].reset(seed=self.seed + slot + self.games[slot] * self.num_envs, options=options)

    def seat(self, slot: int) -> int:
        env = self.envs[slot]
        return env.possible_agents.index(env.agent_selection)

    def observed(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        env = self.envs[slot]
        seen = env.observe(env.agent_selection)
        return seen["observation"], seen["action_mask"].astype(bool)

    def step(self, actions: np.ndarray, active: np.ndarray) -> dict:
        """Play ``actions`` where ``active``; what the VectorEnv's step must return, slot by slot."""
        num_players = len(self.envs[0].possible_agents)
        out = {"rewards": np.zeros((self.num_envs, num_players), np.float32),
               "terminated": np.zeros(self.num_envs, bool), "truncated": np.zeros(self.num_envs, bool),
               "final_player": np.full(self.num_envs, -1, np.int32), "final_observation": {}}
        for slot in np.flatnonzero(active):
            env = self.envs[slot]
            mover = self.seat(slot)
            agent = env.agent_selection
            env.step(int(actions[slot]))
            if not (env.terminations[agent] or env.truncations[agent]):
                continue
            out["terminated"][slot] = env.terminations[agent]
            out["truncated"][slot] = env.truncations[agent]
            out["rewards"][slot] = [env.rewards[a] for a in env.possible_agents]
            out["final_player"][slot] = mover
            out["final_observation"][slot] = env.observe(env.possible_agents[mover])["observation"]
            self.games[slot] += 1
            self._start(slot)
        return out


def assert_same_positions(batch, slots: AecSlots, step: int) -> None:
    for slot in range(slots.num_envs):
        observation, mask = slots.observed(slot)
        where = f"step {step}, slot {slot} (game {slots.games[slot]})"
        assert batch.current_player[slot] == slots.seat(slot), f"{where}: seat to move"
        assert np.array_equal(batch.action_mask[slot], mask), f"{where}: action mask"
        assert batch.observation[slot].dtype == np.float32 and np.array_equal(batch.observation[slot], observation), \
            f"{where}: observation"


def assert_matches_aec(env_id: str, options: dict, num_envs: int, steps: int, seed: int = 0,
                       positions=None, engine: str = "auto", expect_compiled: bool | None = None,
                       partial: bool = False) -> dict:
    """Step a VectorEnv and ``num_envs`` AEC envs ``steps`` times with random legal actions
    and compare everything after every step. ``partial``: each step moves a random half of
    the slots (``step(..., where=...)``). Returns counts (games ended, decisions)."""
    venv = vector.make(env_id, num_envs, seed=seed, positions=positions, engine=engine, **options)
    if expect_compiled is not None:
        assert venv.compiled == expect_compiled, f"{venv!r}: compiled engine expected {expect_compiled}"
    slots = AecSlots(env_id, options, num_envs, seed, positions)
    batch = venv.reset()
    assert_same_positions(batch, slots, 0)
    rng = np.random.default_rng(seed + 12345)
    ended = 0
    for step in range(1, steps + 1):
        actions = vector.random_actions(batch.action_mask, rng)
        active = rng.random(num_envs) < 0.5 if partial else np.ones(num_envs, bool)
        expected = slots.step(actions, active)
        batch = venv.step(actions, where=active if partial else None)
        for key in ("terminated", "truncated", "final_player"):
            assert np.array_equal(getattr(batch, key), expected[key]), f"step {step}: {key}"
        assert np.array_equal(batch.rewards, expected["rewards"]), f"step {step}: rewards"
        for slot, observation in expected["final_observation"].items():
            if batch.final_observation is not None:
                assert np.array_equal(batch.final_observation[slot], observation), f"step {step}, slot {slot}: final observation"
        ended += len(expected["final_observation"])
        assert_same_positions(batch, slots, step)
    return {"games_ended": ended, "decisions": int(steps * num_envs * (0.5 if partial else 1))}


def _generator_state(state):
    """The state of the generator a position carries for the rest of its game (hidden draws), or None."""
    rng = getattr(state, "rng", None)
    return None if rng is None else rng.bit_generator.state


def assert_states_round_trip(env_id: str, options: dict, num_envs: int, steps: int, seed: int = 0,
                             check_every: int = 1, same_generator: bool = False) -> None:
    """Step the compiled engine and the reference engine over states side by side with random
    legal actions; every ``check_every`` steps, each slot's ``game_state`` must be the reference
    engine's (position text, seat to move, mask and observation of the batch), and a state put
    into a slot with ``set_state`` must read back unchanged. ``same_generator``: the states'
    generators (``state.rng``, the hidden draws still to come) must agree too."""
    compiled = vector.make(env_id, num_envs, seed=seed, **options)
    reference = vector.make(env_id, num_envs, seed=seed, engine="python", **options)
    assert compiled.compiled and not reference.compiled
    batch, rng = compiled.reset(), np.random.default_rng(0)
    reference.reset()
    for step in range(steps):
        actions = vector.random_actions(batch.action_mask, rng)
        batch = compiled.step(actions)
        reference.step(actions)
        if step % check_every:
            continue
        for slot in range(num_envs):
            ours, theirs = compiled.game_state(slot), reference.game_state(slot)
            where = f"step {step}, slot {slot}"
            assert ours.to_text() == theirs.to_text(), where
            for counter in ("turns", "plies"):                       # what max_turns counts
                assert getattr(ours, counter, None) == getattr(theirs, counter, None), f"{where}: {counter}"
            assert ours.current_player == theirs.current_player == batch.current_player[slot], where
            assert np.array_equal(ours.legal_mask().astype(bool), batch.action_mask[slot]), where
            assert np.array_equal(ours.observation(ours.current_player), batch.observation[slot]), where
            if same_generator:
                assert _generator_state(ours) == _generator_state(theirs), where
            compiled.engine.set_state(slot, theirs)                  # in and out again: nothing changes
            again = compiled.game_state(slot)
            assert again.to_text() == theirs.to_text(), where
            if same_generator:
                assert _generator_state(again) == _generator_state(theirs), where
            assert np.array_equal(batch.observation[slot], theirs.observation(theirs.current_player)), where
            assert np.array_equal(batch.action_mask[slot], theirs.legal_mask().astype(bool)), where
