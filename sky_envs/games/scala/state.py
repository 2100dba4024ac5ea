"""A Scala position: two 88-bit stone masks, the player to move, and how the game ended.

A position's text, notation, explanations, observation layout and pictures live in the
modules beside this one (``text``, ``notation``, ``explain``, ``observation``, ``render``);
the state's methods of the same names hand over to them.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.state import GameState, win_loss_returns
from sky_envs.games.scala import explain, notation, render
from sky_envs.games.scala.board import NUM_CELLS, TARGET_GOAL
from sky_envs.games.scala.kernels import HALF_BITS, SETTLED, halves_of, moves_of, observe_stones, play_move
from sky_envs.games.scala.rules import (
    END_GOAL,
    END_MAX_TURNS,
    END_NO_MOVE,
    END_SPLIT,
    ILLEGAL,
    MOVER_LOSES,
    components,
    split_legal_targets,
    targets_by_start,
)
from sky_envs.games.scala.text import state_to_text


class ScalaState(GameState):
    """One position. ``stones[c]`` is the mask of colour ``c`` (0 Blue ``O`` = player_0,
    1 Red ``X`` = player_1); bit ``i`` is cell ``i`` of the rules file's numbering.

    ``to_move`` is the colour to move (kept after the end for the text: the side that would
    move next); ``winner`` is -1 until someone wins; ``plies`` counts the moves made since the
    initial or loaded position. ``split_winner`` (position text only) marks a game that has
    already ended by the split rule, which the board alone does not show.
    """

    __slots__ = ("game", "stones", "_halves", "to_move", "rng", "plies", "winner", "end",
                 "last_move", "current_player", "_mask", "_actions", "connected")

    def __init__(self, game, blue: int, red: int, to_move: int, rng: np.random.Generator | None,
                 split_winner: int = -1):
        self.game = game
        self.stones = (blue, red)
        self._halves = halves_of(blue, red)     # the same masks as the kernels take them
        self.to_move = to_move
        self.rng = rng if rng is not None else np.random.default_rng()
        self.plies = 0
        self.winner = -1
        self.end = ""
        self.last_move: tuple[int, int] | None = None
        self.current_player = -1
        self._mask: np.ndarray | None = None
        self._actions: np.ndarray | None = None
        occ = blue | red
        self.connected = len(components(occ)) <= 1
        if split_winner >= 0:
            self._finish(split_winner, END_SPLIT)
            return
        for colour in (0, 1):
            if self.stones[colour] >> TARGET_GOAL[colour] & 1:
                self._finish(colour, END_GOAL)
                return
        self._start_turn(to_move)

    # ------------------------------------------------------------------ clone
    def clone(self) -> ScalaState:
        # the rng is never drawn from during play (no chance in Scala): clones share it;
        # masks are ints, the legal mask and list are read-only and replaced, never edited
        return self._shallow_copy()

    # ------------------------------------------------------------------ rules
    def targets(self, start: int) -> int:
        """Mask of the legal end cells of the stone on ``start`` for the player to move."""
        if self._mask is None:
            return 0
        row = self._mask[start * NUM_CELLS:(start + 1) * NUM_CELLS]
        return int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little")

    def _start_turn(self, colour: int, mask: np.ndarray | None = None, actions: np.ndarray | None = None) -> None:
        """Hand the move to ``colour``; ``mask`` and ``actions``: its moves before the split
        rule when they are known already (``play_move`` generates them with the move)."""
        self.to_move = colour
        if mask is None:
            blue, red = self.stones
            mask, actions = moves_of(self.stones[colour], blue | red, colour)
        if actions.size and self.game.split_rule == ILLEGAL:
            self._drop_split_moves(mask, actions, colour)
            actions = np.flatnonzero(mask)
        if not actions.size:
            self._finish(1 - colour, END_NO_MOVE)
            return
        mask.setflags(write=False)
        actions.setflags(write=False)
        self._mask, self._actions = mask, actions
        self.current_player = colour

    def _drop_split_moves(self, mask: np.ndarray, actions: np.ndarray, colour: int) -> None:
        """Under ``split_rule="illegal"``: clear the moves of ``mask`` that break the split rule."""
        blue, red = self.stones
        for start, ends in targets_by_start(actions).items():
            illegal = ends & ~split_legal_targets(start, ends, blue, red, colour, self.connected)
            while illegal:
                low = illegal & -illegal
                mask[start * NUM_CELLS + low.bit_length() - 1] = False
                illegal ^= low

    def _finish(self, winner: int, end: str) -> None:
        self.winner, self.end = winner, end
        self.current_player = -1
        self._mask = self._actions = None

    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = np.zeros(self.game.num_actions, dtype=bool)
            self._mask.flags.writeable = False
        return self._mask

    def legal_actions(self) -> np.ndarray:
        if self._actions is None:
            self._actions = np.zeros(0, dtype=np.int64)
            self._actions.flags.writeable = False
        return self._actions

    def apply_unchecked(self, action: int) -> None:
        colour = self.current_player
        start, end = divmod(action, NUM_CELLS)
        game = self.game
        self.plies += 1
        # the next colour's moves come from the same compiled call (unless the game ends)
        halves, outcome, mask, actions = play_move(self._halves, colour, start, end, game.split_rule == MOVER_LOSES,
                                                   self.connected, self.plies < game.max_turns)
        self._halves = halves
        self.stones = (halves[0] | halves[1] << HALF_BITS, halves[2] | halves[3] << HALF_BITS)
        self.last_move = (start, end)
        self.to_move = 1 - colour
        if outcome != SETTLED:                  # rules 2 and 4 (only reachable with mover_loses)
            self.connected = False
            self._finish(1 - colour, END_SPLIT)
            return
        self.connected = True
        if end == TARGET_GOAL[colour] and self.stones[colour] >> end & 1:
            self._finish(colour, END_GOAL)
        elif actions is None:                   # max_turns
            self.current_player = -1
            self._mask = self._actions = None
            self.end = END_MAX_TURNS
        else:
            self._start_turn(1 - colour, mask, actions)

    def winning_actions(self) -> np.ndarray:
        """The moves onto the goal the mover attacks that keep the moved stone on the board
        (the split rule is settled first). Left out: the rare move that wins by leaving the
        opponent without a legal move, which only playing every move would find."""
        colour = self.current_player
        if colour < 0:
            return np.empty(0, dtype=np.int64)
        actions = self.legal_actions()
        wins = []
        for action in actions[actions % NUM_CELLS == TARGET_GOAL[colour]].tolist():
            child = self.clone()
            child.apply_unchecked(action)
            if child.winner == colour:
                wins.append(action)
        return np.array(wins, dtype=np.int64)

    def illegal_reason(self, action: int) -> str:
        return explain.illegal_reason(self, action)

    def action_to_string(self, action: int) -> str:
        return notation.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        return notation.string_to_action(self, text)

    def describe_action(self, action: int) -> str:
        return notation.describe_action(self, action)

    # ------------------------------------------------------------------ end
    def is_terminal(self) -> bool:
        return self.winner >= 0

    def is_truncated(self) -> bool:
        return self.end == END_MAX_TURNS

    def returns(self) -> np.ndarray:
        return win_loss_returns([self.winner] if self.winner >= 0 else [], 2)

    def winners(self) -> list[int]:
        return [self.winner] if self.winner >= 0 else []

    def score_vector(self) -> list[int]:
        return [self.stones[0].bit_count(), self.stones[1].bit_count()]

    def info(self) -> dict:
        info = {"stones": [self.stones[0].bit_count(), self.stones[1].bit_count()], "plies": self.plies}
        if self.end:
            info["end"] = self.end
            info["winners"] = self.winners()
        return info

    # ------------------------------------------------------------ observation
    def observation(self, seat: int) -> np.ndarray:
        """``(14, 11, 5)`` float32, row 14 first, columns a..k (see ``scala_v0``)."""
        blue_lo, blue_hi, red_lo, red_hi = self._halves
        if seat == 0:
            return observe_stones(self.game.observation_base[0], blue_lo, blue_hi, red_lo, red_hi)
        return observe_stones(self.game.observation_base[1], red_lo, red_hi, blue_lo, blue_hi)

    # ------------------------------------------------------------------ text
    def to_text(self) -> str:
        return state_to_text(self)

    def render_text(self) -> str:
        return render.render_text(self)
