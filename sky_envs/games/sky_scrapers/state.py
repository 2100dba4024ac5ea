"""Sky Scrapers positions: the rules of play, placement, colour choice and scoring.

A position's text, notation, explanations, observation layout and pictures live in the
modules beside this one (``text``, ``notation``, ``explain``, ``observation``, ``render``);
the state's methods of the same names hand over to them.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.state import GameState, win_loss_returns
from sky_envs.games.sky_scrapers import explain, notation, render
from sky_envs.games.sky_scrapers.board import Board
from sky_envs.games.sky_scrapers.kernels import apply_move, movement_mask
from sky_envs.games.sky_scrapers.observation import observation_table, seat_columns
from sky_envs.games.sky_scrapers.rules import CHOOSE, COLOUR_LETTERS, MOVE, PHASE_INDEX, PLACE
from sky_envs.games.sky_scrapers.text import state_to_text


class SkyScrapersState(GameState):
    """One position. Stacks never split, so a cell is fully described by height and top colour.

    ``heights`` has one extra, always-zero slot at index ``B`` so that an off-board landing
    (the board's sentinel) reads as "empty" without a branch.
    """

    __slots__ = ("game", "board", "heights", "tops", "seat_colours", "phase", "tiles_left",
                 "first_mover", "rng", "turns", "finished", "to_move", "current_player",
                 "_mask", "_legal_cache", "_planes", "_columns", "landing")

    def __init__(self, game, board: Board, heights, tops, seat_colours, phase: str, to_move: int,
                 tiles_left, first_mover: int, rng: np.random.Generator | None):
        self.game = game
        self.board = board
        self.heights = heights            # int32, length B + 1
        self.tops = tops                  # int8, length B, -1 = empty
        self.seat_colours = seat_colours  # int8 per seat, -1 while colours are undecided
        self.phase = phase
        self.tiles_left = tiles_left      # int32 per seat, tiles still to place (strategic)
        self.first_mover = first_mover    # who moves first once placement ends
        self.rng = rng if rng is not None else np.random.default_rng()
        self.turns = 0
        self.finished = False
        self.to_move = to_move            # whose turn it nominally is (kept for the text)
        self.current_player = -1
        self._mask: np.ndarray | None = None
        self._legal_cache = None
        # the observation table (see ``observation.py``), kept up to date move by move
        self._planes = observation_table(board, heights, tops, phase, tiles_left, self.num_players)
        self._columns = seat_columns(phase, seat_colours, self.num_players)
        self.landing = board.landing(heights)  # (B, 8): where each stack lands, kept up to date move by move
        self._start_turn(to_move)

    # ------------------------------------------------------------------ clone
    def clone(self) -> SkyScrapersState:
        twin = self._shallow_copy()
        twin.heights = self.heights.copy()
        twin.tops = self.tops.copy()
        twin.seat_colours = self.seat_colours.copy()
        twin.tiles_left = self.tiles_left.copy()
        # the rng serves set-up only (no chance during play), so clones may share it
        twin._planes = self._planes.copy()
        twin.landing = self.landing.copy()
        return twin

    # ------------------------------------------------------------------ rules
    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = np.zeros(self.game.num_actions, dtype=bool)
            self._mask.flags.writeable = False
        return self._mask

    def _start_turn(self, seat: int) -> None:
        """Hand the next decision to ``seat`` or the first seat after it that has one."""
        P = self.num_players
        mask = None
        if self.phase == CHOOSE:
            mask = np.zeros(self.game.num_actions, dtype=bool)
            mask[9 * self.board.size: 9 * self.board.size + 2] = True
        elif self.phase == PLACE:
            while self.tiles_left[seat] == 0:
                seat = (seat + 1) % P
            mask = np.zeros(self.game.num_actions, dtype=bool)
            empty = np.flatnonzero(self.board.cells & (self.heights[:-1] == 0))
            mask[8 * self.board.size + empty] = True
        else:
            mask = np.zeros(self.game.num_actions, dtype=bool)
            mover = movement_mask(self.heights, self.tops, self.landing, self.seat_colours, seat, mask)
            if mover < 0:
                mask = None
            else:
                seat = mover
        self.to_move = seat
        if mask is None:
            self.finished = True
            self.current_player, self._mask = -1, None
        elif self.turns >= self.game.max_turns:
            self.current_player, self._mask = -1, None
        else:
            mask.flags.writeable = False
            self.current_player, self._mask = seat, mask

    def apply_unchecked(self, action: int) -> None:
        B, P = self.board.size, self.num_players
        seat = self.current_player
        self.turns += 1
        if action < 8 * B:
            origin, d = divmod(action, 8)
            apply_move(self.heights, self.tops, self.landing, self._planes, self.board.reach, origin, d, P)
            self._start_turn((seat + 1) % P)
        elif action < 9 * B:
            cell = action - 8 * B
            colour = self.seat_colours[seat]
            self.heights[cell] = 1
            self.tops[cell] = colour
            self.landing[cell] = self.board.reach[1, cell]
            self.tiles_left[seat] -= 1
            self._planes[cell, 1 + colour] = 1
            self._planes[:, P + 3 + seat] = self.tiles_left[seat]
            if self.tiles_left.any():
                self._start_turn((seat + 1) % P)
            else:
                self.phase = MOVE
                self._planes[:, P + 1] = 0
                self._start_turn(self.first_mover)
        else:
            chosen = action - 9 * B
            self.seat_colours[seat] = chosen
            self.seat_colours[1 - seat] = 1 - chosen
            self.phase = MOVE
            self._columns = seat_columns(self.phase, self.seat_colours, P)
            self._planes[:, P + 2] = 0
            self._start_turn(1 - seat)

    def illegal_reason(self, action: int) -> str:
        return explain.illegal_reason(self, action)

    def action_to_string(self, action: int) -> str:
        return notation.action_to_string(self, int(action))

    def string_to_action(self, text: str) -> int:
        return notation.string_to_action(self, text)

    def describe_action(self, action: int) -> str:
        return notation.describe_action(self, int(action))

    # ------------------------------------------------------------------ end
    def is_terminal(self) -> bool:
        return self.finished

    def is_truncated(self) -> bool:
        return not self.finished and self.turns >= self.game.max_turns

    def skyscrapers(self) -> tuple[list[int], list[int]]:
        """Per seat: the number of sky scrapers and the height of the tallest (0 if none)."""
        counts, tallest = [], []
        tall = self.heights[:-1] >= self.game.skyscraper_height
        for seat in range(self.num_players):
            own = self.heights[:-1][tall & (self.tops == self.seat_colours[seat])]
            counts.append(int(own.size))
            tallest.append(int(own.max()) if own.size else 0)
        return counts, tallest

    def winners(self) -> list[int]:
        """Seats that win: most sky scrapers, then the tallest one; everyone when all tie."""
        counts, tallest = self.skyscrapers()
        if max(counts) == 0:
            return list(range(self.num_players))
        best = max(zip(counts, tallest))
        return [s for s in range(self.num_players) if (counts[s], tallest[s]) == best]

    def returns(self) -> np.ndarray:
        return win_loss_returns(self.winners() if self.finished else [], self.num_players)

    def score_vector(self) -> list[int]:
        return self.skyscrapers()[0]

    def phase_index(self) -> int:
        return PHASE_INDEX[self.phase]

    def info(self) -> dict:
        counts, tallest = self.skyscrapers()
        info = {
            "skyscrapers": counts,
            "tallest": tallest,
            "colours": "".join(COLOUR_LETTERS[c] if c >= 0 else "?" for c in self.seat_colours),
            "phase": self.phase,
        }
        if self.finished:
            info["winners"] = self.winners()
        return info

    # ------------------------------------------------------------ observation
    def observation(self, seat: int) -> np.ndarray:
        """See ``observation.py``: one gather of the seat's columns of the kept table."""
        board = self.board
        return self._planes.take(self._columns[seat], axis=1).reshape(board.rows, board.cols, self.num_players + 4)

    # ------------------------------------------------------------------ text
    def to_text(self) -> str:
        return state_to_text(self)

    def render_text(self) -> str:
        return render.render_text(self)
