"""A third-party game defined outside the package: Nim on one heap, plus a no-move skip.

Used to prove that ``sky_envs.register`` gives any State-protocol game the env for free.
Seats take 1 or 2 stones in turn; whoever takes the last stone wins. With ``players=3``
seat 1 never has a move (it is skipped), which exercises the env's seat skipping.

It also shows the optional heuristic hooks (:class:`NimHeuristic`, set as
``NimGame.heuristic``): Nim's theory judges a position exactly (a seat facing a multiple of
3 stones loses against best play), so the greedy and alpha-beta agents play it perfectly.
The worked example of ``docs/guides/add_your_own_game.md``.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.state import WIN, Game, GameState, Heuristic
from sky_envs.core.text import parse_int, position_error, split_position


def nim_value(stones: int, to_move: int, seat: int) -> float:
    """+1 where ``seat`` wins Nim with best play from ``stones`` with ``to_move`` deciding
    (-1: nobody, the game was cut short), else -1: the seat facing a multiple of 3 loses."""
    return 1.0 if (stones % 3 == 0) == (to_move != seat) else -1.0


class NimHeuristic(Heuristic):
    """The optional hooks (:class:`~sky_envs.core.state.Heuristic`); each has a default."""

    def value(self, state, seat):
        return nim_value(state.stones, state.current_player, seat)

    # search_value: not overridden, so alpha-beta judges its leaves by value() too

    def move_values(self, states):
        """Both actions' values from arithmetic, without playing them: exactly what
        ``played_value`` gives (a won game is ``WIN``). With three seats (a skipped seat)
        it covers nothing, and the agents play each action on a clone."""
        out = []
        for state in states:
            if state.num_players != 2:
                out.append(None)
                continue
            seat, values = state.current_player, []
            for action in state.legal_actions().tolist():
                left = state.stones - (action + 1)
                cut = state.turns + 1 >= state.game.max_turns
                values.append(WIN if left == 0 else nim_value(left, -1 if cut else 1 - seat, seat))
            out.append(np.array(values, dtype=np.float64))
        return out


class NimGame(Game):
    name = "tiny_nim"
    heuristic = NimHeuristic()

    def __init__(self, heap: int = 7, players: int = 2, max_turns: int = 100):
        if heap < 1:
            raise ValueError(f"heap must be >= 1, got {heap}")
        if players not in (2, 3):
            raise ValueError(f"players must be 2 or 3, got {players}")
        self.heap, self.num_players, self.max_turns = heap, players, max_turns
        self.num_actions = 2
        self.observation_shape = (heap + 1,)
        self._options = {"heap": heap, "players": players, "max_turns": max_turns}

    def new_initial_state(self, rng):
        return NimState(self, int(rng.integers(1, self.heap + 1)), 0, rng)

    def state_from_text(self, text, rng=None):
        lines = split_position(text, ("stones", "to_move"))
        if lines.rows or "stones" not in lines.fields:
            raise position_error(None, "expected 'stones: N' and 'to_move: S'")
        lineno, value = lines.fields["stones"]
        stones = parse_int(value, lineno, "stones", 0, self.heap)
        lineno, value = lines.fields.get("to_move", (None, "0"))
        return NimState(self, stones, parse_int(value, lineno, "to_move", 0, self.num_players - 1), rng)


class NimState(GameState):
    def __init__(self, game, stones, to_move, rng):
        self.game, self.stones, self.rng, self.turns = game, stones, rng, 0
        self.last_mover = -1
        self.current_player = self._next_able(to_move) if stones else -1

    def _next_able(self, seat):
        while self.num_players == 3 and seat == 1:
            seat = (seat + 1) % self.num_players
        return seat

    def legal_mask(self):
        mask = np.zeros(2, dtype=bool)
        if self.current_player >= 0:
            mask[0] = True
            mask[1] = self.stones >= 2
        return mask

    def apply_unchecked(self, action):
        self.stones -= action + 1
        self.turns += 1
        self.last_mover = self.current_player
        if self.stones == 0 or self.turns >= self.game.max_turns:
            self.current_player = -1
        else:
            self.current_player = self._next_able((self.current_player + 1) % self.num_players)

    def is_terminal(self):
        return self.stones == 0

    def is_truncated(self):
        return self.stones > 0 and self.turns >= self.game.max_turns

    def returns(self):
        out = np.zeros(self.num_players)
        if self.is_terminal() and self.last_mover >= 0:
            out[:] = -1.0
            out[self.last_mover] = 1.0
        return out

    def observation(self, seat):
        obs = np.zeros(self.game.observation_shape, dtype=np.float32)
        obs[self.stones] = 1.0
        return obs

    def to_text(self):
        return f"stones: {self.stones}\nto_move: {max(self.current_player, 0)}"
