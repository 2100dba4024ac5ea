"""Self-play rollouts over many games at once, as a Stable-Baselines3 ``VecEnv``.

:class:`SelfPlayVecEnv` runs ``num_games`` games in lockstep. Each game is one *slot* of
the VecEnv: the learner plays one seat in it (rotating seat by seat from episode to
episode, so every seat gets the same share of play), and every other seat is given a
member of the opponent pool for the episode. ``step(actions)`` applies the learner's move
in every game, then advances all games together to the learner's next decision: at each
round, the games waiting on the same opponent (the live policy, one checkpoint, a
baseline) are decided by one batched call of that opponent (:mod:`training.actors`), so
a policy opponent costs one network forward per round, not one per game.

With ``learn_from_latest`` (the default of ``training.selfplay``), a seat the pool gives to
the current policy is not an opponent at all: the learner plays it, in the same slot. The
slot then offers whichever of its learner seats is to move, so both sides of a self-play
game are trained on and no forward is spent on the live policy as an opponent. A slot's
consecutive transitions may then belong to different seats: the rollout buffer must chain
each decision to the same seat's next one (:class:`training.seat_buffer.PerSeatRolloutBuffer`,
which reads :meth:`GamesVecEnv.decision_record`).

The learner itself is unmodified sb3-contrib ``MaskablePPO``: it sees an ordinary VecEnv
with ``action_masks()``, terminal observations, ``TimeLimit.truncated`` on ``max_turns``
and Monitor-style ``episode`` infos.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from sky_envs.core.registry import make_game
from sky_envs.core.state import Game, GameState
from .actors import Actor, advance
from .pool import OpponentPool


class GamesVecEnv(VecEnv):
    """The VecEnv plumbing both collectors share: the learner's legal-action masks of every
    game (``action_masks()``, which ``MaskablePPO`` reads through ``env_method``) and the
    attribute queries SB3 makes. Subclasses keep ``self._masks`` up to date.

    The games are seeded when the collector is built (from the run's seed and progress);
    ``seed()``, which SB3 calls again when it loads a saved model, leaves them alone, so a
    resumed run plays new games rather than those its first part began with.
    """

    _masks: np.ndarray
    _seats: np.ndarray      # the seat whose decision each slot's observation is
    _movers: np.ndarray     # the seats whose decisions the last step's actions were
    _outcomes: np.ndarray   # (slots, players): returns of games the last step ended, NaN elsewhere
    num_players: int

    def _init_records(self, num_games: int, num_actions: int, num_players: int) -> None:
        """The per-slot masks and seat records, before the first reset."""
        self.num_players = num_players
        self._masks = np.zeros((num_games, num_actions), dtype=bool)
        self._seats = np.zeros(num_games, dtype=np.int64)
        self._movers = np.zeros(num_games, dtype=np.int64)
        self._outcomes = np.full((num_games, num_players), np.nan)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_games, num_actions)``."""
        return self._masks.copy()

    def current_seats(self) -> np.ndarray:
        """The seat whose decision each slot's current observation asks for."""
        return self._seats.copy()

    def decision_record(self) -> tuple[np.ndarray, np.ndarray]:
        """What the last ``step`` did, for a rollout buffer that follows seats:
        ``movers[i]``, the seat whose decision slot ``i``'s action was, and ``outcomes[i]``,
        every seat's return if that step ended slot ``i``'s game (NaN if it did not end, or
        was cut at ``max_turns``)."""
        return self._movers.copy(), self._outcomes.copy()

    def seed(self, seed: int | None = None) -> list[int | None]:
        return [None] * self.num_envs

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = None if attr_name == "render_mode" else getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"the self-play collector's games have no settable attribute {attr_name!r}")

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name != "action_masks":
            raise AttributeError(f"the self-play collector's games have no method {method_name!r}: "
                                 "only action_masks")
        return list(self._masks[self._indices(indices)])

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))


