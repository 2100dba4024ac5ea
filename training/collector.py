"""Self-play rollouts over many games at once, as a Stable-Baselines3 ``VecEnv``.

:class:`SelfPlayVecEnv` plays ``num_games`` games of a :class:`sky_envs.vector.VectorEnv`
(the game's compiled engine where it has one). Each game is one *slot* of the VecEnv: the
learner plays one seat in it (rotating seat by seat from episode to episode, so every seat
gets the same share of play), and every other seat is given a member of the opponent pool
for the episode. ``step(actions)`` applies the learner's move in every game, then advances
all games together to the learner's next decision: at each round, the games waiting on the
same opponent (the live policy, one checkpoint, a baseline) are decided by one batched call
of that opponent (:mod:`training.actors`), so a policy opponent costs one network forward
per round, not one per game, and all the waiting games move in one ``VectorEnv.step``
(:class:`sky_envs.integrations.learner_slots.LearnerSlots` does this loop, for the
single-agent adapters too).

Slot ``i``'s games follow the VectorEnv's seeding rule: its ``k``-th game is the one
``env.reset(seed=s + i + k * num_games)`` plays, ``s`` drawn from the collector's ``seed``
at each ``reset`` (:meth:`SelfPlayVecEnv.game_seed` tells the game in a slot).

With ``learn_from_latest`` (the default of ``training.selfplay``), a seat the pool gives to
the current policy is not an opponent at all: the learner plays it, in the same slot. The
slot then offers whichever of its learner seats is to move, so both sides of a self-play
game are trained on and no forward is spent on the live policy as an opponent. A slot's
consecutive transitions may then belong to different seats: the rollout buffer must chain
each decision to the same seat's next one (:class:`training.seat_buffer.PerSeatRolloutBuffer`,
which reads :meth:`GamesVecEnv.decision_record`).

The learner itself is unmodified sb3-contrib ``MaskablePPO``: it sees an ordinary VecEnv
with ``action_masks()``, terminal observations (the learner's view, whoever ended the game),
``TimeLimit.truncated`` on ``max_turns`` and Monitor-style ``episode`` infos.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from sky_envs import vector
from sky_envs.integrations.learner_slots import LearnerSlots
from sky_envs.integrations.sb3_vector import MaskableVecEnv
from .actors import Actor
from .pool import OpponentPool


class GamesVecEnv(MaskableVecEnv):
    """What both collectors share beyond the VecEnv plumbing: the learner's legal-action masks
    of every game and the seat records the rollout buffer reads. Subclasses keep
    ``self._masks`` and the records up to date.

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
        """The learner's legal actions in every game, ``(num_games, num_actions)``: a read-only
        view, not a copy (the collector makes new masks at every step and never writes old
        ones; SB3's ``get_action_masks`` stacks them into a copy anyway, a megabyte a step in
        Scala)."""
        masks = self._masks.view()
        masks.flags.writeable = False
        return masks

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


class SelfPlayVecEnv(GamesVecEnv):
    """``num_games`` games against the opponent pool; see the module docstring.

    ``first_slot`` offsets the seat rotation (a worker process holding slots 64..127 of a
    larger collector rotates them as those slots would).
    """

    def __init__(self, env_id: str, env_options: dict, num_games: int, pool: OpponentPool, seed: int = 0,
                 first_slot: int = 0, learn_from_latest: bool = False):
        self.venv = vector.make(env_id, num_games, **env_options)
        self.game = self.venv.game
        observation_space = spaces.Box(self.game.observation_low, self.game.observation_high,
                                       shape=self.game.observation_shape, dtype=np.float32)
        super().__init__(num_games, observation_space, spaces.Discrete(self.game.num_actions))
        self.pool = pool
        self.first_slot = first_slot
        self.learn_from_latest = learn_from_latest
        self._init_records(num_games, self.game.num_actions, self.game.num_players)
        self.slots = LearnerSlots(self.venv, self._assign)
        self._actions: np.ndarray | None = None
        self.rng = np.random.default_rng(seed)

    def _assign(self, slot: int, episode: int) -> tuple[int, list[Actor | None]]:
        """Slot ``slot``'s ``episode``-th episode: the rotation's seat, and a pool member for
        every other seat (None, the learner, for the live policy's with ``learn_from_latest``)."""
        players = self.game.num_players
        seat = (self.first_slot + slot + episode) % players
        members = [None if s == seat else self.pool.sample(self.rng) for s in range(players)]
        if self.learn_from_latest:  # the learner plays the live policy's seats itself
            members = [None if member is self.pool.live else member for member in members]
        return seat, members

    @property
    def seats(self) -> np.ndarray:
        """Each slot's rotation seat in its current episode (the seat its ``episode`` return is for)."""
        return self.slots.seat.copy()

    @property
    def opponents(self) -> list[list[Actor | None]]:
        """Each slot's players in its current episode, by seat: an actor, or None for the learner's seats."""
        return [list(players) for players in self.slots.players]

    @property
    def states(self) -> list:
        """Copies of the positions in every slot, as ``GameState`` objects."""
        return [self.venv.game_state(i) for i in range(self.num_envs)]

    @property
    def decision_seconds(self) -> dict[str, float]:
        """Time each opponent (by name) spent deciding."""
        return self.slots.decision_seconds

    def game_seed(self, slot: int) -> int:
        """The seed of the game in ``slot``: the AEC env's ``reset(seed=...)`` plays that game."""
        return self.slots.game_seed(slot)

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
        self.slots.reset(int(self.rng.integers(1 << 62)))
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = np.asarray(self._actions).reshape(-1), None
        slots = self.slots
        self._movers[:] = self._seats
        slots.step(actions)
        ended = slots.ended
        self._outcomes[:] = np.nan
        self._outcomes[ended & ~slots.truncated] = slots.returns[ended & ~slots.truncated]
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(ended):
            seat, players = int(slots.episode_seat[i]), slots.episode_players[i]
            infos[i] = {
                "terminal_observation": slots.final_observation[i].copy(),
                "TimeLimit.truncated": bool(slots.truncated[i]),
                "episode": {"r": float(slots.returns[i, seat]), "l": int(slots.episode_decisions[i]),
                            "t": round(float(slots.episode_seconds[i]), 6)},
                "seat": seat,
                "learner_seats": [s for s, actor in enumerate(players) if actor is None],
                "opponents": [actor.name for actor in players if actor is not None],
            }
        return self._observe(), slots.learner_rewards(), ended.copy(), infos

    def _observe(self) -> np.ndarray:
        batch = self.slots.batch
        self._masks = batch.action_mask.copy()
        self._seats = batch.current_player.astype(np.int64)
        return batch.observation.copy()

    def close(self) -> None:
        pass


def local_collector(env_id: str, env_options: dict, num_games: int, pool_config: dict, seed: int = 0,
                    first_slot: int = 0) -> SelfPlayVecEnv:
    """A :class:`SelfPlayVecEnv` with its own opponent pool built from a run's ``pool`` config."""
    pool = OpponentPool(env_id, env_options, pool_config["latest"], pool_config["window"], pool_config["baselines"],
                        seed=seed)
    return SelfPlayVecEnv(env_id, env_options, num_games, pool, seed=seed, first_slot=first_slot,
                          learn_from_latest=pool_config["learn_from_latest"])

