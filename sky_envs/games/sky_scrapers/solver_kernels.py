"""Sky Scrapers' move phase solved exactly by compiled alpha-beta: the fast path of the exact
solver for two seats, which labels benchmark positions (``benchmarks/solved_positions.py``:
every move's value, :meth:`CompiledSolver.solve_moves`) and plays the search's exact endgame
(the position's value and the moves that keep it, :meth:`CompiledSolver.solve_root`).

The game-agnostic :class:`~sky_envs.agents.solver.Solver` plays each move on a cloned state,
tens of microseconds a node; positions with 18 to 20 stacks left take millions of nodes. This
module searches the same game tree on a few arrays with numba, a microsecond or so a node:

* a position is the stack heights and top colours per cell (``heights`` has the always-empty
  sentinel slot ``B`` where a move off the board lands) and the seat to move; a stack of
  height ``h`` on ``cell`` moving along ``d`` lands on ``reach[min(h, R - 1), cell, d]`` and
  may move there when that cell holds a stack (the board's own landing table, ``Board.reach``);
* after a move the next seat moves if it can, else the same seat, else the game is over:
  most sky scrapers wins, then the tallest one, a draw when both tie or nobody built one
  (``SkyScrapersState.winners`` for two seats);
* negamax with fail-soft alpha-beta on values -1, 0, 1, a transposition table of two-entry
  buckets keyed by two independent 64-bit Zobrist hashes (a wrong match needs both to collide:
  odds below 1e-20 over a whole labelling run), the table's best move first, then two killer
  moves per depth, then the moves that end the game in a win, then those that leave the
  opponent the fewest replies (a proof needs an answer to each), then by the heuristic's one-ply
  score (:func:`~sky_envs.games.sky_scrapers.heuristic_kernels._score`); a move whose result
  the table already holds (exactly, or enough for a cut) is not searched again.

The tests hold it to the generic solver on random positions. ``max_turns`` is not
modelled: both methods refuse a position where it could still cut the game.
"""

from __future__ import annotations

import hashlib

import numpy as np
from numba import njit

from sky_envs.games.sky_scrapers.heuristic_kernels import _score

#: transposition table size (entries, a power of two): about 22 bytes each
TABLE_BITS = 22
_NO_BOUND_LOW, _NO_BOUND_HIGH = -2, 2
_MAX_PLIES = 256
#: the weight of the opponent's replies after a move in its order: fewest replies first
#: (a proof needs an answer to each), the heuristic's score breaking ties; three times fewer
#: nodes than the score alone on positions with 20 stacks left
MOBILITY_WEIGHT = 10.0


@njit(cache=True)
def _has_move(heights, tops, reach, colour, max_row):
    cells = tops.shape[0]
    for cell in range(cells):
        if tops[cell] == colour:
            row = min(heights[cell], max_row)
            for d in range(8):
                if heights[reach[row, cell, d]] > 0:
                    return True
    return False


@njit(cache=True)
def _count_moves(heights, tops, reach, colour, max_row):
    """How many moves ``colour`` has."""
    n = 0
    for cell in range(tops.shape[0]):
        if tops[cell] == colour:
            row = min(heights[cell], max_row)
            for d in range(8):
                if heights[reach[row, cell, d]] > 0:
                    n += 1
    return n


@njit(cache=True)
def _final_value(heights, tops, colours, seat, skyscraper_height):
    """The finished game's return for ``seat`` (two seats): -1, 0 or 1."""
    counts = np.zeros(2, np.int64)
    tallest = np.zeros(2, np.int64)
    for s in range(2):
        for cell in range(tops.shape[0]):
            if tops[cell] == colours[s] and heights[cell] >= skyscraper_height:
                counts[s] += 1
                if heights[cell] > tallest[s]:
                    tallest[s] = heights[cell]
    other = 1 - seat
    if counts[0] == 0 and counts[1] == 0:
        return 0
    if counts[seat] == counts[other] and tallest[seat] == tallest[other]:
        return 0
    if counts[seat] > counts[other] or (counts[seat] == counts[other] and tallest[seat] > tallest[other]):
        return 1
    return -1


