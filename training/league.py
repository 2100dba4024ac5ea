"""League self-play on RLlib: a config's ``pool`` section played inside RLlib's env runners.

Who plays each seat of a game is decided per episode by the rule of
:class:`training.collector.SelfPlayVecEnv`: in game slot ``i`` the learner's seat rotates from
episode to episode (``(i + episode) % players``), and every other seat gets a member of the
opponent pool (:meth:`training.pool.OpponentPool.sample`: the current policy with probability
``pool.latest``, otherwise a uniform pick among the frozen snapshots and the baselines).
Here the members are:

* the learner, the current policy: RLlib module ``main``, the only module trained
  (``policies_to_train``). With ``pool.learn_from_latest`` (the default) a seat the pool
  gives to the current policy is the learner's own seat, so both sides are trained on;
  otherwise it is module ``latest``, a copy of ``main``'s weights made after every update
  and never trained;
* a frozen snapshot: module ``snapshot_K``, one of ``pool.window`` slots holding a copy of
  ``main`` taken every few iterations (:class:`League`); the newest replaces the oldest. These
  modules are never trained: their weights change only when a new snapshot is copied in;
* a baseline (``random``, ``greedy``, ``mcts@N``, a checkpoint file, ``pretrained``): the
  project's agent (``make_agent``) plays inside the env runner, batched across the runner's
  games (:func:`training.actors.advance`: one call per baseline per round, one network
  forward for a checkpoint).

The agent ids RLlib sees say who plays a seat: ``"player_1@snapshot_0"``, so the mapping
to modules is :func:`module_of`, and an episode's baseline seats are not agents at all.
:class:`LeagueGames` is the runner's vector of games (RLlib's ``VectorMultiAgentEnv``; each
game a :class:`LeagueGame`, a ``MultiAgentEnv``), built by :class:`LeagueEnvRunner`, RLlib's
``MultiAgentEnvRunner`` with that env. Module ``main`` is a
:class:`~sky_envs.integrations.rllib.ProjectNetworkModule`, so it exports to a project
checkpoint like any policy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv

from sky_envs.core.registry import make_game
from sky_envs.integrations.rllib import ACTION_MASK, OBSERVATIONS, masked_observation_space
from .actors import Actor, advance
from .pool import OpponentPool

MAIN, LATEST = "main", "latest"


def snapshot_module(slot: int) -> str:
    """The module id of snapshot slot ``slot``."""
    return f"snapshot_{slot}"


def league_modules(pool: dict) -> list[str]:
    """Every module of a league with the ``pool`` config: ``main``, the snapshot slots, and
    ``latest`` where the current policy plays seats it does not learn from."""
    modules = [MAIN] + [snapshot_module(slot) for slot in range(pool["window"])]
    if not pool["learn_from_latest"] and pool["latest"] > 0:
        modules.append(LATEST)
    return modules


def module_of(agent_id: str, episode=None, **kwargs) -> str:
    """RLlib's ``policy_mapping_fn``: the module named in the agent id (``player_1@main``)."""
    return agent_id.rpartition("@")[2]


class ModuleSeat(Actor):
    """A pool member that an RLlib module plays: the env hands its seat to RLlib."""

    def __init__(self, module_id: str):
        self.name = module_id

    def act(self, states):
        raise RuntimeError(f"module {self.name!r} plays through RLlib, not inside the env")


