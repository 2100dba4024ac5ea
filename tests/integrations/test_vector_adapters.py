"""The single-agent view over batched games: Gymnasium's VectorEnv (gymnasium.make_vec) and
SB3's VecEnv. They play the games the one-game single-agent view plays, autoreset in the
same step with the learner's final observation, batch their opponents, refuse illegal
actions, and train: MaskablePPO on the SB3 one, a CleanRL-style loop on the Gymnasium one."""

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode

import sky_envs
from sky_envs.agents import Agent, random_legal
from sky_envs.core.state import IllegalActionError
from sky_envs.gym_env import SingleAgentEnv
from sky_envs.integrations.gymnasium_vector import SingleAgentVectorEnv
from sky_envs.integrations.sb3_vector import SingleAgentVecEnv

BUILTIN = list(sky_envs.BUILTIN_ENV_IDS)
SMALL = {"board": "square", "rows": 4, "cols": 4, "positioning": "random"}


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Torch on one thread: on a busy 2-core machine two threads make even building a network
    (a checkpoint opponent, a policy to train) take seconds."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def gym_id(env_id: str) -> str:
    name, version = env_id.rsplit("_v", 1)
    return f"sky_envs/{name}-v{version}"


class ObservationRule(Agent):
    """A deterministic opponent: the legal action picked by the observation's sum."""

    name = "rule"

    def act(self, observation, state=None):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[int(observation["observation"].sum() * 7) % legal.size])


class CountingRandom(Agent):
    """A random opponent that decides many games in one ``act_many`` call, and counts them."""

    name = "counting"
    needs_state = True

    def __init__(self, seed=None):
        super().__init__(seed)
        self.calls: list[int] = []

    def act(self, observation, state=None):
        return self.act_many([state])[0]

    def act_many(self, states):
        self.calls.append(len(states))
        return [random_legal(state.legal_mask(), self.rng) for state in states]


def learner_actions(observations, masks):
    """A deterministic learner: the legal action picked by the observation's sum."""
    return np.array([np.flatnonzero(mask)[int(obs.sum() * 3) % mask.sum()] for obs, mask in zip(observations, masks)])


@pytest.mark.parametrize("env_id", BUILTIN)
def test_make_vec_gives_the_batched_view_with_legal_sampling(env_id):
    envs = gymnasium.make_vec(gym_id(env_id), num_envs=3, vectorization_mode="vector_entry_point", opponent="random")
    assert isinstance(envs, SingleAgentVectorEnv) and envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert envs.spec.id == gym_id(env_id) and envs.spec.kwargs["num_envs"] == 3
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(3, np.int64))
    observations, infos = envs.reset(seed=5)
    again, _ = envs.reset(seed=5)
    assert np.array_equal(observations, again)   # a seed gives the same games
    assert observations.dtype == np.float32 and envs.observation_space.contains(observations)
    for _ in range(30):
        actions = envs.action_space.sample()     # legal: LegalActionsSpace draws from the masks
        assert envs.action_masks()[np.arange(3), actions].all()
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        assert envs.observation_space.contains(observations)
        assert rewards.dtype == np.float32 and terminated.dtype == bool and truncated.dtype == bool
        assert np.array_equal(infos["action_mask"], envs.action_masks()) and infos["action_mask"].any(axis=1).all()
    envs.close()


@pytest.mark.parametrize("env_id, options", [("sky_scrapers_v0", SMALL), ("golden_rush_v0", {"mode": "teams"}),
                                             ("scala_v0", {"max_turns": 12})],
                         ids=["sky_scrapers", "golden_rush", "scala_cut"])
