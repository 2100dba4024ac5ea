"""Skybridge's heuristic for the baseline agents (:class:`~sky_envs.core.state.Heuristic`):
the default judgement (the score lead), with one-ply move values that score each placement
on copies of the towers' tops instead of a clone of the whole position."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sky_envs.core.state import Heuristic, _lead
from sky_envs.games.skybridge.pieces import BRIDGE, OPPOSITE, ROOF, SUP_S, SUP_T, piece_storeys
from sky_envs.games.skybridge.rules import scores


class SkybridgeHeuristic(Heuristic):
    def move_values(self, states: Sequence) -> list[np.ndarray]:
        """One-ply values of every legal action in each of ``states``, exactly
        :meth:`played_value`'s: the score lead after the placement. The seed variant's scores
        read only the towers' heights and top pieces, so each placement is scored on copies
        of those; where the game could end with the placement (no tall or short block left
        to any seat, or no open tower: ``SkybridgeState._start_turn`` then finds no seat that
        can place, and the value is ``WIN`` times the return), and in the classic variant,
        the placement is played on a clone."""
        return [self._values(state) for state in states]

    def _values(self, state) -> np.ndarray:
        game, seat = state.game, state.current_player
        actions = state.legal_actions().tolist()
        values = np.empty(len(actions))
        blocks_left = sum(slot[SUP_T] + slot[SUP_S] for supply in state.supply for slot in supply)
        open_towers = len(state._open)
        for k, action in enumerate(actions):
            slot, kind, target, sup_index = game.action_parts[action]
            goes_on = (not game.classic and blocks_left - (sup_index in (SUP_T, SUP_S)) > 0
                       and open_towers - (kind == ROOF) > 0)
            if not goes_on:
                values[k] = self.played_value(state, seat, action)
                continue
            colour = game.slot_colour[seat][slot]
            heights, kinds, colours = state.heights[:], state.top_kind[:], state.top_colour[:]
            if kind == BRIDGE:
                a, b, d = game.edges[target]
                for tower, end in ((a, BRIDGE + d), (b, BRIDGE + OPPOSITE[d])):
                    heights[tower] += piece_storeys(end)
                    kinds[tower], colours[tower] = end, colour
            else:
                heights[target] += piece_storeys(kind)
                kinds[target], colours[target] = kind, colour
            values[k] = _lead(scores(game, state.stacks, heights, kinds, colours), seat)
        return values
