"""The learner's seats against batched actors, over the games of a :class:`sky_envs.vector.VectorEnv`.

:class:`LearnerSlots` is what the single-agent vector adapters
(:mod:`sky_envs.integrations.gymnasium_vector`, :mod:`sky_envs.integrations.sb3_vector`)
and the self-play collector (``training.collector``) share. Each slot of the VectorEnv
holds one *episode*: a game in which some seats are the learner's and every other seat is
played by an :class:`~sky_envs.integrations.actors.Actor` (who plays which seat is chosen
per slot and episode by the caller's ``assign``). ``step(actions)`` plays the learner's
move in every slot, then brings every slot to the learner's next decision: each round,
the slots waiting on the same actor are decided by one ``act_batch`` call, and all the
slots waiting on actors move in one ``VectorEnv.step(where=...)``.

A game ends where the VectorEnv ends it and the slot's next game (the VectorEnv's seeding
rule: slot ``i``'s ``k``-th game is seeded ``seed + i + k * num_envs``) starts at once. If
the learner made a decision in it, the episode is over: its outcome is recorded in
:attr:`LearnerSlots.ended` and its siblings, and the slot's next episode is assigned. A
game that ends before the learner's first decision is dealt again: the next game is
played in the same episode, by the same seats.

The final observation of an ended episode is the learner's own view (the seat of its last
decision, ``VectorEnv.step``'s ``final_observer``), whoever made the last move.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sky_envs.vector import VectorEnv
from .actors import Actor, SlotStates, actor_for

#: ``assign(slot, episode)`` -> ``(seat, players)``: the slot's ``episode``-th episode (0, 1, ...),
#: ``players[s]`` the actor of seat ``s`` or None for the learner's seats, ``seat`` the
#: learner's seat the episode is reported for
Assign = Callable[[int, int], tuple[int, Sequence[Actor | None]]]

LEARNER = -1


class LearnerSlots:
    """The learner against batched actors in every slot of ``venv``; see the module docstring.

    After :meth:`reset` and after each :meth:`step`, every slot waits on one of the learner's
    seats: ``batch`` (the VectorEnv's) holds their observations and masks. For the episodes
    the last ``step`` ended (``ended``): ``truncated`` (cut at ``max_turns``), ``returns``
    (every seat's, zeros on a cut), ``final_observation`` (the learner's view), ``final_seat``
    (the seat of the learner's last decision), ``episode_seat`` and ``episode_players`` (what
    ``assign`` gave the episode), ``episode_decisions`` (the learner's decisions in it) and
    ``episode_seconds`` (wall time).
    """

    def __init__(self, venv: VectorEnv, assign: Assign):
        if venv.engine.final_observation is None:
            raise ValueError("the learner needs the final observations: make the VectorEnv with "
                             "keep_final_observation=True")
        self.venv = venv
        self.assign = assign
        n, players = venv.num_envs, venv.num_players
        self.slots = np.arange(n)
        self.actors: list[Actor] = []                               # every actor met so far
        self._actor_index: dict[int, int] = {}
        self.owner = np.full((n, players), LEARNER, dtype=np.int64)  # index into actors, or LEARNER
        self.players: list[list[Actor | None]] = [[None] * players for _ in range(n)]
        self.seat = np.zeros(n, dtype=np.int64)                     # each slot's episode seat
        self.episodes = np.zeros(n, dtype=np.int64)                  # episodes started per slot
        self.games = np.zeros(n, dtype=np.int64)                     # games started per slot (the seeding rule's k)
        self.decisions = np.zeros(n, dtype=np.int64)                 # learner decisions in the episode so far
        self.movers = np.full(n, -1, dtype=np.int64)                 # seat of the learner's last decision
        self._started = np.zeros(n, dtype=np.float64)
        self.seed = 0
        self.batch = None
        self.decision_seconds: dict[str, float] = {}                # time each actor (by name) spent deciding
        # the episodes the last step ended
        self.ended = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.returns = np.zeros((n, players), dtype=np.float32)
        self.final_observation = np.zeros((n, *venv.observation_shape), dtype=np.float32)
        self.final_seat = np.full(n, -1, dtype=np.int64)
        self.episode_seat = np.zeros(n, dtype=np.int64)
        self.episode_players: list[list[Actor | None]] = [[] for _ in range(n)]
        self.episode_decisions = np.zeros(n, dtype=np.int64)
        self.episode_seconds = np.zeros(n, dtype=np.float64)

    def learner_rewards(self) -> np.ndarray:
        """``(num_envs,)`` float32: where the last step ended an episode, the return of the seat
        of the learner's last decision in it; zeros elsewhere."""
        earned = self.returns[self.slots, np.maximum(self.final_seat, 0)]
        return np.where(self.ended, earned, 0.0).astype(np.float32)

    def game_seed(self, slot: int) -> int:
        """The seed of the game in ``slot`` (``env.reset(seed=...)`` of the AEC env plays it)."""
        return int((self.seed + slot + self.games[slot] * self.venv.num_envs) & ((1 << 63) - 1))

    # ------------------------------------------------------------------ play
    def reset(self, seed: int) -> None:
        """New games in every slot (the VectorEnv's ``reset(seed)``), episode 0 assigned in
        each, all brought to the learner's first decision."""
        self.seed = seed
        self.batch = self.venv.reset(seed)
        self.games[:] = 0
        self.episodes[:] = 0
        self._clear_ends()
        for slot in range(self.venv.num_envs):
            self._start_episode(slot)
        self._play_actors()

    def step(self, actions: np.ndarray) -> None:
        """The learner's action in every slot, then every slot on to the learner's next
        decision. Illegal actions raise the VectorEnv's ``IllegalActionError`` (naming the
        slot) before any game moves."""
        if self.batch is None:
            raise RuntimeError("reset() needs to be called before step()")
        self._clear_ends()
        movers = self.batch.current_player.astype(np.int64)
        self.batch = self.venv.step(actions)
        self.movers[:] = movers
        self.decisions += 1
        self._record_ends(self.slots)
        self._play_actors()

    # --------------------------------------------------------------- helpers
    def _clear_ends(self) -> None:
        self.ended[:] = False
        self.truncated[:] = False
        self.returns[:] = 0.0
        self.final_seat[:] = -1

    def _start_episode(self, slot: int) -> None:
        seat, players = self.assign(slot, int(self.episodes[slot]))
        self.episodes[slot] += 1
        self.seat[slot] = seat
        self.players[slot] = list(players)
        self.owner[slot] = [LEARNER if actor is None else self._index(actor) for actor in players]
        self.decisions[slot] = 0
        self.movers[slot] = -1
        self._started[slot] = time.perf_counter()

    def _index(self, actor: Actor) -> int:
        key = id(actor)
        if key not in self._actor_index:
            self._actor_index[key] = len(self.actors)
            self.actors.append(actor)
        return self._actor_index[key]

    def _play_actors(self) -> None:
        """Every slot on to a learner's seat: one batched call per actor per round."""
        venv = self.venv
        while True:
            batch = self.batch
            who = self.owner[self.slots, batch.current_player]
            waiting = who != LEARNER
            if not waiting.any():
                return
            actions = np.zeros(venv.num_envs, dtype=np.int64)
            for index in np.unique(who[waiting]):
                slots = np.flatnonzero(who == index)
                actor = self.actors[index]
                start = time.perf_counter()
                actions[slots] = actor.act_batch(batch.observation[slots], batch.action_mask[slots],
                                                 SlotStates(venv, slots))
                seconds = self.decision_seconds
                seconds[actor.name] = seconds.get(actor.name, 0.0) + time.perf_counter() - start
            self.batch = venv.step(actions, where=waiting, final_observer=self.movers)
            self._record_ends(np.flatnonzero(waiting))

    def _record_ends(self, moved: np.ndarray) -> None:
        batch = self.batch
        over = moved[(batch.terminated | batch.truncated)[moved]]
        if over.size == 0:
            return
        self.games[over] += 1
        finished = over[self.decisions[over] > 0]   # the others are dealt again, in the same episode
        now = time.perf_counter()
        for slot in finished:
            self.ended[slot] = True
            self.truncated[slot] = batch.truncated[slot]
            self.returns[slot] = batch.rewards[slot]
            self.final_observation[slot] = batch.final_observation[slot]
            self.final_seat[slot] = self.movers[slot]
            self.episode_seat[slot] = self.seat[slot]
            self.episode_players[slot] = self.players[slot]
            self.episode_decisions[slot] = self.decisions[slot]
            self.episode_seconds[slot] = now - self._started[slot]
            self._start_episode(int(slot))


#: the learner's seat in the single-agent vector view: a seat index, or one of these
SEATS = ("rotate", "random")


class SingleAgentSlots(LearnerSlots):
    """The single-agent view over a VectorEnv: in each slot the learner plays one seat and
    ``opponent`` the others (the specs of :class:`sky_envs.gym_env.SingleAgentEnv`: an agent
    spec for every other seat, or a list with one per other seat; ``"random"``,
    ``"greedy"``, ``"mcts@N"``, checkpoints, ``"pretrained"``, agents). Each opponent seat is
    one actor for all the slots, so each round decides all the slots waiting on it in one call.

    ``seat``: ``"rotate"`` (slot ``i``'s ``k``-th episode is played from seat ``(i + k) %
    num_players``, so every seat gets the same share), ``"random"`` (drawn per episode from
    the reset seed) or a seat index. ``engine``, ``positions`` and ``options`` go to
    :func:`sky_envs.vector.make`.
    """

    def __init__(self, env_id: str, num_envs: int, opponent: Any = "random", seat: int | str = "rotate",
                 engine: str = "auto", positions: Sequence[str] | None = None, **options: Any):
        from sky_envs import vector
        from sky_envs.gym_env import make_opponents, seat_option

        venv = vector.make(env_id, num_envs, positions=positions, engine=engine, **options)
        self.seat_option = seat_option(seat, venv.num_players, SEATS)
        agents = make_opponents(opponent, venv.env_id, options, venv.num_players)
        self.opponents = [actor_for(agent) for agent in agents]
        self._seat_rng = np.random.default_rng(0)
        super().__init__(venv, self._assign)

    def reset(self, seed: int | None = None) -> None:
        """New games in every slot; ``seed`` None draws one. Opponent ``k`` is re-seeded with
        ``seed + 1 + k`` (as the single-agent env re-seeds its opponents)."""
        if seed is None:
            seed = int(np.random.default_rng().integers(1 << 62))
        for k, actor in enumerate(self.opponents):
            actor.reset(seed + 1 + k)
        self._seat_rng = np.random.default_rng(seed)
        super().reset(seed)

    def _assign(self, slot: int, episode: int) -> tuple[int, list[Actor | None]]:
        players = self.venv.num_players
        if self.seat_option == "rotate":
            seat = (slot + episode) % players
        elif self.seat_option == "random":
            seat = int(self._seat_rng.integers(players))
        else:
            seat = int(self.seat_option)
        seated: list[Actor | None] = [None] * players
        for k, actor in enumerate(self.opponents):
            seated[(seat + 1 + k) % players] = actor
        return seat, seated