@njit(cache=True)
def _moves(heights, tops, reach, colour, max_row, out):
    """Write the legal moves of ``colour`` (``cell * 8 + d``) into ``out``; their count."""
    n = 0
    for cell in range(tops.shape[0]):
        if tops[cell] == colour:
            row = min(heights[cell], max_row)
            for d in range(8):
                if heights[reach[row, cell, d]] > 0:
                    out[n] = cell * 8 + d
                    n += 1
    return n


@njit(cache=True)
def _probe(keys1, keys2, h1, h2):
    """The table index holding the position of hashes (h1, h2), or -1."""
    slot = int(h1 & np.uint64(keys1.shape[0] - 1)) & ~1
    for k in range(2):
        if keys1[slot + k] == h1 and keys2[slot + k] == h2:
            return slot + k
    return -1


@njit(cache=True)
def _search(heights, tops, colours, seat, alpha, beta, reach, max_row, skyscraper_height, z1, z2, side1, side2,
            h1, h2, keys1, keys2, lowers, uppers, best_moves, work, killers, ply, stats, moves_buffer, score_buffer,
            final_buffer, counts, tallest, tiles):
    """Negamax value for ``seat`` (to move, with a legal move) inside (alpha, beta), fail-soft;
    ``stats``: [nodes, node limit, aborted]. (Self-recursive only: numba's cache cannot hold
    mutually recursive functions.)"""
    stats[0] += 1
    if stats[0] >= stats[1]:
        stats[2] = 1
        return np.int64(0)
    slot = int(h1 & np.uint64(keys1.shape[0] - 1)) & ~1
    table_move = -1
    found = _probe(keys1, keys2, h1, h2)
    start_nodes = stats[0]
    if found >= 0:
        lower, upper = lowers[found], uppers[found]
        if lower >= beta or lower == upper:
            return np.int64(lower)
        if upper <= alpha:
            return np.int64(upper)
        alpha = max(alpha, lower)
        beta = min(beta, upper)
        table_move = best_moves[found]
    window_low = alpha
    best, best_move = np.int64(-3), -1
    colour = colours[seat]
    other = 1 - seat
    moves = moves_buffer[ply]
    scores = score_buffer[ply]
    finals = final_buffer[ply]
    cells = tops.shape[0]
    n = 0
    order = np.zeros(0, np.int64)
    generated = False
    j = -1   # -1: the table's move, tried before the others are generated and scored
    while True:
        if j == -1:
            if table_move < 0:
                j = 0
                continue
            move, final = table_move, _NO_BOUND_HIGH
        else:
            if not generated:
                generated = True
                n = _moves(heights, tops, reach, colour, max_row, moves)
                # score every move: its result where it ends the game, else the heuristic's one-ply score
                for i in range(n):
                    origin, d = moves[i] // 8, moves[i] % 8
                    target = reach[min(heights[origin], max_row), origin, d]
                    h_origin, h_target, t_target = heights[origin], heights[target], tops[target]
                    heights[target] = h_origin + h_target
                    tops[target] = colour
                    heights[origin] = 0
                    tops[origin] = -1
                    other_moves = _has_move(heights, tops, reach, colours[other], max_row)
                    if other_moves or _has_move(heights, tops, reach, colour, max_row):
                        finals[i] = _NO_BOUND_HIGH
                        replies = _count_moves(heights, tops, reach, colours[other], max_row)
                        scores[i] = (_score(heights[:cells], tops, colours, seat, skyscraper_height, counts, tallest,
                                            tiles) - MOBILITY_WEIGHT * replies)
                        # the table may know the result already (an enhanced transposition cutoff):
                        # an exact value, or a bound that settles this position, need no search
                        g1 = h1 ^ z1[origin, h_origin, colour + 1] ^ z1[target, h_target, t_target + 1]
                        g2 = h2 ^ z2[origin, h_origin, colour + 1] ^ z2[target, h_target, t_target + 1]
                        g1 ^= z1[target, h_origin + h_target, colour + 1]
                        g2 ^= z2[target, h_origin + h_target, colour + 1]
                        if other_moves:
                            g1 ^= side1
                            g2 ^= side2
                        known = _probe(keys1, keys2, g1, g2)
                        if known >= 0:
                            low, high = np.int64(lowers[known]), np.int64(uppers[known])
                            if other_moves:
                                low, high = -high, -low
                            if low == high or low >= beta:
                                finals[i] = low
                                scores[i] = 4e9 + low
                    else:
                        finals[i] = _final_value(heights, tops, colours, seat, skyscraper_height)
                        scores[i] = 1e9 * finals[i]
                    heights[origin] = h_origin
                    tops[origin] = colour
                    heights[target] = h_target
                    tops[target] = t_target
                    if moves[i] == killers[ply, 0]:
                        scores[i] = max(scores[i], 2e9)
                    elif moves[i] == killers[ply, 1]:
                        scores[i] = max(scores[i], 1.5e9)
                order = np.argsort(-scores[:n], kind="mergesort")
            if j >= n:
                break
            move, final = moves[order[j]], finals[order[j]]
            if move == table_move:
                j += 1
                continue
        if final != _NO_BOUND_HIGH:
            value = final
        else:
            origin, d = move // 8, move % 8
            target = reach[min(heights[origin], max_row), origin, d]
            h_origin, h_target, t_target = heights[origin], heights[target], tops[target]
            g1 = h1 ^ z1[origin, h_origin, colour + 1] ^ z1[target, h_target, t_target + 1]
            g2 = h2 ^ z2[origin, h_origin, colour + 1] ^ z2[target, h_target, t_target + 1]
            g1 ^= z1[target, h_origin + h_target, colour + 1]
            g2 ^= z2[target, h_origin + h_target, colour + 1]
            heights[target] = h_origin + h_target
            tops[target] = colour
            heights[origin] = 0
            tops[origin] = -1
            if _has_move(heights, tops, reach, colours[other], max_row):
                value = -_search(heights, tops, colours, other, -beta, -alpha, reach, max_row, skyscraper_height,
                                 z1, z2, side1, side2, g1 ^ side1, g2 ^ side2, keys1, keys2, lowers, uppers,
                                 best_moves, work, killers, ply + 1, stats, moves_buffer, score_buffer, final_buffer,
                                 counts, tallest, tiles)
            elif _has_move(heights, tops, reach, colour, max_row):   # the other seat is skipped
                value = _search(heights, tops, colours, seat, alpha, beta, reach, max_row, skyscraper_height,
                                z1, z2, side1, side2, g1, g2, keys1, keys2, lowers, uppers, best_moves, work,
                                killers, ply + 1, stats, moves_buffer, score_buffer, final_buffer, counts, tallest,
                                tiles)
            else:
                value = np.int64(_final_value(heights, tops, colours, seat, skyscraper_height))
            heights[origin] = h_origin
            tops[origin] = colour
            heights[target] = h_target
            tops[target] = t_target
            if stats[2]:
                return np.int64(0)
        if value > best:
            best, best_move = value, move
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    if j >= 0 and final == _NO_BOUND_HIGH and killers[ply, 0] != move:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = move
                    break
        j += 1
    # store: at most best (fail low), at least best (fail high), or exactly best
    lower, upper = _NO_BOUND_LOW, _NO_BOUND_HIGH
    if found >= 0:
        lower, upper = lowers[found], uppers[found]
    if best <= window_low:
        upper = min(upper, best)
    elif best >= beta:
        lower = max(lower, best)
    else:
        lower, upper = best, best
    spent = stats[0] - start_nodes
    target_slot = found
    if target_slot < 0:  # the bucket's entry with less work behind it makes way
        target_slot = slot if work[slot] <= work[slot + 1] else slot + 1
    keys1[target_slot] = h1
    keys2[target_slot] = h2
    lowers[target_slot] = lower
    uppers[target_slot] = upper
    best_moves[target_slot] = best_move
    work[target_slot] = max(work[target_slot], spent) if found >= 0 else spent
    return best


