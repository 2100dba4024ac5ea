"""The Sky Scrapers game: options, board construction, set-up, and the wiring of position
texts and pictures into states (documented in ``sky_envs/sky_scrapers_v0.py``)."""

from __future__ import annotations

from functools import cached_property, partial

import numpy as np

from sky_envs.core.boards import LINE_DIRECTIONS, is_connected, parse_mask, random_connected_cells
from sky_envs.core.options import MAX_SIDE, MAX_TURNS, choice_option, integer_option, reject_unknown_options
from sky_envs.core.state import Game, StackMoves
from sky_envs.core.symmetry import BoardSymmetries, box_symmetries
from sky_envs.games.sky_scrapers.board import board_for
from sky_envs.games.sky_scrapers.heuristic import SkyScrapersHeuristic
from sky_envs.games.sky_scrapers.render import render_rgb
from sky_envs.games.sky_scrapers.rules import CHOOSE, MOVE, PLACE, standard_colours
from sky_envs.games.sky_scrapers.state import SkyScrapersState
from sky_envs.games.sky_scrapers.text import read_position

BOARDS = ("standard", "square", "random")
OPTIONS = ("board", "rows", "cols", "cells", "lines", "players", "positioning", "first", "tiles_per_player",
           "skyscraper_height", "max_turns")
MAX_CELLS = MAX_SIDE * MAX_SIDE  # the biggest board: 64 x 64
POSITIONINGS = ("standard", "random", "strategic")
FIRSTS = ("player_0", "random")