class LeagueGame(MultiAgentEnv):
    """One game slot of :class:`LeagueGames` (see the module docstring). RLlib reads its
    agent ids and spaces; its own ``reset`` and ``step`` play this game alone."""

    def __init__(self, games: LeagueGames, slot: int):
        super().__init__()
        self.games, self.slot = games, slot
        self.possible_agents = list(games.single_observation_spaces)
        self.agents = list(self.possible_agents)
        self.observation_spaces = games.single_observation_spaces
        self.action_spaces = games.single_action_spaces
        self.episodes = 0
        self.state = None
        self.agent_ids: list[str | None] = []   # per seat: its RLlib agent id, None for a baseline
        self.baselines: list[Actor | None] = []  # per seat: the baseline playing it, None for a module
        self.acted: set[int] = set()              # RLlib seats that have decided this episode
        self._rng = None

    def start_episode(self) -> None:
        games = self.games
        players = games.game.num_players
        learner_seat = (self.slot + self.episodes) % players
        self.episodes += 1
        self._rng = np.random.default_rng(int(games.rng.integers(2**63)))
        members = [None if seat == learner_seat else games.pool.sample(games.rng) for seat in range(players)]
        self.agent_ids, self.baselines = [], []
        for seat, member in enumerate(members):
            if member is None or (member is games.pool.live and games.learn_from_latest):
                module = MAIN
            elif isinstance(member, ModuleSeat):
                module = member.name
            else:
                module = None
            self.agent_ids.append(None if module is None else f"player_{seat}@{module}")
            self.baselines.append(member if module is None else None)
        self.deal()

    def deal(self) -> None:
        self.state = self.games.game.new_initial_state(self._rng)
        self.acted = set()

    def needs_new_deal(self) -> bool:
        """Over before any RLlib seat decided (baselines only): the episode is dealt again."""
        return self.state.current_player < 0 and not self.acted

    def apply(self, action_dict: dict) -> None:
        seat = self.state.current_player
        agent = self.agent_ids[seat]
        if set(action_dict) != {agent}:
            raise ValueError(f"it is {agent}'s turn, but the actions are for {sorted(action_dict)}")
        self.state.apply(int(action_dict[agent]))
        self.acted.add(seat)
        if agent.endswith(f"@{MAIN}"):
            self.games.learner_decisions += 1

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        return {OBSERVATIONS: self.state.observation(seat).astype(np.float32, copy=False),
                ACTION_MASK: self.state.legal_mask().astype(np.float32)}

    def outcome(self) -> tuple[dict, dict, dict, dict, dict]:
        """What RLlib gets after the baselines have moved: the seat to decide's observation,
        or at the end every RLlib seat's last observation and reward."""
        state = self.state
        seat = state.current_player
        if seat >= 0:
            agent = self.agent_ids[seat]
            return {agent: self._observe(seat)}, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}
        terminated = state.is_terminal()
        returns = state.returns() if terminated else np.zeros(len(self.agent_ids))
        observations, rewards, terminateds, truncateds = {}, {}, {"__all__": terminated}, {"__all__": not terminated}
        for seat in sorted(self.acted):
            agent = self.agent_ids[seat]
            observations[agent] = self._observe(seat)
            rewards[agent] = float(returns[seat])
            terminateds[agent], truncateds[agent] = terminated, not terminated
        self.games.record_result(self, returns, terminated)
        return observations, rewards, terminateds, truncateds, {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.games.rng = np.random.default_rng(seed)
        self.start_episode()
        self.games.advance([self.slot])
        return self.outcome()[0], {}

    def step(self, action_dict: dict):
        self.apply(action_dict)
        self.games.advance([self.slot])
        return self.outcome()


class LeagueGames(VectorMultiAgentEnv):
    """``num_games`` :class:`LeagueGame` slots sharing one opponent pool, so that each
    baseline decides all the games waiting on it in one call. Steps like RLlib's
    ``SyncVectorMultiAgentEnv`` (a finished game is reset at its next step), but applies
    every game's action first and then plays the baselines of all games together.

    ``env_config``: ``env_id``, ``options``, ``pool`` (a config's ``pool`` section) and
    ``seed`` (the baselines' seeds); ``first_slot`` offsets the seat rotation of this
    runner's games among all runners' games.
    """

    def __init__(self, env_config: dict, num_games: int, first_slot: int = 0):
        super().__init__()
        pool = env_config["pool"]
        env_id, options = env_config["env_id"], dict(env_config.get("options") or {})
        self.game = make_game(env_id, **options)
        self.learn_from_latest = bool(pool["learn_from_latest"])
        self.pool = OpponentPool(env_id, options, pool["latest"], pool["window"], pool["baselines"],
                                 seed=int(env_config.get("seed", 0)))
        self.pool.live = ModuleSeat(MAIN if self.learn_from_latest else LATEST)
        self.rng = np.random.default_rng(int(env_config.get("seed", 0)))
        space = masked_observation_space(self.game)
        agents = [f"player_{seat}@{module}" for seat in range(self.game.num_players) for module in league_modules(pool)]
        self.single_observation_spaces = {agent: space for agent in agents}
        self.single_action_spaces = {agent: spaces.Discrete(self.game.num_actions) for agent in agents}
        self.single_observation_space = spaces.Dict(self.single_observation_spaces)
        self.single_action_space = spaces.Dict(self.single_action_spaces)
        self.num_envs = num_games
        self.envs = [LeagueGame(self, first_slot + i) for i in range(num_games)]
        self._finished = np.zeros(num_games, dtype=bool)
        self.results: list[tuple[str, float]] = []   # (opponent, the learner's score) of games ended
        self.learner_decisions = 0                    # module main's actions (RLlib counts observations)

    def set_snapshots(self, slots: Sequence[int]) -> None:
        """The snapshot slots that hold a snapshot: the pool's snapshot members from now on."""
        self.pool.snapshots = [(snapshot_module(slot), ModuleSeat(snapshot_module(slot))) for slot in slots]

    def advance(self, slots: Sequence[int]) -> None:
        """Play the baselines' moves in the games ``slots`` (by position in ``envs``) until an
        RLlib seat is to decide or the game is over, dealing again any game that ends before
        an RLlib seat has decided."""
        envs = self.envs
        index = {env.slot: k for k, env in enumerate(envs)}
        pending = [index[slot] for slot in slots]
        while pending:
            states = {k: envs[k].state for k in pending}
            advance(states, pending, lambda k, seat: envs[k].baselines[seat])
            pending = [k for k in pending if envs[k].needs_new_deal()]
            for k in pending:
                envs[k].deal()

    def record_result(self, env: LeagueGame, returns: np.ndarray, terminated: bool) -> None:
        """Note the learner's score (1 win, 0.5 draw or cut short, 0 loss) against each
        member it met in ``env``'s game (``self`` for a game against itself only)."""
        seat = next(s for s, agent in enumerate(env.agent_ids) if agent is not None and agent.endswith(f"@{MAIN}"))
        score = 0.5 if not terminated else float(np.sign(returns[seat]) + 1) / 2
        opponents = {agent.rpartition("@")[2] if agent is not None else baseline.name
                     for agent, baseline in zip(env.agent_ids, env.baselines)} - {MAIN}
        for opponent in opponents or {"self"}:
            self.results.append((opponent, score))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        for env in self.envs:
            env.episodes = 0
            env.start_episode()
        self.advance([env.slot for env in self.envs])
        self._finished[:] = False
        return [env.outcome()[0] for env in self.envs], [{} for _ in self.envs]

    def step(self, actions: list[dict]):
        restarted = []
        for k, (env, action_dict) in enumerate(zip(self.envs, actions)):
            if self._finished[k]:   # RLlib's "next_step" autoreset: this step starts a new game
                env.start_episode()
                restarted.append(k)
            else:
                env.apply(action_dict)
        self.advance([env.slot for env in self.envs])
        outputs = []
        for k, env in enumerate(self.envs):
            if k in restarted:
                observations = env.outcome()[0]
                outputs.append((observations, {}, {"__all__": False}, {"__all__": False}, {}))
            else:
                outputs.append(env.outcome())
        observations, rewards, terminateds, truncateds, infos = (list(column) for column in zip(*outputs))
        self._finished = np.array([t["__all__"] or u["__all__"] for t, u in zip(terminateds, truncateds)])
        return observations, rewards, terminateds, truncateds, infos


class LeagueEnvRunner(MultiAgentEnvRunner):
    """RLlib's ``MultiAgentEnvRunner`` playing :class:`LeagueGames`
    (``config.env_runners(env_runner_cls=LeagueEnvRunner)``; ``env_config`` as there). Its
    metrics carry, under ``league``, the learner's decisions (``learner_decisions``, summed per
    iteration: RLlib's module step counts count observations, one more per seat and game) and
    its mean score against each pool member (``score_vs_<member>``)."""

    def __init__(self, config, **kwargs):
        import torch

        torch.set_num_threads(int(config.env_config.get("torch_threads", 1)))  # small forwards: threads only contend
        super().__init__(config, **kwargs)

    def make_env(self):
        if self.env is not None:
            self.env.close()
        games = self.config.num_envs_per_env_runner
        self.env = LeagueGames({**self.config.env_config,
                                "seed": int(self.config.env_config.get("seed", 0)) + (self.worker_index or 0)},
                               games, first_slot=max(0, (self.worker_index or 0) - 1) * games)
        self.num_envs = games
        self._needs_initial_reset = True

    def set_snapshots(self, slots: Sequence[int], weights: dict | None = None) -> None:
        """The snapshot slots in use (see :meth:`LeagueGames.set_snapshots`), after loading
        ``weights`` (``{module: state}``) into those modules. Set here rather than through
        RLlib's weight sync, which skips weights whose sequence number it has seen."""
        for module, state in (weights or {}).items():
            self.module[module].set_state(state)
        if self.env is not None:
            self.env.set_snapshots(slots)

    def get_metrics(self):
        if self.env is not None:
            for opponent, score in self.env.results:
                self.metrics.log_value(("league", f"score_vs_{opponent}"), score, reduce="mean", window=1000)
            self.metrics.log_value(("league", "learner_decisions"), self.env.learner_decisions, reduce="sum")
            self.env.results.clear()
            self.env.learner_decisions = 0
        return super().get_metrics()


def league_config(config: dict, num_env_runners: int = 0, train_batch_size: int | None = None, seed: int = 0):
    """RLlib's ``PPOConfig`` for league self-play with a project config.

    Modules: :func:`league_modules`, each a ``ProjectNetworkModule`` of the config's
    ``policy``; only ``main`` is trained. The config's ``train.n_envs`` games are shared
    among the env runners (``num_env_runners``; 0: the driver samples). The ``ppo`` section
    maps onto RLlib's PPO as sb3-contrib's ``MaskablePPO`` reads it: a training batch is
    ``train.n_envs * ppo.n_steps`` env steps (``train_batch_size`` overrides it; RLlib
    counts every module's decisions), ``batch_size`` the minibatch (never larger than a
    batch), ``n_epochs``, ``learning_rate``, ``gamma``, ``gae_lambda``, ``ent_coef``,
    ``clip_range``, ``vf_coef``; as in SB3 there is no KL penalty, no value clipping, and
    gradients are clipped to a global norm of 0.5. ``seed`` seeds the games and the modules.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from sky_envs.agents.network import game_layout
    from sky_envs.integrations.rllib import ProjectNetworkModule

    if num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0, got {num_env_runners!r}")
    env, ppo, train, pool = config["env"], config["ppo"], config["train"], config["pool"]
    game = make_game(env["id"], **env["options"])
    module = RLModuleSpec(module_class=ProjectNetworkModule, observation_space=masked_observation_space(game),
                          action_space=spaces.Discrete(game.num_actions),
                          model_config={"network": config["policy"], **game_layout(game)})
    modules = league_modules(pool)
    games_per_runner = -(-train["n_envs"] // max(1, num_env_runners))
    train_batch_size = train_batch_size or train["n_envs"] * ppo["n_steps"]
    return (
        PPOConfig()
        .environment(env_config={"env_id": env["id"], "options": env["options"], "pool": pool, "seed": seed,
                                 "torch_threads": train["torch_threads"]})
        .env_runners(env_runner_cls=LeagueEnvRunner, num_env_runners=num_env_runners,
                     num_envs_per_env_runner=games_per_runner, rollout_fragment_length="auto")
        .multi_agent(policies=set(modules), policy_mapping_fn=module_of, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={name: module for name in modules}))
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=min(ppo["batch_size"], train_batch_size),
                  num_epochs=ppo["n_epochs"], lr=ppo["learning_rate"], gamma=ppo["gamma"], lambda_=ppo["gae_lambda"],
                  entropy_coeff=ppo["ent_coef"], clip_param=ppo["clip_range"], vf_loss_coeff=ppo["vf_coef"],
                  use_kl_loss=False, vf_clip_param=float("inf"), grad_clip=0.5, grad_clip_by="global_norm")
        .debugging(seed=seed)
    )


class League:
    """The driver's record of the snapshot slots: which slot holds which snapshot.

    Snapshot ``n`` (counting from 0) goes into slot ``n % window``; ``snapshots`` lists the
    slots in use, oldest first, as ``{"slot", "iteration", "steps", "checkpoint"}`` (the
    project checkpoint exported at that iteration, relative to the run folder).
    """

    def __init__(self, window: int, taken: int = 0, snapshots: list[dict] | None = None):
        self.window = window
        self.taken = taken
        self.snapshots = list(snapshots or [])

    def take(self, algorithm, iteration: int, steps: int, checkpoint: str) -> int:
        """Copy ``main``'s weights into the next slot, in the learner and in every env
        runner, and let the env runners' pools draw it; returns the slot."""
        slot = self.taken % self.window
        module = snapshot_module(slot)
        weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        algorithm.learner_group.set_weights({module: weights})
        self.snapshots = [s for s in self.snapshots if s["slot"] != slot]
        self.snapshots.append({"slot": slot, "iteration": iteration, "steps": steps, "checkpoint": checkpoint})
        self.taken += 1
        self.publish(algorithm, {module: weights})
        return slot

    def refresh_latest(self, algorithm) -> None:
        """Module ``latest`` (``pool.learn_from_latest`` false) takes ``main``'s current
        weights, in the learner and in every env runner: before each iteration's sampling."""
        weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        algorithm.learner_group.set_weights({LATEST: weights})
        self.publish(algorithm, {LATEST: weights})

    def publish(self, algorithm, weights: dict | None = None) -> None:
        """Tell every env runner which slots hold snapshots, loading ``weights``
        (``{module: state}``, e.g. a new snapshot, or all of them after a restore) first."""
        slots = [s["slot"] for s in self.snapshots]
        algorithm.env_runner_group.foreach_env_runner(lambda runner: runner.set_snapshots(slots, weights),
                                                      local_env_runner=True)

    def state(self) -> dict:
        return {"window": self.window, "taken": self.taken, "snapshots": self.snapshots}

    @classmethod
    def from_state(cls, state: dict) -> League:
        return cls(state["window"], state["taken"], state["snapshots"])