def test_the_vector_view_plays_the_games_of_the_single_agent_view(env_id, options):
    """Slot i's game is the single-agent env's game of the same seed and seat; a game that ends
    is reported (reward, terminated/truncated, the learner's final observation) and replaced
    in the same step by the next one."""
    envs = SingleAgentVectorEnv(env_id, 4, opponent=ObservationRule(), **options)
    slots = envs.slots

    def single(i):
        env = SingleAgentEnv(env_id, opponent=ObservationRule(), seat=int(slots.seat[i]), **options)
        observation, info = env.reset(seed=slots.game_seed(i))
        return env, observation

    observations, infos = envs.reset(seed=21)
    assert infos["seat"].tolist() == [i % envs.slots.venv.num_players for i in range(4)]
    singles = [single(i) for i in range(4)]
    ended = truncations = 0
    for _ in range(70):
        for i, (env, observation) in enumerate(singles):
            assert np.array_equal(observations[i], observation)
            assert np.array_equal(envs.action_masks()[i], env.action_masks())
        actions = learner_actions(observations, envs.action_masks())
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        for i, (env, _) in enumerate(singles):
            observation, reward, single_terminated, single_truncated, _ = env.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, single_terminated, single_truncated)
            if terminated[i] or truncated[i]:
                ended += 1
                truncations += int(truncated[i])
                assert infos["_final_obs"][i] and np.array_equal(infos["final_obs"][i], observation)
                assert infos["final_info"]["seat"][i] == env.seat
                singles[i] = single(i)
            else:
                assert "final_obs" not in infos or not infos["_final_obs"][i]
                singles[i] = (env, observation)
    assert ended >= 4
    if env_id == "scala_v0":
        assert truncations > 0   # cut at max_turns, often after an opponent's move: the learner's view


def test_seats_rotate_and_a_fixed_seat_stays():
    envs = SingleAgentVectorEnv("golden_rush_v0", 4, opponent="random")
    envs.reset(seed=0)
    history = [[int(s)] for s in envs.slots.seat]
    while min(len(h) for h in history) < 5:
        _, _, terminated, truncated, infos = envs.step(envs.action_space.sample())
        for i in np.flatnonzero(terminated | truncated):
            assert infos["final_info"]["seat"][i] == history[i][-1]
            history[i].append(int(infos["seat"][i]))
    assert [h[:5] for h in history] == [[(i + k) % 4 for k in range(5)] for i in range(4)]
    fixed = SingleAgentVectorEnv("sky_scrapers_v0", 3, seat=1)
    _, infos = fixed.reset(seed=0)
    assert infos["seat"].tolist() == [1, 1, 1] and (fixed.slots.batch.current_player == 1).all()
    with pytest.raises(ValueError, match="seat=5 is not valid: expected 'rotate' or 'random' or a seat index 0..1"):
        SingleAgentVectorEnv("sky_scrapers_v0", 2, seat=5)
    with pytest.raises(ValueError, match=r"opponent needs one spec per other seat \(3\), got 2"):
        SingleAgentVectorEnv("golden_rush_v0", 2, opponent=["random", "greedy"])


def test_opponents_decide_all_their_waiting_games_in_one_call_per_round():
    opponent = CountingRandom(seed=0)
    envs = SingleAgentVectorEnv("sky_scrapers_v0", 16, opponent=opponent, **SMALL)
    venv = envs.slots.venv
    rounds = []   # games moved by each VectorEnv.step of the opponents

    def step(actions, where=None, final_observer=None):
        if where is not None:
            rounds.append(int(where.sum()))
        return type(venv).step(venv, actions, where, final_observer)

    venv.step = step
    envs.reset(seed=3)
    for _ in range(20):
        envs.step(envs.action_space.sample())
    assert opponent.calls == rounds   # one call per round, holding every game waiting on the opponent
    assert len(rounds) < 3 * 20 and max(rounds) == 16


def test_every_opponent_spec_of_the_single_agent_view_works():
    from sky_envs.integrations.actors import AgentActor, PolicyActor

    envs = SingleAgentVectorEnv("golden_rush_v0", 3, opponent=["greedy", "mcts@3", "pretrained"])
    greedy, mcts, policy = envs.slots.opponents
    assert isinstance(greedy, AgentActor) and isinstance(mcts, AgentActor) and isinstance(policy, PolicyActor)
    assert mcts.agent.simulations == 3 and policy.deterministic   # a checkpoint plays its most likely move
    envs.reset(seed=1)
    for _ in range(5):
        envs.step(envs.action_space.sample())
    assert set(envs.slots.decision_seconds) == {"greedy", "mcts", "policy"}


