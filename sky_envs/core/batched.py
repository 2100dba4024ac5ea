"""Many games of one configuration stepped together: the engine behind :mod:`sky_envs.vector`.

A :class:`BatchedGames` holds ``num_envs`` games (*slots*) of one :class:`Game` and keeps
its results in arrays whose leading dimension is the slot, overwritten in place by every
:meth:`~BatchedGames.reset` and :meth:`~BatchedGames.step`:

==================== ========================= ==============================================
array                shape, dtype              what it holds after a call
==================== ========================= ==============================================
``observation``      ``(N, *obs)`` float32     the position seen by the seat to move
``action_mask``      ``(N, A)`` bool           the legal actions of the seat to move
``current_player``   ``(N,)`` int32            the seat to move (never -1: see below)
``rewards``          ``(N, P)`` float32        each seat's return where the step ended the
                                               game (zeros on a ``max_turns`` cut), else 0
``terminated``       ``(N,)`` bool             the step ended the game by its rules
``truncated``        ``(N,)`` bool             the step ended the game at ``max_turns``
``final_observation`` ``(N, *obs)`` float32    where a game ended: its last position seen by
                                               ``final_observer`` (None if not kept)
``final_player``     ``(N,)`` int32            where a game ended: the seat whose action
                                               ended it, else -1
==================== ========================= ==============================================

One array is the caller's, read by ``step``: ``final_observer`` ``(N,)`` int32, the seat whose
view ``final_observation`` records in each slot, or -1 (the default) for ``final_player``'s. A
learner that plays one seat against others needs its own view of a game an opponent ended
(a value to bootstrap from where ``max_turns`` cut it).

A game that ends is replaced in its slot at once by a new one (the observation, mask and
seat to move are the new game's), so every slot always has a seat to move.

The contract every engine keeps, which the oracle tests check against the readable engine
(``GameState``) bit for bit: a slot started with seed ``s`` plays the game that
``env.reset(seed=s)`` of the AEC env plays (``Game.new_initial_state(np.random.default_rng(s))``),
and given the same actions it produces the same observations, masks, seats to move,
returns and ends. :class:`PythonBatchedGames` is that engine over plain ``GameState``
objects: any game gets it for free (:meth:`Game.batched_games`' default); a game with a
compiled engine over arrays of games returns that one instead.

Engines trust their caller: ``step`` takes one legal action per slot (``sky_envs.vector``
checks shape, range and legality first, and names the slot that is wrong).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from sky_envs.core.numpy_random import generator_state, generator_words
from sky_envs.core.python_random import new_python_random, seed_python_random
from sky_envs.core.state import WIN, Game, GameState


class BatchedGames(ABC):
    """``num_envs`` games of ``game`` stepped together (see the module docstring).

    Subclasses allocate nothing themselves: ``__init__`` here allocates every output array,
    and they fill them in :meth:`reset`, :meth:`step` and :meth:`set_state`.
    """

    def __init__(self, game: Game, num_envs: int, keep_final_observation: bool = True):
        self.game = game
        self.num_envs = num_envs
        shape, actions, seats = game.observation_shape, game.num_actions, game.num_players
        self.observation = np.zeros((num_envs, *shape), dtype=np.float32)
        self.action_mask = np.zeros((num_envs, actions), dtype=bool)
        self.current_player = np.zeros(num_envs, dtype=np.int32)
        self.rewards = np.zeros((num_envs, seats), dtype=np.float32)
        self.terminated = np.zeros(num_envs, dtype=bool)
        self.truncated = np.zeros(num_envs, dtype=bool)
        self.final_observation = np.zeros((num_envs, *shape), dtype=np.float32) if keep_final_observation else None
        self.final_player = np.full(num_envs, -1, dtype=np.int32)
        self.final_observer = np.full(num_envs, -1, dtype=np.int32)   # set by the caller: see the module docstring

    @abstractmethod
    def reset(self, seeds: np.ndarray) -> None:
        """Start a new game in every slot: slot ``i`` the one ``env.reset(seed=seeds[i])``
        plays. ``seeds``: ``(N,)`` int64, each in ``[0, 2**63)``. Rewards, ends and final
        players are cleared."""

    @abstractmethod
    def step(self, actions: np.ndarray, next_seeds: np.ndarray, active: np.ndarray) -> None:
        """Play ``actions[i]`` (``(N,)`` int64, legal) in every slot where ``active[i]``
        (``(N,)`` bool); where that ends the game, record the rewards, the end and the final
        observation (seen by ``final_observer[i]``, or by the mover where it is -1), then start the game of seed ``next_seeds[i]`` in that slot
        (``next_seeds`` is read only there). Slots not active keep their game and outputs
        as they are, except that their rewards, ends and final players are cleared; their
        ``actions`` are not read."""

    @abstractmethod
    def set_state(self, slot: int, state: GameState) -> None:
        """Put a copy of ``state`` (a position of this game that is not over) into ``slot``
        and refresh that slot's observation, mask and seat to move."""

    @abstractmethod
    def get_state(self, slot: int) -> GameState:
        """A copy of the position in ``slot`` as an ordinary :class:`GameState`."""

    #: what :meth:`play_out` hands its kernel, made at its first call: Python's generator, the
    #: returns, slot 0's action, the seed of its next game, and the active slots (slot 0 alone)
    _playout_inputs: tuple | None = None

    @property
    def plays_out(self) -> bool:
        """Whether the compiled kernel plays random playouts (:meth:`play_out`)."""
        return False

    def play_out(self, state: GameState, seed: int, max_plies: int | None = None) -> np.ndarray:
        """Every seat's return at the end of a random playout from ``state`` (left as it is),
        played in slot 0 by the compiled kernel (``max_plies``: a cap, as
        ``GameState.random_playout`` has): the moves, and so the result, that
        ``state.random_playout`` makes on a copy when its ``rng`` first draws ``seed``
        (Python's ``random.Random(seed)`` picks every move among the legal actions in
        ascending order). Slot 0's game is replaced. Engines whose kernel has a playout loop
        (:attr:`plays_out`) implement ``_run_playout``."""
        if not self.plays_out:
            raise ValueError(f"the compiled engine of {self.game.env_id} plays no playouts")
        inputs = self._playout_start(state, seed)
        self._run_playout(-1 if max_plies is None else max_plies, *inputs)
        return inputs[1].astype(np.float64)

    def _playout_start(self, state: GameState, seed: int) -> tuple:
        """Put ``state`` into slot 0 and seed Python's generator with ``seed``: the playout
        kernels' inputs (:attr:`_playout_inputs`)."""
        if self._playout_inputs is None:
            self._playout_inputs = (new_python_random(), np.zeros(self.game.num_players, dtype=np.float32),
                                    np.zeros(self.num_envs, dtype=np.int64), np.zeros(self.num_envs, dtype=np.int64),
                                    np.arange(self.num_envs) == 0)
        self.set_state(0, state)
        seed_python_random(self._playout_inputs[0], seed)
        return self._playout_inputs

    @property
    def plays_greedy_out(self) -> bool:
        """Whether the compiled kernel plays the search's greedy playouts
        (:meth:`greedy_play_out`): it judges moves as its heuristic class does, so a game given
        another heuristic plays them in Python."""
        return False

    def greedy_play_out(self, state: GameState, seed: int, epsilon: float) -> np.ndarray:
        """Every seat's return at the end of a greedy playout from ``state`` (left as it is),
        played in slot 0 by the compiled kernel: the moves, and so the result, of the readable
        greedy playout (``sky_envs.agents.playouts.greedy_playouts``) of a copy of ``state``
        whose stream is ``random.Random(seed)``. Slot 0's game is replaced. Engines whose
        kernel has that loop (:attr:`plays_greedy_out`) implement ``_run_greedy_playout``."""
        if not self.plays_greedy_out:
            raise ValueError(f"the compiled engine of {self.game.env_id} plays no greedy playouts")
        inputs = self._playout_start(state, seed)
        self._run_greedy_playout(float(epsilon), *inputs)
        return inputs[1].astype(np.float64)

    #: the kernel module's greedy entry point, ``greedy_actions(slots, out, agent_words, win,
    #: *arrays)``, and the heuristic class whose judgement it compiles (:meth:`_use_greedy_kernel`)
    _greedy = None
    _greedy_heuristic: type | None = None
    _greedy_inputs: tuple | None = None

    def _use_greedy_kernel(self, greedy_actions, heuristic: type) -> None:
        """Play the greedy baseline's moves with ``greedy_actions`` (a compiled kernel: see
        :attr:`_greedy`), which judges moves as ``heuristic`` does; its arrays after ``win``
        come from :meth:`_greedy_arguments`."""
        self._greedy, self._greedy_heuristic = greedy_actions, heuristic

    def _greedy_arguments(self) -> tuple:
        """The greedy kernel's arrays after ``win`` (made at its first call)."""
        raise NotImplementedError

    @property
    def plays_greedy(self) -> bool:
        """Whether the compiled kernel plays the greedy baseline's moves (:meth:`greedy_actions`):
        it judges moves as its heuristic class does, so a game given another heuristic is
        played by ``GreedyAgent``'s Python path."""
        return self._greedy is not None and type(self.game.heuristic) is self._greedy_heuristic

    def greedy_actions(self, slots: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The moves of :class:`~sky_envs.agents.baselines.GreedyAgent` for the seat to move in
        each of ``slots`` (an int array), decided in that order with ``rng`` as the agent's
        generator: the moves, and the generator's state after them, of
        ``act_many([get_state(slot) for slot in slots])``, without making the states.
        ``ValueError`` where the engine plays none (:attr:`plays_greedy`)."""
        if not self.plays_greedy:
            raise ValueError(f"the compiled engine of {self.game.env_id} plays no greedy moves")
        slots = check_slots(slots, self.num_envs)
        words = generator_words(rng)
        if self._greedy_inputs is None:
            self._greedy_inputs = self._greedy_arguments()
        out = np.zeros(slots.size, dtype=np.int64)
        self._greedy(slots, out, words, WIN, *self._greedy_inputs)
        rng.bit_generator.state = generator_state(words)
        return out

    def _run_playout(self, max_plies: int, mt: np.ndarray, returns: np.ndarray, actions: np.ndarray,
                     seeds: np.ndarray, active: np.ndarray) -> None:
        """The kernel's playout loop on slot 0: moves by ``core.batched_kernel.random_legal_action``
        with ``mt`` until the game ends (``returns``: its rewards) or ``max_plies`` moves
        (-1: no cap; ``returns`` zeros then, as at a ``max_turns`` cut). ``actions``, ``seeds``
        and ``active`` are the kernel's step inputs (a new game after the end gets seed 0)."""
        raise NotImplementedError

    def _run_greedy_playout(self, epsilon: float, mt: np.ndarray, returns: np.ndarray, actions: np.ndarray,
                            seeds: np.ndarray, active: np.ndarray) -> None:
        """The kernel's greedy playout loop on slot 0 until the game ends, its inputs as
        :meth:`_run_playout`'s: at each decision ``random()`` of ``mt`` first; from
        ``epsilon`` up and where the heuristic values the moves, one of the best-valued moves
        (the ``int(random() * ties)``-th in ascending order), else a random one as
        ``random_legal_action`` picks it."""
        raise NotImplementedError


#: what a one-entry-point kernel's ``advance`` does (:class:`KernelBatchedGames`)
STEP, RESTART, REFRESH = 0, 1, 2


class KernelBatchedGames(BatchedGames):
    """A compiled engine whose kernel has one entry point,
    ``advance(mode, first, last, actions, seeds, active, *arrays)``: :data:`STEP` plays
    ``actions`` in the active slots and restarts ended games from ``seeds``; :data:`RESTART`
    starts the games of ``seeds`` in every slot; :data:`REFRESH` rewrites the outputs of slots
    ``first`` to ``last - 1`` from their state (after ``set_state``). Subclasses call
    :meth:`_use_kernel` at the end of their ``__init__`` with the kernel's ``advance`` and
    its arguments after the first six (the output arrays first: :meth:`_kernel_outputs`).
    A kernel may also have ``play_out(mt, max_plies, returns, actions, seeds, active, *arrays)``,
    a random playout of slot 0 to the end (:meth:`play_out`): a loop over its own ``advance``
    in each kernel module, since numba's cache keeps no function that takes another compiled
    function as an argument (such a loop here would be compiled again in every process)."""

    _play_out = None

    def _kernel_outputs(self, flat=lambda array: array.reshape(len(array), -1)) -> tuple[np.ndarray, ...]:
        """The output arrays in the order the kernels take them, observations as ``flat`` makes
        them (one row a slot); without final observations a one-row placeholder, which the
        kernel is told not to write."""
        final = self.final_observation
        if final is None:
            final = np.zeros((1, *self.game.observation_shape), dtype=np.float32)
        return (flat(self.observation), self.action_mask, self.current_player, self.rewards,
                self.terminated, self.truncated, flat(final), self.final_player)

    def _use_kernel(self, advance, arrays: tuple, play_out=None) -> None:
        self._advance, self._arrays, self._play_out = advance, arrays, play_out
        self._everywhere = np.ones(self.num_envs, dtype=bool)
        self._no_actions = np.zeros(self.num_envs, dtype=np.int64)

    @property
    def plays_out(self) -> bool:
        return self._play_out is not None

    def _run_playout(self, max_plies, mt, returns, actions, seeds, active) -> None:
        self._play_out(mt, max_plies, returns, actions, seeds, active, *self._arrays)

    def reset(self, seeds: np.ndarray) -> None:
        self._advance(RESTART, 0, self.num_envs, self._no_actions, np.ascontiguousarray(seeds, dtype=np.int64),
                      self._everywhere, *self._arrays)

    def step(self, actions: np.ndarray, next_seeds: np.ndarray, active: np.ndarray) -> None:
        self._advance(STEP, 0, self.num_envs, np.ascontiguousarray(actions, dtype=np.int64),
                      np.ascontiguousarray(next_seeds, dtype=np.int64), np.ascontiguousarray(active, dtype=bool),
                      *self._arrays)

    def _refresh(self, slot: int) -> None:
        """Rewrite ``slot``'s outputs from its state arrays (after ``set_state`` filled them)."""
        self._advance(REFRESH, slot, slot + 1, self._no_actions, self._no_actions, self._everywhere, *self._arrays)


class PythonBatchedGames(BatchedGames):
    """The reference engine: one ``GameState`` per slot, stepped one after the other.

    Every game gets it; it is also what a compiled engine is compared with. Its speed is
    the readable engine's (a few microseconds a decision), plus no AEC bookkeeping.
    """

    def __init__(self, game: Game, num_envs: int, keep_final_observation: bool = True):
        super().__init__(game, num_envs, keep_final_observation)
        self.states: list[GameState | None] = [None] * num_envs

    def reset(self, seeds: np.ndarray) -> None:
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self.final_player[:] = -1
        for slot, seed in enumerate(seeds):
            self._start(slot, int(seed))

    def step(self, actions: np.ndarray, next_seeds: np.ndarray, active: np.ndarray) -> None:
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self.final_player[:] = -1
        for slot in np.flatnonzero(active):
            state = self.states[slot]
            mover = state.current_player
            state.apply_unchecked(int(actions[slot]))
            if state.current_player >= 0:
                self._write(slot, state)
                continue
            if state.is_terminal():
                self.terminated[slot] = True
                self.rewards[slot] = state.returns()
            else:
                self.truncated[slot] = True
            self.final_player[slot] = mover
            if self.final_observation is not None:
                observer = self.final_observer[slot]
                self.final_observation[slot] = state.observation(mover if observer < 0 else int(observer))
            self._start(slot, int(next_seeds[slot]))

    def set_state(self, slot: int, state: GameState) -> None:
        if state.game.env_id != self.game.env_id:
            raise ValueError(f"a {state.game.env_id} position cannot go into a batch of {self.game.env_id}")
        if state.current_player < 0:
            raise ValueError(f"slot {slot}: the position is over; a slot holds a game in play")
        self.states[slot] = state.clone()
        self._write(slot, self.states[slot])

    def get_state(self, slot: int) -> GameState:
        return self.states[slot].clone()

    def _start(self, slot: int, seed: int) -> None:
        state = self.game.new_initial_state(np.random.default_rng(seed))
        if state.current_player < 0:
            raise ValueError(f"seed {seed} gives a game that is over before its first move; "
                             "a batch needs games with a first decision")
        self.states[slot] = state
        self._write(slot, state)

    def _write(self, slot: int, state: GameState) -> None:
        seat = state.current_player
        self.current_player[slot] = seat
        self.action_mask[slot] = state.legal_mask()
        self.observation[slot] = state.observation(seat)


def python_batched_games(game: Game, num_envs: int, keep_final_observation: bool = True) -> BatchedGames:
    """:meth:`Game.batched_games`' default: the reference engine."""
    return PythonBatchedGames(game, num_envs, keep_final_observation)


def check_slots(slots: Sequence[int] | np.ndarray, num_envs: int) -> np.ndarray:
    """``slots`` as a 1-d int64 array of slots in ``[0, num_envs)``; ``ValueError`` otherwise."""
    array = np.ascontiguousarray(slots, dtype=np.int64)
    if array.ndim != 1 or (array.size and (array.min() < 0 or array.max() >= num_envs)):
        raise ValueError(f"slots must be a 1-d array of slots in [0, {num_envs - 1}]")
    return array


def check_seeds(seeds: Sequence[int] | np.ndarray, num_envs: int) -> np.ndarray:
    """``seeds`` as an ``(N,)`` int64 array, each in ``[0, 2**63)``; ``ValueError`` otherwise."""
    array = np.asarray(seeds)
    if array.shape != (num_envs,) or array.dtype.kind not in "iu":
        raise ValueError(f"seeds must be {num_envs} integers, got an array of shape {array.shape} and dtype {array.dtype}")
    if num_envs and (array.min() < 0 or array.max() >= 2**63):
        raise ValueError("seeds must be in [0, 2**63)")
    return array.astype(np.int64)
