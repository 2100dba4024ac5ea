"""The rules core both modes share: stands, top groups, the two-phase turn, legal masks.

A position is a list of stands, each a Python list of block colours from bottom to top,
plus the turn counter, the phase and the ``closed_this_turn`` flag. A stand is closed
exactly when it holds 11 blocks (the capacities of both modes make that an invariant).

Every turn is two decisions by the seat ``turn % num_players``: the transfer phase
(a transfer, "no transfer", or the 2-seat swap) and then the placement phase, skipped
when no placement is legal. The mode-specific rules are a handful of hooks that
:class:`~sky_envs.games.highrise_heist.heist.HeistState` and
:class:`~sky_envs.games.highrise_heist.rush.RushState` fill in: how high a placement
may build each stand, what closing a stand triggers, when the game is decided, who owns
a closed stand, and the rewards.

Speed: legal masks and observations are read from lookup tables
(:mod:`~sky_envs.games.highrise_heist.tables`, where the transfer height rules of both
modes live) through small per-stand codes that ``_recode`` refreshes whenever a stand
changes; whether the game is decided is recomputed only when a stand closes. The
explanations (:mod:`~sky_envs.games.highrise_heist.explain`) state the rules again,
independently and slowly, and the tests hold the two against each other and against a
naive reference.

The shared rule facts live in ``rules``; the position text, notation, explanations,
observations and pictures in the modules beside this one (``text``, ``notation``,
``explain``, ``observation``, ``render``), which the state's methods hand over to.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.buffers import KeepsViews, flat_view
from sky_envs.core.state import GameState
from sky_envs.games.highrise_heist import explain, notation, render
from sky_envs.games.highrise_heist.rules import (
    HEIGHT,
    PLACE,
    PLACE_CLASSES,
    PLACE_LOW,
    PLACEMENT_MASKS_KEPT,
    TRANSFER,
    cells_array,
    top_group,
)
from sky_envs.games.highrise_heist.text import state_to_text


class StackState(KeepsViews, GameState):
    """One position of either mode; see the module docstring. Mode subclasses add hooks."""

    __slots__ = ("game", "stands", "groups", "cells", "_cell_view", "turn", "phase",
                 "closed_this_turn", "rng", "finished", "current_player", "_mask",
                 "_legal_cache", "heights", "cap_bits", "source_rows", "target_cols",
                 "place_ids", "keys", "place_classes", "place_key", "_over_by_rules")

    def __init__(self, game, stands: list[list[int]], turn: int, phase: int, closed_this_turn: bool,
                 rng: np.random.Generator | None):
        self.game = game
        self.stands = stands
        # caches kept in step with ``stands`` (the hot path reads them, the tests check them):
        # the top group size of every stand, and the blocks as an array padded with -1
        self.groups = [top_group(column)[1] for column in stands]
        self.cells = cells_array(stands)
        self._views()
        self.turn = turn
        self.phase = phase
        self.closed_this_turn = closed_this_turn
        self.rng = rng if rng is not None else np.random.default_rng()
        self.finished = False
        self.current_player = -1
        self._mask: np.ndarray | None = None
        self._legal_cache = None
        self._init_codes()
        self._over_by_rules = self._decided()  # changes only when a stand closes: cached
        self._settle()

    def _init_codes(self) -> None:
        """Per-stand facts and table codes (see ``tables``), refreshed by ``_recode``."""
        S = len(self.stands)
        self.heights = [0] * S
        self.cap_bits = [0] * S
        self.source_rows = self.game.tables.source_rows.copy()  # stands first, then fixed rows
        self.target_cols = np.empty(S, dtype=np.intp)
        self.place_ids = np.empty(S, dtype=np.intp)
        self.keys = np.empty(S, dtype=np.intp)
        # each stand's placement class and their digits in base PLACE_CLASSES: the key of
        # the placement masks cache (see ``_placement``)
        self.place_classes = [0] * S
        self.place_key = 0
        for s in range(S):
            self._recode(s)

    _view_names = ("_cell_view",)

    def _views(self) -> None:
        # the few cells a decision changes are written through a flat view of ``cells``
        self._cell_view = flat_view(self.cells)

    def _recode(self, s: int) -> None:
        """Refresh the height, capacity bit, key and table codes of stand ``s`` after it
        changed (see :mod:`~sky_envs.games.highrise_heist.tables`)."""
        tables = self.game.tables
        column = self.stands[s]
        h = len(column)
        cb = self._capacity_bit(s)
        top = column[-1] if 0 < h < HEIGHT else (self.owner(s) if h else -1)  # owner once closed
        key = (((s * (HEIGHT + 1) + h) * (HEIGHT + 1) + self.groups[s]) * tables.owner_codes + top + 1) * 2 + cb
        self.heights[s] = h
        self.cap_bits[s] = cb
        self.keys[s] = key
        self.source_rows[s] = tables.source_of[key]
        self.target_cols[s] = tables.target_of[key]
        self.place_ids[s] = tables.place_of[key]
        cls = (h - PLACE_LOW) * 2 + cb if h > PLACE_LOW else cb
        old = self.place_classes[s]
        if cls != old:
            self.place_key += (cls - old) * PLACE_CLASSES ** s
            self.place_classes[s] = cls

    # ------------------------------------------------------------ mode hooks
    def placement_limits(self) -> list[int]:
        """Per stand: the highest it may be built by this placement (<= its height: none)."""
        raise NotImplementedError

    def max_blocks(self) -> int:
        """Blocks this placement may put down in total (3; 1 on the 2-seat opening turn)."""
        return 3

    def one_closure_only(self) -> bool:
        """True when a placement may not close two stands (the 2-seat game)."""
        return False

    def _capacity_bit(self, stand: int) -> int:
        """1 when the stand's own capacity is 11, 0 when it is 10 (per-stand capacities, the
        4-seat game); 0 in the 2-seat game, whose caps are global (see ``_placement_context``)."""
        return 0

    def _placement_context(self) -> int:
        """Index of the placement table that applies now (``game.tables.placement``)."""
        return 0

    def swap_legal(self) -> bool:
        return False

    def _swap(self) -> None:
        raise NotImplementedError

    def _on_close(self) -> None:
        """Called after a decision that closed at least one stand."""

    def _decided(self) -> bool:
        """True when the game is over by its rules."""
        raise NotImplementedError

    def owner(self, stand: int) -> int:
        """The seat owning a closed stand (-1 while it is open)."""
        column = self.stands[stand]
        return column[-1] if len(column) == HEIGHT else -1

    # ------------------------------------------------------------ basic facts
    def phase_index(self) -> int:
        return self.phase   # TRANSFER 0, PLACE 1

    @property
    def to_move(self) -> int:
        """The seat whose turn it is (also written in the text once the game is over)."""
        return self.turn % self.game.num_players

    def open_stands(self) -> list[int]:
        return [s for s, column in enumerate(self.stands) if len(column) < HEIGHT]

    def is_closed(self, stand: int) -> bool:
        return len(self.stands[stand]) == HEIGHT

    # ------------------------------------------------------------ turn flow
    def _settle(self) -> None:
        """Find the next decision: the game's end, the cut, or the mask of the phase."""
        if self._over_by_rules:
            self.finished = True
            self.current_player, self._mask = -1, None
            return
        if self.turn >= self.game.max_turns:
            self.current_player, self._mask = -1, None
            return
        if self.phase == PLACE:
            mask, placeable = self._placement()
            if not placeable:  # no legal placement: the turn ends
                self._end_turn()
                return
        else:
            mask = self._transfer_mask()
            mask.setflags(write=False)  # shared with the env and callers: never edited
        self.current_player, self._mask = self.to_move, mask

    def _end_turn(self) -> None:
        self.turn += 1
        self.phase = TRANSFER
        self.closed_this_turn = False
        self._settle()

    def apply_unchecked(self, action: int) -> None:
        layout = self.game.layout
        if self.phase == TRANSFER:
            if action == layout.swap:
                self._swap()
                self._end_turn()
                return
            if action < layout.no_transfer:
                self._transfer(*divmod(action, layout.num_stands))
            self.phase = PLACE
            self._settle()
        else:
            self._place(layout.placements[action - layout.single])
            self._end_turn()

    def _transfer(self, source: int, target: int) -> None:
        column = self.stands[source]
        groups, cells = self.groups, self._cell_view
        size = groups[source]
        colour = column[-1]
        height = len(column)
        del column[-size:]
        start = source * HEIGHT + height
        for i in range(start - size, start):
            cells[i] = -1
        groups[source] = top_group(column)[1]
        self._recode(source)
        destination = self.stands[target]
        height = len(destination)
        groups[target] = groups[target] + size if height and destination[-1] == colour else size
        destination.extend([colour] * size)
        excess = height + size - HEIGHT
        if excess < 0:
            start = target * HEIGHT + height
            for i in range(start, start + size):
                cells[i] = colour
            self._recode(target)
            return
        if excess > 0:  # overflow is removed from the bottom (the 2-seat game)
            del destination[:excess]
            if groups[target] > HEIGHT:
                groups[target] = HEIGHT
        self.cells[target] = destination
        self._recode(target)
        self._closed()

    def _place(self, parts: tuple[tuple[int, int], ...]) -> None:
        colour = self.to_move
        groups, cells = self.groups, self._cell_view
        closed = False
        for stand, count in parts:
            column = self.stands[stand]
            height = len(column)
            groups[stand] = groups[stand] + count if height and column[-1] == colour else count
            column.extend([colour] * count)
            start = stand * HEIGHT + height
            for i in range(start, start + count):
                cells[i] = colour
            self._recode(stand)
            closed = closed or height + count == HEIGHT
        if closed:
            self._closed()

    def _closed(self) -> None:
        """After a decision that closed at least one stand (the only way the game is decided)."""
        self.closed_this_turn = True
        self._on_close()
        self._over_by_rules = self._decided()

    # ------------------------------------------------------------ legal masks
    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            mask = np.zeros(self.game.num_actions, dtype=bool)
            mask.flags.writeable = False
            return mask
        return self._mask

    def _transfer_mask(self) -> np.ndarray:
        """One row per source stand (then rows for the other actions), one column per target,
        read from the mover's transfer table; flattened, the grid is the action layout."""
        tables = self.game.tables
        rows = self.source_rows
        if tables.swap_slot >= 0:
            rows[tables.swap_slot] = tables.swap_row if self.swap_legal() else tables.false_row
        grid = tables.transfer[self.to_move].take(rows, 0).take(self.target_cols, 1)
        return grid.ravel()[:tables.size]

    def _placement(self) -> tuple[np.ndarray, bool]:
        """The read-only placement mask, and whether any placement is legal.

        The mask is the (stand, stand) cells of the placement table, then each action's
        entry among them. Positions repeat their stands' placement classes far more often
        than their heights, so both are kept by context and classes
        (``tables.placement_masks``)."""
        tables = self.game.tables
        context = self._placement_context()
        key = context * tables.place_key_span + self.place_key
        entry = tables.placement_masks.get(key)
        if entry is None:
            ids = self.place_ids
            cells = tables.placement[context].take(ids, 0).take(ids, 1)
            mask = cells.ravel().take(tables.place_flat)
            mask.setflags(write=False)
            entry = (mask, bool(mask.any()))
            if len(tables.placement_masks) < PLACEMENT_MASKS_KEPT:
                tables.placement_masks[key] = entry
        return entry

    # ------------------------------------------------------------ explanations
    def illegal_reason(self, action: int) -> str:
        return explain.illegal_reason(self, int(action))

    def rule_violation(self, action: int) -> str | None:
        """Why ``action`` breaks a rule in this position, or None if it is legal (see
        :func:`~sky_envs.games.highrise_heist.explain.rule_violation`)."""
        return explain.rule_violation(self, action)

    def stand_name(self, stand: int) -> str:
        """Stand ``stand`` in words (the modes add what is special about it)."""
        return str(stand)

    def transfer_height_problem(self, colour: int, size: int, target: int) -> str | None:
        """Why the mode's height rule forbids a group of ``size`` onto ``target``, or None."""
        raise NotImplementedError

    def placement_height_problem(self, stand: int, height: int, limit: int) -> str:
        """Why a placement may not bring ``stand`` to ``height`` above its ``limit``."""
        raise NotImplementedError

    # ------------------------------------------------------------ end
    def is_terminal(self) -> bool:
        return self.finished

    def is_truncated(self) -> bool:
        return not self.finished and self.turn >= self.game.max_turns

    def action_to_string(self, action: int) -> str:
        return notation.action_to_string(self.game.layout, int(action))

    def string_to_action(self, text: str) -> int:
        return notation.string_to_action(self, text)

    def describe_action(self, action: int) -> str:
        return notation.describe_action(self, int(action))

    # ------------------------------------------------------------ copies, text
    def clone(self) -> StackState:
        twin = self._shallow_copy()
        twin.stands = [column[:] for column in self.stands]
        twin.groups = self.groups[:]
        twin.cells = self.cells.copy()
        twin._views()
        twin.heights = self.heights[:]
        twin.cap_bits = self.cap_bits[:]
        twin.source_rows = self.source_rows.copy()
        twin.target_cols = self.target_cols.copy()
        twin.place_ids = self.place_ids.copy()
        twin.place_classes = self.place_classes[:]
        twin.keys = self.keys.copy()
        # the rng is never drawn from during play (no chance after set-up): clones share it
        return twin

    def to_text(self) -> str:
        return state_to_text(self)

    def render_text(self) -> str:
        return render.render_text(self)
