"""Mask-preserving observation wrappers: PettingZoo's api_test, and only the observation changes."""

import numpy as np
import pytest
from pettingzoo.test import api_test

import sky_envs
from sky_envs.wrappers import FlattenObservation, FrameStackObservation, RenameObservationKey

WRAPPERS = {
    "flatten": FlattenObservation,
    "frame_stack": lambda env: FrameStackObservation(env, 3),
    "rename": lambda env: RenameObservationKey(env, "observations"),
    "all": lambda env: RenameObservationKey(FrameStackObservation(FlattenObservation(env), 2), "obs"),
}


@pytest.mark.parametrize("env_id", ["sky_scrapers_v0", "golden_rush_v0", "sky_towers_v0"])
@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_wrapped_envs_pass_api_test(env_id, name):
    api_test(WRAPPERS[name](sky_envs.make(env_id)), num_cycles=200)


def paired_steps(wrapped, plain, seed=0):
    """Step both envs with the same random legal actions; yield (wrapped, plain) observations."""
    wrapped.reset(seed=seed)
    plain.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in plain.agent_iter():
        ours, theirs = wrapped.observe(agent), plain.observe(agent)
        yield agent, ours, theirs
        _, _, termination, truncation, _ = plain.last()
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(theirs["action_mask"])))
        assert wrapped.agent_selection == agent
        wrapped.step(action)
        plain.step(action)


def test_flatten_and_rename_change_only_the_observation():
    env = RenameObservationKey(FlattenObservation(sky_envs.make("scala_v0")), "observations")
    assert env.observation_space("player_0")["observations"].shape == (14 * 11 * 5,)
    for agent, ours, theirs in paired_steps(env, sky_envs.make("scala_v0")):
        assert set(ours) == {"observations", "action_mask"}
        np.testing.assert_array_equal(ours["action_mask"], theirs["action_mask"])
        np.testing.assert_array_equal(ours["observations"], theirs["observation"].reshape(-1))
        assert env.observation_space(agent).contains(ours)
    assert env.rewards == env.unwrapped.rewards


def test_frame_stack_holds_the_last_frames_oldest_first():
    env = FrameStackObservation(sky_envs.make("sky_scrapers_v0"), 3)
    history = {agent: [np.zeros((6, 6, 6), np.float32)] * 2 for agent in env.possible_agents}
    steps = 0
    for agent, ours, theirs in paired_steps(env, sky_envs.make("sky_scrapers_v0")):
        for seat in env.agents:  # every agent records the position after each step
            if len(history[seat]) < steps + 3:
                history[seat].append(env.unwrapped.observe(seat)["observation"])
        expected = np.concatenate(history[agent][-3:], axis=-1)
        np.testing.assert_array_equal(ours["observation"], expected)
        np.testing.assert_array_equal(ours["action_mask"], theirs["action_mask"])
        steps += 1


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="stack"):
        FrameStackObservation(sky_envs.make("scala_v0"), 0)
    with pytest.raises(ValueError, match="observation key"):
        RenameObservationKey(sky_envs.make("scala_v0"), "action_mask")
    with pytest.raises(ValueError, match="dicts with keys"):
        FlattenObservation(RenameObservationKey(sky_envs.make("scala_v0"), "observations"))
