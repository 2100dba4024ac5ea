"""Scala's compiled batched engine: :class:`ScalaBatch` steps ``num_envs`` games in one
numba call (the :class:`~sky_envs.core.batched.BatchedGames` protocol of ``sky_envs.vector``).

A slot's game is a few numbers in arrays whose leading dimension is the slot (a structure
of arrays, as pgx's cores): ``stones`` ``(N, 4)`` int64, the two colour masks split in
44-bit halves as ``kernels.py`` takes them (``blue_lo, blue_hi, red_lo, red_hi``);
``plies`` (moves since the start or the loaded position, for ``max_turns``); ``connected``
(the stones are known to be one group, which lets most moves skip the search for groups);
``last_action`` (for the pictures of ``get_state``); the colour to move is
``current_player``. Settling a move and generating moves are ``kernels.py``'s functions,
the ones the readable engine calls; two pieces are written here again, over arrays: the
order of the end tests (``kernels.play_ply``, as ``ScalaState.apply_unchecked``) and, under
``split_rule="illegal"``, the filter of the moves that break the split rule
(``kernels.drop_split_moves``, ``rules.split_legal_targets`` compiled). The oracle tests hold
them to the readable engine.

What a step costs beyond the rules is the 7,744-entry action mask: only the rows of the
mover's stones can hold legal moves, so a step clears those 14 rows (1,232 entries) rather
than the whole row of the slot; and it writes only the observation entries that can change:
the stone channels (1 and 2) of the cells that held or hold a stone, and the goal entries
of channels 3 and 4, which swap with the seat.

Scala's set-up draws nothing: every game starts from one template built once from
``game.new_initial_state``; a restart copies it.

A Scala step costs several times another game's, so batches of ``PARALLEL_FROM`` games or
more are stepped in runs of neighbouring slots, one per thread
(``core.batched_kernel.step_slot_runs``); the kernel releases the GIL.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sky_envs.core.batched import BatchedGames
from sky_envs.core.batched_kernel import forget_last_end, playout_ended, random_legal_action, slot_runs, step_slot_runs
from sky_envs.games.scala import greedy_kernel
from sky_envs.games.scala.board import NUM_CELLS, TARGET_GOAL
from sky_envs.games.scala.heuristic import ScalaHeuristic
from sky_envs.games.scala.kernels import HALF_BITS, OWN_SLOT, _index_of, halves_of, move_work, play_ply
from sky_envs.games.scala.rules import MOVER_LOSES
from sky_envs.games.scala.state import ScalaState

#: the smallest batch stepped on several threads (on 2 cores, 128 games gained nothing: see the vector guide)
PARALLEL_FROM = 256
#: the flat observation entries of channels 3 and 4 (target / defended goal) on the two goal
#: cells: the only entries besides the stone channels that differ between the seats
GOAL_SLOTS = np.array([OWN_SLOT[goal] + channel for goal in TARGET_GOAL for channel in (2, 3)], dtype=np.int64)


@njit(cache=True)
def _observe(out, base, mine_lo, mine_hi, theirs_lo, theirs_hi, cells_lo, cells_hi, whole):
    """Write the position seen by a seat into the flat observation ``out`` (770 entries):
    its fixed channels from ``base`` (the seat's, ``game.observation_base``; all of them if
    ``whole``, else only the goal entries), then, on the cells ``cells``, its stones
    (channel 1) and the opponent's (2). The other cells' stone entries are left as they
    are: zeros after a whole copy (``base`` holds no stones)."""
    if whole:
        out[:] = base
    else:
        for k in GOAL_SLOTS:
            out[k] = base[k]
    for half in range(2):
        bits = cells_lo if half == 0 else cells_hi
        mine = mine_lo if half == 0 else mine_hi
        theirs = theirs_lo if half == 0 else theirs_hi
        while bits:
            low = bits & -bits
            bits ^= low
            cell = _index_of(low)
            slot = OWN_SLOT[cell + half * HALF_BITS]
            out[slot] = (mine >> cell) & 1
            out[slot + 1] = (theirs >> cell) & 1


@njit(cache=True)
def _observe_stones(out, bases, seat, stones, held_lo, held_hi, whole):
    """``_observe`` for ``seat`` of the colour masks ``stones`` (``blue_lo, blue_hi, red_lo,
    red_hi``) on the cells occupied now and, unless ``whole``, on the cells ``held`` (those
    occupied before the move)."""
    cells_lo, cells_hi = stones[0] | stones[2], stones[1] | stones[3]
    if not whole:
        cells_lo |= held_lo
        cells_hi |= held_hi
    if seat == 0:
        _observe(out, bases[0], stones[0], stones[1], stones[2], stones[3], cells_lo, cells_hi, whole)
    else:
        _observe(out, bases[1], stones[2], stones[3], stones[0], stones[1], cells_lo, cells_hi, whole)


@njit(cache=True)
def _restart(slot, stones, current_player, plies, connected, last_action, observation, mask,
             start_stones, start_seat, start_connected, start_actions, start_observation):
    """Put the template game into ``slot`` (its mask row must hold no move on entry)."""
    stones[slot, :] = start_stones
    current_player[slot] = start_seat
    plies[slot] = 0
    connected[slot] = start_connected
    last_action[slot] = -1
    for action in start_actions:
        mask[slot, action] = True
    observation[slot, :] = start_observation


@njit(cache=True)
def _step_slot(i, actions, stones, current_player, plies, connected, last_action,
               observation, mask, rewards, terminated, truncated, final_observation, keep_final, final_player,
               final_observer, bases, mover_loses, max_turns, start_stones, start_seat, start_connected, start_actions,
               start_observation, scratch, groups, work):
    """Slot ``i`` plays its action; an ended game is recorded and replaced by the template game."""
    colour = np.int64(current_player[i])
    held_lo, held_hi = stones[i, 0] | stones[i, 2], stones[i, 1] | stones[i, 3]
    plies[i] += 1
    winner, over = play_ply(stones[i], colour, actions[i], connected[i], plies[i], mover_loses, max_turns,
                         mask[i], scratch, groups, work)
    connected[i] = True
    last_action[i] = actions[i]
    if over == 0:
        current_player[i] = 1 - colour
        _observe_stones(observation[i], bases, 1 - colour, stones[i], held_lo, held_hi, False)
        return
    if over == 1:
        terminated[i] = True
        rewards[i, :] = -1.0
        rewards[i, winner] = 1.0
    else:
        truncated[i] = True
    final_player[i] = colour
    if keep_final:
        seen_by = colour if final_observer[i] < 0 else np.int64(final_observer[i])
        _observe_stones(final_observation[i], bases, seen_by, stones[i], 0, 0, True)
    _restart(i, stones, current_player, plies, connected, last_action, observation, mask,
             start_stones, start_seat, start_connected, start_actions, start_observation)


@njit(cache=True, nogil=True)
def _step(first, stop, actions, active, stones, current_player, plies, connected, last_action,
          observation, mask, rewards, terminated, truncated, final_observation, keep_final, final_player,
          final_observer, bases, mover_loses, max_turns, start_stones, start_seat, start_connected, start_actions,
          start_observation):
    """``ScalaBatch.step`` over the slots ``first..stop - 1`` (one run of
    ``core.batched_kernel.step_slot_runs``), with its own move list and list of groups: every
    active slot plays its action; a slot that does not move reads zero rewards and no end."""
    scratch = np.empty(NUM_CELLS * NUM_CELLS, dtype=np.int64)     # a move list
    groups = np.empty(2 * NUM_CELLS, dtype=np.int64)              # a list of groups
    work = move_work()                                            # the move generator's arrays
    for i in range(first, stop):
        forget_last_end(i, rewards, terminated, truncated, final_player)
        if not active[i]:
            continue
        _step_slot(i, actions, stones, current_player, plies, connected, last_action,
                   observation, mask, rewards, terminated, truncated, final_observation, keep_final,
                   final_player, final_observer, bases, mover_loses, max_turns, start_stones, start_seat,
                   start_connected, start_actions, start_observation, scratch, groups, work)


@njit(cache=True, nogil=True)
def _play_out(mt, max_plies, returns, actions, active, stones, current_player, plies, connected, last_action,
              observation, mask, rewards, terminated, truncated, final_observation, keep_final, final_player,
              final_observer, bases, mover_loses, max_turns, start_stones, start_seat, start_connected, start_actions,
              start_observation):
    """A random playout of the game in slot 0 (``BatchedGames.play_out``): moves picked by
    ``random_legal_action`` with Python's generator ``mt``, stepped by :func:`_step` (whose
    arguments follow ``returns``), until the game ends (``returns``: its rewards) or
    ``max_plies`` moves (-1: no cap; zeros then, as at a ``max_turns`` cut)."""
    returns[:] = 0.0
    count = 0
    while max_plies < 0 or count < max_plies:
        actions[0] = random_legal_action(mask[0], mt)
        _step(0, 1, actions, active, stones, current_player, plies, connected, last_action, observation, mask,
              rewards, terminated, truncated, final_observation, keep_final, final_player, final_observer, bases,
              mover_loses, max_turns, start_stones, start_seat, start_connected, start_actions, start_observation)
        count += 1
        if playout_ended(returns, rewards, terminated, truncated):
            return


class ScalaBatch(BatchedGames):
    """``num_envs`` Scala games over arrays, stepped by one compiled call per run of slots
    (one run per thread from ``PARALLEL_FROM`` games; module docstring)."""

    def __init__(self, game, num_envs: int, keep_final_observation: bool = True):
        super().__init__(game, num_envs, keep_final_observation)
        self.stones = np.zeros((num_envs, 4), dtype=np.int64)
        self.plies = np.zeros(num_envs, dtype=np.int32)
        self.connected = np.zeros(num_envs, dtype=bool)
        self.last_action = np.full(num_envs, -1, dtype=np.int32)
        # flat (N, 770) views of the observation arrays, as the kernels write them
        self._observation = self.observation.reshape(num_envs, -1)
        self._final_observation = (self.final_observation.reshape(num_envs, -1) if keep_final_observation
                                   else np.zeros((1, self._observation.shape[1]), dtype=np.float32))
        self._bases = np.stack([base.reshape(-1) for base in game.observation_base])
        self._mover_loses = game.split_rule == MOVER_LOSES
        start = game.new_initial_state(np.random.default_rng(0))   # Scala's set-up draws nothing
        self._start_stones = np.array(halves_of(*start.stones), dtype=np.int64)
        self._start_seat = start.current_player
        self._start_connected = start.connected
        self._start_actions = np.array(start.legal_actions(), dtype=np.int64)
        self._start_observation = start.observation(start.current_player).reshape(-1)
        self._runs = slot_runs(num_envs, PARALLEL_FROM)     # runs of slots stepped side by side
        self._use_greedy_kernel(greedy_kernel.greedy_actions, ScalaHeuristic)

    def _greedy_arguments(self) -> tuple:
        """A move list and its values (work arrays), the mask and position arrays of this
        batch, and the rules' settings (see :mod:`~sky_envs.games.scala.greedy_kernel`)."""
        width = self.game.num_actions
        return (np.zeros(width, dtype=np.int64), np.zeros(width, dtype=np.float64), self.action_mask, self.stones,
                self.current_player, self.plies, self.connected, self._mover_loses, self.game.max_turns)

    def reset(self, seeds: np.ndarray) -> None:
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self.final_player[:] = -1
        self.stones[:] = self._start_stones
        self.current_player[:] = self._start_seat
        self.plies[:] = 0
        self.connected[:] = self._start_connected
        self.last_action[:] = -1
        self.action_mask[:] = False
        self.action_mask[:, self._start_actions] = True
        self._observation[:] = self._start_observation

    def step(self, actions: np.ndarray, next_seeds: np.ndarray, active: np.ndarray) -> None:
        step_slot_runs(_step, self.num_envs, self._runs, actions, active, *self._step_arrays())

    def _step_arrays(self) -> tuple:
        """:func:`_step`'s arguments after the actions and active slots."""
        return (self.stones, self.current_player, self.plies, self.connected, self.last_action, self._observation,
                self.action_mask, self.rewards, self.terminated, self.truncated, self._final_observation,
                self.final_observation is not None, self.final_player, self.final_observer, self._bases,
                self._mover_loses, self.game.max_turns, self._start_stones, self._start_seat, self._start_connected,
                self._start_actions, self._start_observation)

    plays_out = True

    def _run_playout(self, max_plies, mt, returns, actions, seeds, active) -> None:
        _play_out(mt, max_plies, returns, actions, active, *self._step_arrays())     # Scala starts no seeded game

    def set_state(self, slot: int, state: ScalaState) -> None:
        if state.game.env_id != self.game.env_id:
            raise ValueError(f"a {state.game.env_id} position cannot go into a batch of {self.game.env_id}")
        if state.current_player < 0:
            raise ValueError(f"slot {slot}: the position is over; a slot holds a game in play")
        if state.game.options() != self.game.options():
            raise ValueError(f"slot {slot}: the position is of {state.game.options()}, the batch of {self.game.options()}")
        self.stones[slot] = halves_of(*state.stones)
        self.current_player[slot] = state.current_player
        self.plies[slot] = state.plies
        self.connected[slot] = state.connected
        self.last_action[slot] = -1 if state.last_move is None else state.last_move[0] * NUM_CELLS + state.last_move[1]
        self.action_mask[slot] = state.legal_mask()
        self.observation[slot] = state.observation(state.current_player)

    def get_state(self, slot: int) -> ScalaState:
        blue_lo, blue_hi, red_lo, red_hi = (int(half) for half in self.stones[slot])
        state = ScalaState(self.game, blue_lo | blue_hi << HALF_BITS, red_lo | red_hi << HALF_BITS,
                           int(self.current_player[slot]), None)
        state.plies = int(self.plies[slot])
        if self.last_action[slot] >= 0:
            state.last_move = divmod(int(self.last_action[slot]), NUM_CELLS)
        return state
