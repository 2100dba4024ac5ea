"""The single-agent Gymnasium view, with Gymnasium's checker and real MaskablePPO training."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sky_envs
from sky_envs.agents import RandomAgent
from sky_envs.gym_env import SingleAgentEnv

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


@pytest.mark.parametrize("env_id", BUILTIN)
def test_gymnasium_make_and_checker(env_id):
    name, version = env_id.rsplit("_v", 1)
    env = gymnasium.make(f"sky_envs/{name}-v{version}", opponent="random", illegal_action="lose")
    with warnings.catch_warnings():  # its determinism check samples an action, then resets:
        warnings.simplefilter("ignore")  # the action may be illegal in the new position ("lose")
        check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=1)
    assert env.observation_space.contains(observation)
    assert info["action_mask"].any() and info["action_mask"].shape == (env.action_space.n,)


@pytest.mark.parametrize("env_id", BUILTIN)
def test_gymnasium_make_gives_the_env_itself_with_legal_sampling_and_sb3s_checker(env_id):
    import pickle

    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    name, version = env_id.rsplit("_v", 1)
    env = gymnasium.make(f"sky_envs/{name}-v{version}", opponent="random")  # illegal_action="raise"
    assert isinstance(env, SingleAgentEnv)  # no wrapper hides action_masks()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    sb3_check_env(env, warn=False)  # samples env.action_space: legal actions only, nothing raises
    env.reset(seed=3)
    env.action_space.seed(3)
    for _ in range(50):
        assert env.action_masks()[env.action_space.sample()]
    mask = np.zeros(env.action_space.n, dtype=np.int8)
    mask[-1] = 1
    assert env.action_space.sample(mask=mask) == env.action_space.n - 1  # an explicit mask wins
    copy = pickle.loads(pickle.dumps(env.action_space))  # what SubprocVecEnv sends: a plain Discrete's sampling
    assert copy == env.action_space == gymnasium.spaces.Discrete(env.action_space.n)
    assert 0 <= copy.sample() < copy.n


def test_learner_only_sees_its_own_turns_and_gets_its_reward():
    env = SingleAgentEnv("sky_scrapers_v0", opponent="greedy", seat=1)
    for episode in range(5):
        observation, info = env.reset(seed=episode)
        assert info["seat"] == 1
        learner = RandomAgent(seed=episode)
        done = False
        while not done:
            assert env.game_state.current_player == 1
            action = learner.act({"action_mask": env.action_masks()})
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        final = env.game_state
        assert reward == (final.returns()[1] if final.is_terminal() else 0.0)
        assert not env.action_masks().any()


def test_random_seat_is_drawn_from_the_reset_seed():
    env = SingleAgentEnv("sky_scrapers_v0")
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {0, 1}
    assert env.reset(seed=3)[1]["seat"] == env.reset(seed=3)[1]["seat"]


def test_illegal_action_raises_or_loses():
    env = SingleAgentEnv("sky_scrapers_v0", seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=f"action {illegal} .* is illegal"):
        env.step(illegal)
    losing = SingleAgentEnv("sky_scrapers_v0", seat=0, illegal_action="lose")
    losing.reset(seed=0)
    with pytest.warns(UserWarning, match="Illegal move"):
        _, reward, terminated, _, info = losing.step(illegal)
    assert reward == -1.0 and terminated and "illegal_action" in info


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="seat=5"):
        SingleAgentEnv("sky_scrapers_v0", seat=5)
    with pytest.raises(ValueError, match="one spec per other seat"):
        SingleAgentEnv("sky_scrapers_v0", opponent=["random", "random"])
    with pytest.raises(ValueError, match="unknown agent"):
        SingleAgentEnv("sky_scrapers_v0", opponent="grandmaster")
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv("sky_scrapers_v0", illegal_action="ignore")
    with pytest.raises(ValueError, match="players=3"):
        SingleAgentEnv("sky_scrapers_v0", players=3)


def test_four_seats_take_one_opponent_per_other_seat():
    env = SingleAgentEnv("sky_scrapers_v0", players=4, opponent=["random", "greedy", "random"], seat=2)
    observation, info = env.reset(seed=0)
    assert observation.shape == (8, 8, 8) and env.game_state.current_player == 2


def test_maskable_ppo_trains_on_the_view():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: SingleAgentEnv("sky_scrapers_v0", board="square", rows=4, cols=4,
                                              positioning="random", opponent="random")] * 2)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0, verbose=0)
    model.learn(total_timesteps=64)
    env = SingleAgentEnv("sky_scrapers_v0", board="square", rows=4, cols=4, positioning="random")
    observation, _ = env.reset(seed=0)
    action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