class SelfPlayVecEnv(GamesVecEnv):
    """``num_games`` games against the opponent pool; see the module docstring.

    ``first_slot`` offsets the seat rotation (a worker process holding slots 64..127 of a
    larger collector rotates them as those slots would).
    """

    def __init__(self, env_id: str, env_options: dict, num_games: int, pool: OpponentPool, seed: int = 0,
                 first_slot: int = 0, learn_from_latest: bool = False):
        self.game: Game = make_game(env_id, **env_options)
        observation_space = spaces.Box(self.game.observation_low, self.game.observation_high,
                                       shape=self.game.observation_shape, dtype=np.float32)
        super().__init__(num_games, observation_space, spaces.Discrete(self.game.num_actions))
        self.pool = pool
        self.first_slot = first_slot
        self.learn_from_latest = learn_from_latest
        self._init_records(num_games, self.game.num_actions, self.game.num_players)
        n = num_games
        self.states: list[GameState | None] = [None] * n
        self.seats = np.zeros(n, dtype=np.int64)
        self.opponents: list[list[Actor | None]] = [[] for _ in range(n)]
        self.episode_seeds = np.zeros(n, dtype=np.uint64)
        self.episodes = np.zeros(n, dtype=np.int64)   # episodes started per slot: drives the seat rotation
        self._episode_rngs: list[np.random.Generator | None] = [None] * n
        self._lengths = np.zeros(n, dtype=np.int64)
        self._started = np.zeros(n, dtype=np.float64)
        self._obs = np.zeros((n, *self.game.observation_shape), dtype=np.float32)
        self._actions: np.ndarray | None = None
        self.rng = np.random.default_rng(seed)
        self.decision_seconds: dict[str, float] = {}  # time each opponent (by name) spent deciding

    # ------------------------------------------------------------- episodes
    def _start_episode(self, i: int) -> None:
        players = self.game.num_players
        self.seats[i] = (self.first_slot + i + self.episodes[i]) % players
        self.episodes[i] += 1
        self.episode_seeds[i] = self.rng.integers(2**63)
        self._episode_rngs[i] = np.random.default_rng(int(self.episode_seeds[i]))
        members = [None if seat == self.seats[i] else self.pool.sample(self.rng) for seat in range(players)]
        if self.learn_from_latest:  # the learner plays the live policy's seats itself
            members = [None if member is self.pool.live else member for member in members]
        self.opponents[i] = members
        self._deal(i)

    def _deal(self, i: int) -> None:
        self.states[i] = self.game.new_initial_state(self._episode_rngs[i])
        self._lengths[i] = 0
        self._started[i] = time.perf_counter()

    def _actor_of(self, i: int, seat: int) -> Actor | None:
        return self.opponents[i][seat]

    def _advance(self, slots: Sequence[int], rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        """Bring every slot in ``slots`` to the learner's next decision, ending and starting
        episodes on the way."""
        pending = list(slots)
        while pending:
            advance(self.states, pending, self._actor_of, self.decision_seconds)
            again = []
            for i in pending:
                state = self.states[i]
                seat = state.current_player
                if seat >= 0 and self.opponents[i][seat] is None:
                    self._obs[i] = state.observation(seat)
                    self._masks[i] = state.legal_mask()
                    self._seats[i] = seat
                    continue
                if self._lengths[i] == 0:  # over before the learner's first decision: deal again
                    self._deal(i)
                else:
                    self._finish(i, rewards, dones, infos)
                    self._start_episode(i)
                again.append(i)
            pending = again

    def _finish(self, i: int, rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        """End slot ``i``'s episode: the reward is for the seat that made the slot's last
        decision; the Monitor-style ``episode`` return is the rotation seat's."""
        state, seat, mover = self.states[i], int(self.seats[i]), int(self._movers[i])
        terminated = state.is_terminal()
        returns = np.asarray(state.returns(), dtype=np.float64) if terminated else np.zeros(self.num_players)
        if terminated:
            self._outcomes[i] = returns
        rewards[i] = returns[mover]
        dones[i] = True
        infos[i] = {
            "terminal_observation": state.observation(mover),
            "TimeLimit.truncated": not terminated,
            "episode": {"r": float(returns[seat]), "l": int(self._lengths[i]),
                        "t": round(time.perf_counter() - self._started[i], 6)},
            "seat": seat,
            "learner_seats": [s for s, actor in enumerate(self.opponents[i]) if actor is None],
            "opponents": [actor.name for actor in self.opponents[i] if actor is not None],
        }

    # ------------------------------------------------------- opponent pool
    def set_live_policy(self, policy) -> None:
        """The learner's policy object: the pool's ``latest`` member plays it as it learns."""
        self.pool.set_live_policy(policy)

    def refresh_live_policy(self) -> None:
        """Nothing to do in one process (the pool holds the learner's own policy object)."""

    def add_checkpoint(self, path) -> None:
        self.pool.add_checkpoint(path)

    def checkpoint_paths(self) -> list[str]:
        return self.pool.checkpoint_paths()

    # --------------------------------------------------------------- VecEnv
    def reset(self):
        for i in range(self.num_envs):
            self.episodes[i] = 0
            self._start_episode(i)
        unused_rewards, unused_dones = np.zeros(self.num_envs, np.float32), np.zeros(self.num_envs, bool)
        self._advance(range(self.num_envs), unused_rewards, unused_dones, [{} for _ in range(self.num_envs)])
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = np.asarray(self._actions).reshape(-1), None
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        self._movers[:] = self._seats
        self._outcomes[:] = np.nan
        for i, action in enumerate(actions.tolist()):
            self.states[i].apply(action)
            self._lengths[i] += 1
        self._advance(range(self.num_envs), rewards, dones, infos)
        return self._obs.copy(), rewards, dones, infos

    def close(self) -> None:
        pass


def local_collector(env_id: str, env_options: dict, num_games: int, pool_config: dict, seed: int = 0,
                    first_slot: int = 0) -> SelfPlayVecEnv:
    """A :class:`SelfPlayVecEnv` with its own opponent pool built from a run's ``pool`` config."""
    pool = OpponentPool(env_id, env_options, pool_config["latest"], pool_config["window"], pool_config["baselines"],
                        seed=seed)
    return SelfPlayVecEnv(env_id, env_options, num_games, pool, seed=seed, first_slot=first_slot,
                          learn_from_latest=pool_config["learn_from_latest"])

