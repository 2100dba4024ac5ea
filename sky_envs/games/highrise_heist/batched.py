"""Highrise Heist and Golden Rush over arrays of games: the compiled engine behind
:mod:`sky_envs.vector` for both modes (``Game.batched_games``).

:class:`HighriseHeistBatch` keeps every slot's position as a structure of arrays (block
colours by stand and level, heights, top group sizes, turn, phase, ``closed_this_turn``,
the eligibility queue) and steps all slots in one compiled call
(:func:`~sky_envs.games.highrise_heist.batched_kernel.advance`), which applies the action,
settles the turn, and writes the next mask and observation, or the end of the game and the
next game. The kernel reads the game's own lookup tables, cut down to one stand's share
(:mod:`~sky_envs.games.highrise_heist.batched_tables`). ``set_state`` / ``get_state``
convert one slot to and from an ordinary
:class:`~sky_envs.games.highrise_heist.state.StackState`, the readable reference that the
oracle tests hold this engine to, bit for bit. The kernel also plays random playouts
(``BatchedGames.play_out``), except for Golden Rush's score rewards: float32 there, not the
float64 returns of the state.

Memory per live game: the outputs of ``BatchedGames`` (two observations of 6,160 bytes in
Highrise Heist, 10,296 in Golden Rush, and a mask), plus about 230 bytes of state.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.batched import KernelBatchedGames
from sky_envs.games.highrise_heist import batched_kernel as kernel
from sky_envs.games.highrise_heist import greedy_kernel
from sky_envs.games.highrise_heist.heuristic import StandsHeuristic
from sky_envs.games.highrise_heist.batched_tables import kernel_tables
from sky_envs.games.highrise_heist.heist import HeistState
from sky_envs.games.highrise_heist.rush import (CENTRE_POINTS, FAR_POINTS, NEAR_POINTS, SCORE_SCALE, TEAM_BONUS,
                                                RushState)
from sky_envs.games.highrise_heist.rules import HEIGHT


def _flat(array: np.ndarray) -> np.ndarray:
    """``(N, ...)`` as ``(N, size)``, the same memory: the kernel indexes each slot's row
    flat. Observations are handed over as int64 (pairs of channels: their channel counts
    are even), so that cells are copied 8 bytes at a time."""
    return array.reshape(len(array), -1)


class HighriseHeistBatch(KernelBatchedGames):
    """``num_envs`` games of Highrise Heist or Golden Rush (either configuration of
    ``game``), stepped by the compiled kernel; see the module docstring."""

    def __init__(self, game, num_envs: int, keep_final_observation: bool = True):
        super().__init__(game, num_envs, keep_final_observation)
        N, S, P = num_envs, game.num_stands, game.num_players
        rush = P == 4
        layout = game.layout
        tables = kernel_tables(game.tables, S, layout.swap >= 0, P)
        self._state = (np.full((N, S * HEIGHT), -1, dtype=np.int8),  # cells: colours by stand and level, -1 above
                       np.zeros((N, S), dtype=np.int8),             # heights
                       np.zeros((N, S), dtype=np.int8),             # top group sizes
                       np.zeros(N, dtype=np.int32),                 # turn
                       np.zeros(N, dtype=np.int8),                  # phase
                       np.zeros(N, dtype=np.int8),                  # closed_this_turn
                       np.full((N, 4), -1, dtype=np.int8),          # eligibility queue (Golden Rush)
                       np.zeros(N, dtype=np.int8),                  # its length
                       np.full(N, -1, dtype=np.int64))              # the seed of the slot's game
        # per stand: key, transfer source row offset, target column, placement id
        codes = tuple(np.zeros((N, S), dtype=np.int32) for _ in range(4))
        # what each slot's observation shows: the observer, and per stand the observation
        # key it was written with (-1: blocks changed since)
        seen = (np.full(N, -1, dtype=np.int8), np.full((N, S), -1, dtype=np.int32))
        tail = np.zeros(game.observation_shape[-1] - tables.tail_start, dtype=np.float32)  # the kernel's scratch
        config = np.zeros(kernel.CONFIG_SIZE, dtype=np.int64)
        config[[kernel.STANDS, kernel.PLAYERS, kernel.RUSH, kernel.MAX_TURNS]] = S, P, rush, game.max_turns
        config[kernel.TEAMS] = rush and game.mode == "teams"
        config[kernel.SCORE_REWARD] = rush and game.reward == "score"
        config[[kernel.NO_TRANSFER, kernel.SINGLE, kernel.SWAP]] = layout.no_transfer, layout.single, layout.swap
        config[[kernel.FRACTION_CHANNEL, kernel.QUEUE_CHANNEL, kernel.TAIL_START]] = (
            tables.fraction_channel, tables.queue_channel, tables.tail_start)
        config[[kernel.CENTRE_POINTS, kernel.NEAR_POINTS, kernel.FAR_POINTS, kernel.TEAM_BONUS]] = (
            CENTRE_POINTS, NEAR_POINTS, FAR_POINTS, TEAM_BONUS)
        config[kernel.SCORE_SCALE] = SCORE_SCALE  # 100: an integer, divided as a float
        config[kernel.KEEP_FINAL] = keep_final_observation
        config[kernel.PLACE_ROW] = game.tables.place_stride * 4
        self._placements, self._config = tables.arrays[5], config
        self._use_greedy_kernel(greedy_kernel.greedy_actions, StandsHeuristic)
        outputs = self._kernel_outputs(flat=lambda array: _flat(array).view(np.int64))
        self._use_kernel(kernel.advance, (*outputs, *self._state, *codes, *seen, *tables.arrays, tail,
                                          tail.view(np.int64), config, self.final_observer),
                         play_out=None if config[kernel.SCORE_REWARD] else kernel.play_out)

    def _greedy_arguments(self) -> tuple:
        """Work arrays, the mask and position arrays of this batch and a one-slot copy to play
        each move on, the placements table and the configuration (see
        :mod:`~sky_envs.games.highrise_heist.greedy_kernel`)."""
        P, A, S = self.game.num_players, self.game.num_actions, self.game.num_stands
        copy = (np.full((1, S * HEIGHT), -1, dtype=np.int8), np.zeros((1, S), dtype=np.int8),
                np.zeros((1, S), dtype=np.int8), np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int8),
                np.zeros(1, dtype=np.int8), np.full((1, 4), -1, dtype=np.int8), np.zeros(1, dtype=np.int8),
                np.zeros((1, S), dtype=np.int32))
        return (np.zeros(A, dtype=np.int64), np.zeros(A, dtype=np.float64), np.zeros((1, P), dtype=np.float64),
                self.action_mask, *self._state[:8], *copy, self._placements, self._config)

    def set_state(self, slot: int, state) -> None:
        if state.game.env_id != self.game.env_id:
            raise ValueError(f"a {state.game.env_id} position cannot go into a batch of {self.game.env_id}")
        if state.current_player < 0:
            raise ValueError(f"slot {slot}: the position is over; a slot holds a game in play")
        cells, heights, groups, turn, phase, closed, queue, queue_len, seeds = self._state
        cells[slot] = state.cells.ravel()
        heights[slot] = state.heights
        groups[slot] = state.groups
        turn[slot] = state.turn
        phase[slot] = state.phase
        closed[slot] = state.closed_this_turn
        seeds[slot] = -1  # not known; neither mode has chance, so no rng is ever drawn from
        if self.game.num_players == 4:
            queue[slot] = -1
            queue[slot, :len(state.queue)] = state.queue
            queue_len[slot] = len(state.queue)
        self._refresh(slot)

    def get_state(self, slot: int):
        cells, heights, groups, turn, phase, closed, queue, queue_len, seeds = self._state
        stands = [cells[slot, s * HEIGHT:s * HEIGHT + heights[slot, s]].tolist() for s in range(self.game.num_stands)]
        rng = np.random.default_rng(int(seeds[slot])) if seeds[slot] >= 0 else None
        position = (self.game, stands, int(turn[slot]), int(phase[slot]), bool(closed[slot]))
        if self.game.num_players == 4:
            return RushState(*position, queue[slot, :queue_len[slot]].tolist(), rng)
        return HeistState(*position, rng)