def test_illegal_actions_are_refused_naming_the_game_and_nothing_moves():
    envs = SingleAgentVectorEnv("sky_scrapers_v0", 3, opponent="random")
    observations, _ = envs.reset(seed=0)
    actions = envs.action_space.sample()
    actions[1] = int(np.flatnonzero(~envs.action_masks()[1])[0])
    with pytest.raises(IllegalActionError, match=r"slot 1: action \d+ .* is illegal for player_\d"):
        envs.step(actions)
    assert np.array_equal(envs.slots.batch.observation, observations)
    with pytest.raises(ValueError, match=r"actions must be an array of shape \(3,\)"):
        envs.step(actions[:2])
    sb3 = SingleAgentVecEnv("sky_scrapers_v0", 2, seed=0)
    sb3.reset()
    with pytest.raises(IllegalActionError, match="slot 0"):
        sb3.step(np.array([-1, 0]))


def test_gymnasium_wrappers_see_episodes_in_the_same_step():
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(SingleAgentVectorEnv("skybridge_v0", 4, opponent="random"))
    envs.reset(seed=0)
    episodes = 0
    for _ in range(60):
        _, rewards, terminated, truncated, infos = envs.step(envs.env.action_space.sample())
        if "episode" in infos:
            done = terminated | truncated
            assert np.array_equal(infos["_episode"], done)
            assert np.array_equal(infos["episode"]["r"][done], rewards[done])
            episodes += done.sum()
    assert episodes > 0


def test_the_sb3_vecenv_reports_ends_as_sb3_expects():
    env = SingleAgentVecEnv("scala_v0", 3, opponent="random", seed=4, max_turns=10)
    observations = env.reset()
    assert observations.shape == (3, *env.observation_space.shape)
    first = observations.copy()
    env.seed(4)
    assert np.array_equal(env.reset(), first)   # seed(s) seeds the next reset
    ends = 0
    for _ in range(20):
        masks = np.stack(env.env_method("action_masks"))
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        observations, rewards, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            ends += 1
            assert infos[i]["TimeLimit.truncated"] is True and rewards[i] == 0.0   # max_turns=10 cuts every game
            assert infos[i]["terminal_observation"].shape == env.observation_space.shape
    assert ends >= 3
    assert env.get_attr("render_mode") == [None] * 3 and env.env_is_wrapped(gymnasium.Wrapper) == [False] * 3
    with pytest.raises(AttributeError, match="only action_masks"):
        env.env_method("render")


def test_maskable_ppo_trains_on_the_sb3_vecenv():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    env = VecMonitor(SingleAgentVecEnv("sky_scrapers_v0", 8, opponent="greedy", **SMALL))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(512)
    assert model.num_timesteps == 512 and len(model.ep_info_buffer) > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))


def test_a_cleanrl_style_masked_policy_gradient_loop_trains_on_the_gymnasium_vectorenv():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    envs = gymnasium.make_vec("sky_envs/sky_scrapers-v0", num_envs=8, vectorization_mode="vector_entry_point",
                              opponent="random", **SMALL)
    policy = MaskableActorCriticPolicy(envs.single_observation_space, envs.single_action_space, lambda _: 1e-3,
                                       net_arch=[32])
    observations, infos = envs.reset(seed=0)
    batch = {"obs": [], "actions": [], "masks": [], "rewards": [], "dones": []}
    for _ in range(40):   # 320 learner steps
        with torch.no_grad():
            actions, _, _ = policy(torch.as_tensor(observations), action_masks=infos["action_mask"])
        batch["obs"].append(observations)
        batch["masks"].append(infos["action_mask"])
        batch["actions"].append(actions.numpy())
        observations, rewards, terminated, truncated, infos = envs.step(actions.numpy())
        batch["rewards"].append(rewards)
        batch["dones"].append(terminated | truncated)
    returns, future = [], np.zeros(8, np.float32)
    for rewards, dones in zip(reversed(batch["rewards"]), reversed(batch["dones"])):
        future = rewards + 0.99 * future * ~dones
        returns.append(future)
    returns = torch.as_tensor(np.concatenate(returns[::-1]))
    values, log_probs, _ = policy.evaluate_actions(torch.as_tensor(np.concatenate(batch["obs"])),
                                                   torch.as_tensor(np.concatenate(batch["actions"])),
                                                   action_masks=np.concatenate(batch["masks"]))
    loss = -(log_probs * (returns - values.flatten().detach())).mean() + ((returns - values.flatten()) ** 2).mean()
    policy.optimizer.zero_grad()
    loss.backward()
    policy.optimizer.step()
    assert torch.isfinite(loss) and np.concatenate(batch["dones"]).any()
