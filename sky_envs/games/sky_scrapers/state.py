"""Sky Scrapers positions: the rules of play, placement, colour choice and scoring."""

from __future__ import annotations

import numpy as np

from sky_envs.core.boards import DIRECTION_NAMES
from sky_envs.core.state import GameState, win_loss_returns
from sky_envs.games.sky_scrapers.board import Board
from sky_envs.games.sky_scrapers.kernels import apply_move, movement_mask

MOVE, PLACE, CHOOSE = "move", "place", "choose"
PHASE_INDEX = {MOVE: 0, PLACE: 1, CHOOSE: 2}   # infos["phase"]
COLOUR_LETTERS = "abcd"
_DIRS = np.arange(8)


class SkyScrapersState(GameState):
    """One position. Stacks never split, so a cell is fully described by height and top colour.

    ``heights`` has one extra, always-zero slot at index ``B`` so that an off-board landing
    (the board's sentinel) reads as "empty" without a branch.
    """

    __slots__ = ("game", "board", "heights", "tops", "seat_colours", "phase", "tiles_left",
                 "first_mover", "rng", "turns", "finished", "to_move", "current_player",
                 "_mask", "_legal_cache", "_planes", "_columns", "_landing")

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
        self._planes = self._build_planes()
        self._columns = self._observation_columns()
        self._landing = board.landing(heights)  # (B, 8), kept up to date move by move
        self._start_turn(to_move)

    def _build_planes(self) -> np.ndarray:
        """Every observation channel of every seat, kept up to date move by move, so that
        ``observation(seat)`` is a single column gather. Columns: 0 cells, 1 + c the
        heights of colour c's stacks, P + 1 placement phase, P + 2 colour choice,
        P + 3 + s seat s's tiles left to place. Heights are capped at B: only a loaded
        position can hold more tiles than the box has cells, and the observation space's
        bound stays true."""
        P, B = self.num_players, self.board.size
        planes = np.zeros((B, 2 * P + 3), dtype=np.float32)
        planes[:, 0] = self.board.cells
        occupied = self.tops >= 0
        planes[occupied, 1 + self.tops[occupied]] = np.minimum(self.heights[:B][occupied], B)
        planes[:, P + 1] = self.phase == PLACE
        planes[:, P + 2] = self.phase == CHOOSE
        planes[:, P + 3:] = self.tiles_left
        return planes

    def _observation_columns(self) -> list[np.ndarray]:
        """Per seat, the columns of ``_planes`` its observation gathers (see ``observation``);
        they change only when the colours are chosen, so they are built then."""
        P = self.num_players
        out = []
        for seat in range(P):
            if self.phase == CHOOSE:
                colours = range(1, P + 1)
            else:
                colours = [1 + self.seat_colours[(seat + k) % P] for k in range(P)]
            out.append(np.array([0, *colours, P + 1, P + 2, P + 3 + seat], dtype=np.intp))
        return out

    # ------------------------------------------------------------------ clone
    def clone(self) -> SkyScrapersState:
        twin = self._shallow_copy()
        twin.heights = self.heights.copy()
        twin.tops = self.tops.copy()
        twin.seat_colours = self.seat_colours.copy()
        twin.tiles_left = self.tiles_left.copy()
        # the rng serves set-up only (no chance during play), so clones may share it
        twin._planes = self._planes.copy()
        twin._landing = self._landing.copy()
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
            mover = movement_mask(self.heights, self.tops, self._landing, self.seat_colours, seat, mask)
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
            apply_move(self.heights, self.tops, self._landing, self._planes, self.board.reach, origin, d, P)
            self._start_turn((seat + 1) % P)
        elif action < 9 * B:
            cell = action - 8 * B
            colour = self.seat_colours[seat]
            self.heights[cell] = 1
            self.tops[cell] = colour
            self._landing[cell] = self.board.reach[1, cell]
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
            self._columns = self._observation_columns()
            self._planes[:, P + 2] = 0
            self._start_turn(1 - seat)

    def illegal_reason(self, action: int) -> str:
        B = self.board.size
        seat = self.current_player
        if self.phase == CHOOSE:
            return "player_%d must first choose a colour (actions %d, %d)" % (seat, 9 * B, 9 * B + 1)
        if self.phase == PLACE:
            if not 8 * B <= action < 9 * B:
                return "tiles are still being placed: only placements on empty cells are legal"
            cell = action - 8 * B
            return "that cell is not on the board" if not self.board.cells[cell] else "that cell already holds a tile"
        if action >= 8 * B:
            return "placements and colour choices are over: only stack moves are legal"
        origin, d = divmod(action, 8)
        if not self.board.cells[origin]:
            return "there is no board cell there"
        if self.heights[origin] == 0:
            return "there is no stack on that cell"
        if self.tops[origin] != self.seat_colours[seat]:
            return f"the stack there is colour {COLOUR_LETTERS[self.tops[origin]]}, not yours"
        h = int(self.heights[origin])
        target = self.board.target(h, origin, d)
        if target == B:
            return f"a stack of height {h} must move exactly {h} cells and that path leaves the board, crosses a hole or is not a line of this board"
        return f"a stack must land on a tile or stack, and the cell {h} steps {DIRECTION_NAMES[d]} is empty"

    def action_to_string(self, action: int) -> str:
        from sky_envs.games.sky_scrapers import notation

        return notation.action_to_string(self, int(action))

    def string_to_action(self, text: str) -> int:
        from sky_envs.games.sky_scrapers import notation

        return notation.string_to_action(self, text)

    def describe_action(self, action: int) -> str:
        from sky_envs.games.sky_scrapers import notation

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
        """Channels: 0 board cell; 1..P stack heights of the colour of seat (seat + k) % P
        (absolute colours a, b while the colour is being chosen); P+1 placement phase;
        P+2 colour-choice phase; P+3 own tiles left to place."""
        board = self.board
        return self._planes.take(self._columns[seat], axis=1).reshape(board.rows, board.cols, self.num_players + 4)

    def transposition_key(self) -> tuple:
        """The exact solver's cheap key: the cells as bytes (heights as single bytes where the
        board has at most 255 cells, as every tile has its own cell), with the game and board
        played on; the turn count only where ``max_turns`` could still cut the game (more
        turns than ``max_turns`` less the cells: fewer moves than cells are left)."""
        heights = self.heights[:-1]
        cells = heights.astype(np.uint8).tobytes() if heights.size <= 255 else heights.tobytes()
        late = max(0, self.turns - (self.game.max_turns - self.board.size))
        return (self.game, self.board, cells + self.tops.tobytes() + self.seat_colours.tobytes()
                + self.tiles_left.tobytes(), self.phase, self.to_move, self.first_mover, late)

    # ------------------------------------------------------------------ text
    def to_text(self) -> str:
        from sky_envs.games.sky_scrapers.text import state_to_text

        return state_to_text(self)

    def render_text(self) -> str:
        from sky_envs.games.sky_scrapers.text import render_board

        return render_board(self)