class SkyScrapersGame(Game):
    """Validated options of one Sky Scrapers configuration; documented in ``sky_scrapers_v0``."""

    name = "sky_scrapers"
    heuristic = SkyScrapersHeuristic()

    def __init__(self, board: str = "standard", rows: int | None = None, cols: int | None = None,
                 cells: tuple[int, int] | None = None, lines: str = "all", players: int = 2,
                 positioning: str = "standard", first: str = "player_0",
                 tiles_per_player: int | None = None, skyscraper_height: int = 4,
                 max_turns: int | None = None, **unknown):
        reject_unknown_options("sky_scrapers_v0", unknown, OPTIONS)
        self._options = dict(board=board, rows=rows, cols=cols, cells=cells, lines=lines, players=players,
                             positioning=positioning, first=first, tiles_per_player=tiles_per_player,
                             skyscraper_height=skyscraper_height, max_turns=max_turns)
        players = choice_option("players", players, (2, 4))
        lines = choice_option("lines", lines, tuple(LINE_DIRECTIONS))
        positioning = choice_option("positioning", positioning, POSITIONINGS)
        first = choice_option("first", first, FIRSTS)
        if first == "random" and positioning != "strategic":
            raise ValueError("first='random' applies to positioning='strategic' only: standard positioning "
                             "starts with player_0 and random positioning tosses a coin")
        self.num_players = players
        self.lines = lines
        self.positioning = positioning
        self.first = first
        self.skyscraper_height = integer_option("skyscraper_height", skyscraper_height, 2, MAX_CELLS)
        self.fixed_cells = self._fixed_cells(board, rows, cols, cells)
        self.board_kind = board if board in BOARDS else "mask"
        B = self.rows * self.cols
        self.cell_range = self._cell_range(cells) if self.fixed_cells is None else (int(self.fixed_cells.sum()),) * 2
        if self.fixed_cells is not None and not is_connected(self.fixed_cells, lines):
            raise ValueError(f"the board is not connected along lines={lines!r}: some tiles could never meet")
        self.tiles_per_player = None if tiles_per_player is None else integer_option("tiles_per_player", tiles_per_player, 1, MAX_CELLS)
        self._check_tiles()
        self.num_actions = 9 * B + 2
        self.observation_shape = (self.rows, self.cols, players + 4)
        self.observation_high = float(B)
        # planes 1..P hold the seats' stack heights; one placing action per cell follows the moves
        full_box = board_for(np.ones((self.rows, self.cols), dtype=bool), lines)
        self.stack_moves = StackMoves(8, range(1, players + 1), 1, full_box.reach)
        self.max_turns = 2 * B + 2 if max_turns is None else integer_option("max_turns", max_turns, 1, MAX_TURNS)

    @cached_property
    def symmetries(self) -> BoardSymmetries:
        """The box's symmetries that keep the lines: a move's cell and direction, a placing
        action's cell, and the colour choices unchanged (every observation plane is per cell).
        Built when first asked for (training, averaged networks), not with every game."""
        cells, directions = box_symmetries(self.rows, self.cols, self.lines)
        B, count = self.rows * self.cols, len(cells)
        moves = (cells[:, :, None] * 8 + directions[:, None, :]).reshape(count, 8 * B)
        colours = np.tile([9 * B, 9 * B + 1], (count, 1))
        return BoardSymmetries(cells, np.concatenate([moves, 8 * B + cells, colours], axis=1))

    # ------------------------------------------------------------- validation
    def _fixed_cells(self, board, rows, cols, cells) -> np.ndarray | None:
        if not isinstance(board, str):
            raise ValueError(f"board must be one of {list(BOARDS)} or a mask string, got {board!r}")
        if board in ("standard", "square", "random"):
            side = 6 if self.num_players == 2 else 8
            if board == "standard" and (rows, cols) not in ((None, None), (side, side)):
                raise ValueError(f"board='standard' is {side}x{side} with {self.num_players} players; use board='square' for rows={rows}, cols={cols}")
            self.rows = side if rows is None else integer_option("rows", rows, 1, MAX_SIDE)
            self.cols = side if cols is None else integer_option("cols", cols, 1, MAX_SIDE)
            if cells is not None and board != "random":
                raise ValueError("cells=(min, max) applies to board='random' only")
            return None if board == "random" else np.ones((self.rows, self.cols), dtype=bool)
        if set(board) <= set(".#/\r\n ") and "." in board:
            mask = parse_mask(board)
            if (rows, cols) not in ((None, None), mask.shape):
                raise ValueError(f"rows={rows}, cols={cols} contradict the board mask, which is {mask.shape[0]}x{mask.shape[1]}")
            if cells is not None:
                raise ValueError("cells=(min, max) applies to board='random' only")
            self.rows, self.cols = mask.shape
            return mask
        raise ValueError(f"board={board!r} is not valid: expected one of {list(BOARDS)} or a mask string of '.' and '#' rows split by '/' or newlines")

    def _cell_range(self, cells) -> tuple[int, int]:
        B = self.rows * self.cols
        if B < self.num_players:
            raise ValueError(f"the board is too small: a {self.rows}x{self.cols} box has fewer cells than "
                             f"the {self.num_players} players, who need at least one tile each")
        if cells is None:
            return max(self.num_players, (B + 1) // 2), B
        try:
            low, high = cells
        except (TypeError, ValueError):
            raise ValueError(f"cells must be a pair of integers (min, max), got {cells!r}") from None
        low, high = (integer_option(f"cells {end}", x, 0, MAX_CELLS) for end, x in (("min", low), ("max", high)))
        if not self.num_players <= low <= high <= B:
            raise ValueError(f"cells=({low}, {high}) must satisfy {self.num_players} <= min <= max <= {B} (the {self.rows}x{self.cols} box)")
        return low, high

    def _check_tiles(self) -> None:
        P, tiles = self.num_players, self.tiles_per_player
        if tiles is None and self.cell_range[0] < P:  # the default cells // players would be 0
            raise ValueError(f"the board is too small: {self.cell_range[0]} cell(s) for {P} players, "
                             "who need at least one tile each")
        if self.positioning == "standard":
            if self.fixed_cells is None:
                raise ValueError("positioning='standard' needs a fixed board: a random board gives the colours "
                                 "unequal tile counts; use positioning='random' or 'strategic'")
            counts = np.bincount(standard_colours(self.fixed_cells, P)[self.fixed_cells], minlength=P)
            if len(set(counts.tolist())) != 1:
                raise ValueError(f"standard positioning on this board gives unequal tile counts {counts.tolist()}; "
                                 "use positioning='random' or 'strategic'")
            if tiles is not None and tiles != counts[0]:
                raise ValueError(f"standard positioning fills every cell: {counts[0]} tiles per player, not tiles_per_player={tiles}")
        elif tiles is not None and tiles * P > self.cell_range[0]:
            raise ValueError(f"the board is too small: {P} x {tiles} tiles need {tiles * P} cells but it may have only {self.cell_range[0]}")

    # ------------------------------------------------------------------ setup
    def new_initial_state(self, rng: np.random.Generator) -> SkyScrapersState:
        P, B = self.num_players, self.rows * self.cols
        cells = self.fixed_cells
        if cells is None:
            count = int(rng.integers(self.cell_range[0], self.cell_range[1] + 1))
            cells = random_connected_cells(self.rows, self.cols, count, self.lines, rng)
        board = board_for(cells, self.lines)
        tiles = self.tiles_per_player or board.num_cells // P
        heights = np.zeros(B + 1, dtype=np.int32)
        tops = np.full(B, -1, dtype=np.int8)
        seat_colours = np.arange(P, dtype=np.int8)
        tiles_left = np.zeros(P, dtype=np.int32)
        phase, to_move, first_mover = MOVE, 0, 0
        if self.positioning == "standard":
            colours = standard_colours(cells, P).reshape(-1)
            tops[board.cells] = colours[board.cells]
            heights[:B][board.cells] = 1
        elif self.positioning == "random":
            spots = rng.choice(np.flatnonzero(board.cells), size=tiles * P, replace=False)
            tops[spots] = np.repeat(np.arange(P, dtype=np.int8), tiles)
            heights[spots] = 1
            to_move = int(rng.integers(P))  # the coin toss: who moves first
            if P == 2:
                phase, seat_colours[:] = CHOOSE, -1
                to_move = 1 - to_move       # the second mover chooses the colour first
            else:
                seat_colours = rng.permutation(P).astype(np.int8)
        else:
            phase = PLACE
            tiles_left[:] = tiles
            to_move = int(rng.integers(P)) if self.first == "random" else 0
            first_mover = (to_move + 1) % P  # the seat that placed second moves first
        return SkyScrapersState(self, board, heights, tops, seat_colours, phase, to_move, tiles_left, first_mover, rng)

    def batched_games(self, num_envs: int, keep_final_observation: bool = True):
        """The compiled engine over arrays of games (every option set has one)."""
        from sky_envs.games.sky_scrapers.batched import SkyScrapersBatch

        return SkyScrapersBatch(self, num_envs, keep_final_observation)

    def exact_solver(self, max_nodes: int | None = None):
        """The compiled solver of the move phase (two seats; ``None`` with four)."""
        if self.num_players != 2:
            return None
        from sky_envs.games.sky_scrapers.solver_kernels import CompiledSolver

        return CompiledSolver(self, max_nodes=max_nodes)

    def state_from_text(self, text: str, rng: np.random.Generator | None = None) -> SkyScrapersState:
        return read_position(self, text, partial(SkyScrapersState, self, rng=rng))

    def render_rgb(self, state: SkyScrapersState) -> np.ndarray:
        return render_rgb(state)