@njit(cache=True)
def _position_hash(heights, tops, colour, z, side):
    """The Zobrist hash of the cells and the colour to move (a value is the mover's, and
    random positioning deals colours to seats either way)."""
    h = np.uint64(0)
    for cell in range(tops.shape[0]):
        h ^= z[cell, heights[cell], tops[cell] + 1]
    if colour == 1:
        h ^= side
    return h


def _board_keys(reach: np.ndarray) -> tuple[np.uint64, np.uint64]:
    """Two 64-bit keys of a board's landing table, mixed into every position's hashes: the
    same stacks on two boards (a random board is drawn per game) are two positions."""
    digest = hashlib.blake2b(np.ascontiguousarray(reach).tobytes(), digest_size=16).digest()
    return np.uint64(int.from_bytes(digest[:8], "little")), np.uint64(int.from_bytes(digest[8:], "little"))


class CompiledSolver:
    """The compiled solver for one Sky Scrapers configuration (two seats). Its table is kept
    between calls, over positions of any of the configuration's boards (each board's key is
    part of a position's hashes), until :meth:`clear`. ``max_nodes``: the budget of each call."""

    def __init__(self, game, max_nodes: int | None = None, table_bits: int = TABLE_BITS, seed: int = 0):
        if game.num_players != 2:
            raise ValueError(f"the compiled Sky Scrapers solver takes two seats, this game has {game.num_players}")
        self.game = game
        self.max_nodes = max_nodes
        B = game.rows * game.cols
        rng = np.random.default_rng(seed)
        # height up to B (every tile on one stack), top colour + 1 (0: empty)
        self.z1 = rng.integers(0, 2**63, size=(B + 1, B + 2, 3), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.z2 = rng.integers(0, 2**63, size=(B + 1, B + 2, 3), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.z1[:, 0, :] = 0     # an empty cell adds nothing
        self.z2[:, 0, :] = 0
        self.side1, self.side2 = (np.uint64(v) for v in rng.integers(1, 2**63, size=2, dtype=np.uint64))
        size = 1 << table_bits
        self.keys1 = np.zeros(size, np.uint64)
        self.keys2 = np.zeros(size, np.uint64)
        self.lowers = np.zeros(size, np.int8)
        self.uppers = np.zeros(size, np.int8)
        self.best_moves = np.zeros(size, np.int16)
        self.work = np.zeros(size, np.int64)
        self.killers = np.full((_MAX_PLIES, 2), -1, np.int64)
        self.moves_buffer = np.zeros((_MAX_PLIES, 8 * B), np.int64)
        self.score_buffer = np.zeros((_MAX_PLIES, 8 * B), np.float64)
        self.final_buffer = np.zeros((_MAX_PLIES, 8 * B), np.int64)
        self.nodes = 0
        self._board, self._board_keys = None, None

    def clear(self) -> None:
        self.keys1[:] = 0
        self.keys2[:] = 0
        self.work[:] = 0
        self.killers[:] = -1

    def refusal(self, state) -> str | None:
        """Why :meth:`solve_moves` cannot take ``state``, or ``None`` where it can."""
        game = self.game
        if state.game is not game and state.game.options() != game.options():
            return (f"this compiled solver was built for Sky Scrapers with {game.options()}, the position is one of "
                    f"{state.game.options()}")
        if state.phase != "move" or state.current_player < 0:
            return "the compiled solver takes move-phase positions with a seat to move"
        stacks = int((state.heights[:-1] > 0).sum())
        if state.turns + stacks >= game.max_turns:
            return (f"max_turns={game.max_turns} could still cut this game ({state.turns} turns played, {stacks} "
                    "stacks): the compiled solver does not model it, use sky_envs.agents.solver.Solver")
        return None

    @staticmethod
    def remaining(state) -> int:
        """How far ``state`` is from the end, the measure the solver's work grows with: its
        stacks (every move joins two, and the game ends by the last one at the latest)."""
        return int((state.heights[:-1] > 0).sum())

    def solve_moves(self, state) -> dict[int, float] | None:
        """The exact value of every legal move of ``state`` (a move-phase position) for its
        seat to move, in ``legal_actions()`` order; ``None`` when the budget ran out."""
        self._prepare(state)
        seat, stats = state.current_player, self._budget()
        out: dict[int, float] = {}
        for action in state.legal_actions().tolist():
            value = self._move_value(state, action, -1, 1, stats)
            if stats[2]:
                self.nodes = int(stats[0])
                return None
            out[action] = value
        self.nodes = int(stats[0])
        return out

    def solve_root(self, state) -> tuple[float, list[int]] | None:
        """The exact value of ``state`` (a move-phase position) for its seat to move and legal
        moves proven to keep it, or ``None`` when the budget ran out before both were known:
        what a player needs, for a fraction of :meth:`solve_moves`'s work. The position is
        solved first (alpha-beta stops at the first winning move, where :meth:`solve_moves`
        solves every move), then the moves are tested against its value with null windows,
        the table's best move first: a win gives the first winning move, a draw every move
        proven to draw within the budget (at least one), a loss every legal move."""
        self._prepare(state)
        stats = self._budget()
        seat, colours, reach = state.current_player, state.seat_colours.astype(np.int8), state.board.reach
        value = self._value(state.heights.copy(), state.tops.copy(), colours, seat, -1, 1, reach, stats)
        if stats[2]:
            self.nodes = int(stats[0])
            return None
        actions = state.legal_actions().tolist()
        if value == -1:
            self.nodes = int(stats[0])
            return -1.0, actions
        table_move = self._table_move(state, colours[seat])
        if table_move in actions:
            actions.remove(table_move)
            actions.insert(0, table_move)
        kept = []
        for action in actions:
            # a null window around the root's value: does this move keep it?
            reaches = self._move_value(state, action, value - 1, value, stats) >= value
            if stats[2]:
                break
            if reaches:
                kept.append(action)
                if value == 1:
                    break
        self.nodes = int(stats[0])
        return (float(value), sorted(kept)) if kept else None

    # ------------------------------------------------------------------ one search
    def _prepare(self, state) -> None:
        """Refuse a position the solver does not take (``ValueError``); key ``state``'s board."""
        refusal = self.refusal(state)
        if refusal is not None:
            raise ValueError(refusal)
        if state.board is not self._board:
            self._board, self._board_keys = state.board, _board_keys(state.board.reach)

    def _budget(self) -> np.ndarray:
        """The ``stats`` of one call: [nodes, node limit, aborted]."""
        return np.array([0, self.max_nodes or np.iinfo(np.int64).max, 0], np.int64)

    def _hashes(self, heights, tops, colour) -> tuple[np.uint64, np.uint64]:
        board1, board2 = self._board_keys
        return (np.uint64(_position_hash(heights, tops, colour, self.z1, self.side1)) ^ board1,
                np.uint64(_position_hash(heights, tops, colour, self.z2, self.side2)) ^ board2)

    def _value(self, heights, tops, colours, seat, alpha, beta, reach, stats) -> int:
        """The fail-soft negamax value of the position (``heights``, ``tops``; ``seat`` to
        move, with a legal move) inside (``alpha``, ``beta``); 0 if ``stats`` ran out."""
        h1, h2 = self._hashes(heights, tops, colours[seat])
        counts, tallest, tiles = np.zeros(2), np.zeros(2), np.zeros(2)
        return int(_search(heights, tops, colours, seat, alpha, beta, reach, reach.shape[0] - 1,
                           self.game.skyscraper_height, self.z1, self.z2, self.side1, self.side2, h1, h2, self.keys1,
                           self.keys2, self.lowers, self.uppers, self.best_moves, self.work, self.killers, 0, stats,
                           self.moves_buffer, self.score_buffer, self.final_buffer, counts, tallest, tiles))

    def _move_value(self, state, action: int, alpha: int, beta: int, stats) -> float:
        """The fail-soft value of ``action`` in ``state`` for its seat to move, inside
        (``alpha``, ``beta``)."""
        seat = state.current_player
        child = state.clone()
        child.apply_unchecked(action)
        if child.current_player < 0:
            return float(child.returns()[seat]) if child.is_terminal() else 0.0
        mover = child.current_player
        colours = state.seat_colours.astype(np.int8)
        heights, tops = child.heights.copy(), child.tops.copy()
        if mover == seat:   # the other seat has no move: the same seat again
            return float(self._value(heights, tops, colours, mover, alpha, beta, child.board.reach, stats))
        return float(-self._value(heights, tops, colours, mover, -beta, -alpha, child.board.reach, stats))

    def _table_move(self, state, colour) -> int:
        """The table's best move of ``state`` (``cell * 8 + direction``, the action), or -1."""
        found = _probe(self.keys1, self.keys2, *self._hashes(state.heights, state.tops, colour))
        return int(self.best_moves[found]) if found >= 0 else -1
