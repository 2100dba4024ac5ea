"""An exact solver for two-seat perfect-information games, over the State protocol.

:class:`Solver` finds the game-theoretic value of a position for the seat to move (the
return it can force: +1 win, 0 draw, -1 loss, or the exact return where returns are graded)
and the exact value of every legal move, by alpha-beta search over the game's own returns:

* **negamax on returns**: a finished game is worth ``returns()[seat]`` (a game cut short by
  ``max_turns`` is a draw, 0, as the env says); a position is worth the best of its moves
  for the seat that chooses there. Turns need not alternate: a child decided by the same
  seat keeps its sign, one decided by the other seat flips it (two seats, zero-sum returns;
  a finished game whose returns do not sum to zero is refused).
* **a transposition table**: positions reached by different move orders are searched once;
  the key is :meth:`~sky_envs.core.state.GameState.transposition_key` (the position text
  unless the game offers a cheaper exact key). Each entry holds a lower and an upper bound
  of the position's value and its best move.
* **move ordering**: the table's best move first, then the moves that cut at the same depth
  before (killer moves), then (``ordering``, :data:`ORDERINGS`) those that leave the other
  seat the fewest replies, the default: a proof must answer each reply, and this ordering
  took three times fewer nodes than the heuristic's on Sky Scrapers endgames; or by the game's
  one-ply move values where it offers them (:meth:`~sky_envs.core.state.Heuristic.move_values`,
  which also name the moves that end the game without playing them), or by the history of
  cuts. A position with a move that wins at once (``state.winning_actions()``) is a win.
* **a horizon** (``max_plies``): positions that many plies below the root count as
  unknown. Two searches then bound the value, one judging the horizon as a loss for the root
  seat's side and one as a win; where the bounds meet (a forced win or loss found before the
  horizon, or a subtree that never reached it) the value is exact. Iterative deepening
  (``deepening=True``) raises the horizon one ply at a time up to ``max_plies``, so that short
  wins are found before long lines are searched; it pays in games that can last long
  (Scala's reversible moves), not in games that end in a few plies whatever is played.
* **a budget** (``max_nodes``, ``max_seconds``): a search that runs out of it reports the
  position as unsolved (:attr:`Solution.solved` false, with what it did prove) rather than a
  guess.

Refused: games that hide information (their ``sample_consistent`` redistributes what a seat
cannot see, e.g. Sky Towers: the value of a position depends on cards nobody may read) and
games with more than two seats (each seat's best move then depends on how the others share
their results: there is no single exact value to find). :class:`SolverAgent` (agent spec
``solver``, ``solver@N`` for a budget of N nodes per move) plays a move of the best
proven value where the solver finishes within its budget, and depth-2 alpha-beta on the
game's heuristic otherwise.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
from dataclasses import dataclass, field

from sky_envs.agents.alphabeta import AlphaBetaAgent
from sky_envs.agents.base import Agent
from sky_envs.core.state import WIN, GameState, hides_information

#: the value range of win/draw/loss returns (the shared reward convention)
WIN_LOSS = (-1.0, 1.0)
#: how moves are ordered after the table's best move and the killer moves: by the game's
#: one-ply move values where it offers them (else the history of cuts), by the fewest replies
#: they leave the other seat (each move played to count them), by the history of cuts, or as
#: the game lists them
ORDERINGS = ("heuristic", "mobility", "history", "none")
#: how many nodes pass between two reads of the clock
_CLOCK_EVERY = 1024


class OutOfBudget(Exception):
    """Raised inside a search when its node or time budget is spent."""


@dataclass
class Solution:
    """What a solve found for one position.

    ``value``: the exact value for the seat to move (``None`` unless solved); ``bounds``:
    what is proven about it (equal ends when solved). ``moves``: per legal action (in
    ``legal_actions()`` order) its exact value for the seat to move, or ``None`` where it was
    not solved (only in :meth:`Solver.solve_moves` results). ``nodes`` and ``seconds``: the
    work it took; ``plies``: the horizon of the last search (``None``: no horizon).
    """

    solved: bool
    value: float | None
    bounds: tuple[float, float]
    moves: dict[int, float | None] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    plies: int | None = None

    def best_actions(self) -> list[int]:
        """The moves of the best exact value (only when every move is solved)."""
        if not self.moves or any(v is None for v in self.moves.values()):
            return []
        best = max(self.moves.values())
        return [action for action, value in self.moves.items() if value == best]


def solver_refusal(state: GameState) -> str | None:
    """Why :class:`Solver` cannot solve ``state``'s game, or ``None`` where it can."""
    game = state.game
    if hides_information(state):
        return (f"{game.env_id} hides information (a seat cannot see everything that decides the result), so a "
                "position has no exact value to solve: the solver takes perfect-information games only")
    if game.num_players != 2:
        return (f"the solver takes two-seat games; this {game.env_id} configuration has {game.num_players} seats, "
                "where a seat's best move depends on how the others share their results")
    return None


class Solver:
    """Exact values of positions and of their moves (see the module docstring).

    ``value_range``: the lowest and highest return a seat can get (default the win/loss
    convention, -1 to 1; ``None`` for graded returns with no known bounds). A finished game
    outside it raises ``ValueError``. ``table``: keep a transposition table (off only to
    test that it changes nothing); it is kept between calls (positions solved once are not
    searched again) until :meth:`clear`. ``max_plies``: the horizon (``None``: search to the
    end of the game); ``deepening``: raise the horizon from 1 ply to ``max_plies``.
    ``max_nodes`` / ``max_seconds``: the budget of each call of :meth:`solve` and
    :meth:`solve_moves`; ``max_table``: the most entries kept (about 400 bytes each in Sky
    Scrapers): a full table is cleared, which costs time, never exactness. ``ordering``: how
    moves are ordered (:data:`ORDERINGS`).
    """

    def __init__(self, max_nodes: int | None = None, max_seconds: float | None = None,
                 value_range: tuple[float, float] | None = WIN_LOSS, table: bool = True,
                 max_plies: int | None = None, deepening: bool = False, max_table: int = 2_000_000,
                 ordering: str = "mobility"):
        for name, limit in (("max_nodes", max_nodes), ("max_seconds", max_seconds), ("max_plies", max_plies)):
            if limit is not None and not (isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit > 0):
                raise ValueError(f"{name} must be a positive number or None, got {limit!r}")
        if deepening and max_plies is None:
            raise ValueError("deepening raises the horizon up to max_plies: give max_plies too")
        if value_range is None:
            value_range = (-math.inf, math.inf)
        low, high = (float(v) for v in value_range)
        if not low < high:
            raise ValueError(f"value_range must be (lowest, highest) with lowest < highest, got {value_range!r}")
        if ordering not in ORDERINGS:
            raise ValueError(f"ordering must be one of {', '.join(ORDERINGS)}, got {ordering!r}")
        self.ordering = ordering
        self.low, self.high = low, high
        self.max_nodes, self.max_seconds = max_nodes, max_seconds
        self.max_plies, self.deepening = max_plies, deepening
        self.use_table, self.max_table = table, max_table
        self.exact_table: dict = {}     # key -> (lower, upper, best action): bounds of the true value
        self.horizon_table: dict = {}   # (key, plies left, optimistic) -> (lower, upper, best action)
        self.history: dict[int, int] = {}
        self.killers: list[list[int]] = []   # per ply: the last two moves that cut there
        self.nodes = 0                  # nodes of the current call
        self.total_nodes = 0            # nodes over this solver's life
        self._deadline = math.inf
        self._node_limit = math.inf
        self._root_seat = 0

    def clear(self) -> None:
        """Forget every position searched so far."""
        self.exact_table.clear()
        self.horizon_table.clear()
        self.history.clear()
        self.killers.clear()

    # ------------------------------------------------------------------ public
    def solve(self, state: GameState) -> Solution:
        """The exact value of ``state`` for its seat to move, or an unsolved
        :class:`Solution` with the bounds proven when the budget ran out."""
        self._check(state)
        self._start()
        try:
            low, high, plies = self._bounds(state, 0)
        except OutOfBudget:
            return self._finish(False, None, (self.low, self.high), {}, self._plies_reached)
        return self._finish(low == high, low if low == high else None, (low, high), {}, plies)

    def solve_moves(self, state: GameState) -> Solution:
        """The exact value of every legal move of ``state`` (for its seat to move) and so of
        ``state``; moves not solved within the budget are ``None`` and ``solved`` is false."""
        self._check(state)
        self._start()
        seat = state.current_player
        moves: dict[int, float | None] = {int(a): None for a in state.legal_actions().tolist()}
        known: dict[int, tuple[float, float]] = {}
        plies = None
        try:
            for action in moves:
                child = state.clone()
                child.apply_unchecked(action)
                if child.current_player < 0:
                    value = self._final(child, seat)
                    known[action] = (value, value)
                    continue
                low, high, plies = self._bounds(child, 1)
                if child.current_player != seat:
                    low, high = 0.0 - high, 0.0 - low
                known[action] = (low, high)
        except OutOfBudget:
            plies = self._plies_reached
        for action, (low, high) in known.items():
            moves[action] = low if low == high else None
        solved = all(v is not None for v in moves.values())
        if solved:
            best = max(moves.values())
            return self._finish(True, best, (best, best), moves, plies)
        # what is proven: the best move is at least the best lower bound, at most the best upper one
        lows = [known[a][0] if a in known else self.low for a in moves]
        highs = [known[a][1] if a in known else self.high for a in moves]
        return self._finish(False, None, (max(lows), max(highs)), moves, plies)

    # ------------------------------------------------------------------ internals
    def _check(self, state: GameState) -> None:
        refusal = solver_refusal(state)
        if refusal is not None:
            raise ValueError(refusal)
        if state.current_player < 0:
            raise ValueError("the game is over: a finished position has no move to solve (its value is its returns)")

    def _start(self) -> None:
        self.nodes = 0
        self._started = time.perf_counter()
        self._deadline = math.inf if self.max_seconds is None else self._started + self.max_seconds
        self._node_limit = math.inf if self.max_nodes is None else self.max_nodes
        self._plies_reached = None

    def _finish(self, solved, value, bounds, moves, plies) -> Solution:
        self.total_nodes += self.nodes
        return Solution(solved, value, bounds, moves, self.nodes, time.perf_counter() - self._started, plies)

    def _final(self, state: GameState, seat: int) -> float:
        """A finished game's value for ``seat``: its return (zero-sum, inside the range), 0 if cut short."""
        if not state.is_terminal():
            return 0.0
        returns = state.returns()
        value = float(returns[seat])
        if value + float(returns[1 - seat]) != 0.0:
            raise ValueError(f"{state.game.env_id} ended with returns {returns.tolist()}, which do not sum to zero: "
                             "the solver's negamax takes zero-sum two-seat returns")
        return self._checked(value, state, "at the end")

    def _checked(self, value: float, state: GameState, where: str) -> float:
        """``value``, a finished game's return for one seat, once it and the other seat's
        (its negative) are known to lie in the value range."""
        if not (self.low <= value <= self.high and self.low <= -value <= self.high):
            raise ValueError(f"a game of {state.game.env_id} ends {where} with returns {value} and {-value}, outside the "
                             f"solver's value_range ({self.low}, {self.high}): pass the game's range "
                             "(value_range=None where it is unknown)")
        return value

    def _bounds(self, state: GameState, ply: int) -> tuple[float, float, int | None]:
        """Proven (lower, upper) bounds of the unfinished ``state``'s value for its mover, and
        the horizon reached; equal bounds when solved. ``ply``: its depth below the position
        the caller asked about (moves that cut at one depth are tried early at that depth)."""
        self._root_seat = state.current_player
        if self.max_plies is None:
            value, _ = self._search(state, self.low, self.high, math.inf, False, ply)
            return value, value, None
        schedule = range(1, self.max_plies + 1) if self.deepening else (self.max_plies,)
        low, high = self.low, self.high
        for plies in schedule:
            self._plies_reached = plies
            low, exact = self._search(state, self.low, self.high, plies, False, ply)
            if exact:
                return low, low, plies
            high, _ = self._search(state, self.low, self.high, plies, True, ply)
            if low == high:
                return low, high, plies
        return low, high, self.max_plies

    def _search(self, state: GameState, alpha: float, beta: float, plies: float, optimistic: bool,
                ply: int) -> tuple[float, bool]:
        """Fail-soft negamax value of the unfinished ``state`` for its mover inside
        (alpha, beta), and whether it holds for the true game (no horizon reached; the
        horizon counts as the worst outcome for the root seat, or the best if ``optimistic``).

        In a search with a horizon, the exact table's bounds are used only where they settle
        the position (an exact value, or a bound outside the window); narrowing the window
        by them would mix bounds of the true value into a search of the horizon's game."""
        self.nodes += 1
        if self.nodes >= self._node_limit:
            raise OutOfBudget
        if not self.nodes % _CLOCK_EVERY and time.perf_counter() > self._deadline:
            raise OutOfBudget
        mover = state.current_player
        table_move, entry, known, key = -1, None, None, None
        horizon = plies != math.inf
        if self.use_table:
            key = state.transposition_key()
            known = self.exact_table.get(key)
            if known is not None:
                lower, upper, table_move = known
                if lower >= beta or lower == upper:
                    return lower, True
                if upper <= alpha:
                    return upper, True
                if not horizon:
                    entry = known
                    alpha, beta = max(alpha, lower), min(beta, upper)
        if plies <= 0:  # the horizon: the root seat's worst (or best) outcome
            worst_for_root = self.high if optimistic else self.low
            return (worst_for_root if mover == self._root_seat else -worst_for_root), False
        if horizon and self.use_table:
            entry = self.horizon_table.get((key, plies, optimistic))
            if entry is not None:
                lower, upper, move = entry
                table_move = move if table_move < 0 else table_move
                if lower >= beta or lower == upper:
                    return lower, False
                if upper <= alpha:
                    return upper, False
                alpha, beta = max(alpha, lower), min(beta, upper)
        wins = state.winning_actions() if self.high == 1.0 else None
        if wins is not None and len(wins):
            if self.use_table:
                self.exact_table[key] = (1.0, 1.0, int(wins[0]))
            return 1.0, True
        best, best_move, exact = -math.inf, -1, True
        window_low = alpha
        for action, final, child in self._ordered(state, table_move, ply):
            if final is not None:  # the move ends the game
                value, child_exact = self._checked(final, state, f"after {state.action_to_string(action)}"), True
            else:
                if child is None:
                    child = state.clone()
                    child.apply_unchecked(action)
                if child.current_player < 0:
                    value, child_exact = self._final(child, mover), True
                elif child.current_player == mover:
                    value, child_exact = self._search(child, alpha, beta, plies - 1, optimistic, ply + 1)
                else:
                    value, child_exact = self._search(child, -beta, -alpha, plies - 1, optimistic, ply + 1)
                    value = 0.0 - value  # not -value: a draw stays 0.0, never -0.0
            exact = exact and child_exact
            if value > best:
                best, best_move = value, action
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self._remember_cut(action, ply)
                        break
        if self.use_table:
            self._store(key, known if exact else entry, best, window_low, beta, best_move, exact, plies, optimistic)
        return best, exact

    def _store(self, key, entry, value, alpha, beta, best_move, exact, plies, optimistic) -> None:
        """Record what a search in window (alpha, beta) proved: the value is at most ``value``
        (fail low), at least ``value`` (fail high), or exactly ``value``; ``entry``: the
        bounds known before, from the same table."""
        lower, upper = (entry[0], entry[1]) if entry is not None else (-math.inf, math.inf)
        if value <= alpha:
            upper = min(upper, value)
        elif value >= beta:
            lower = max(lower, value)
        else:
            lower = upper = value
        if len(self.exact_table) + len(self.horizon_table) >= self.max_table:
            self.horizon_table.clear()  # the crudest replacement: start afresh, horizon entries first
            if len(self.exact_table) >= self.max_table // 2:
                self.exact_table.clear()
        if exact:
            self.exact_table[key] = (lower, upper, best_move)
        else:
            self.horizon_table[(key, plies, optimistic)] = (lower, upper, best_move)

    def _ordered(self, state: GameState, table_move: int, ply: int):
        """The legal moves as ``(action, value, child)``, the likeliest best first: the table's
        move (before the others are ordered: it often settles the position alone), the killer
        moves of this depth, then by :attr:`ordering`.

        ``value`` is ``None``, or the mover's return where the move ends the game. With move
        values a one-ply value is :data:`~sky_envs.core.state.WIN` times the return exactly for
        a move that ends the game and smaller in size for any other
        (:meth:`~sky_envs.core.state.Heuristic.played_value`), so such a move need not be
        played. ``child`` is the position after the move where the ordering played it already."""
        if table_move >= 0:
            yield table_move, None, None
        tried = [table_move]
        if ply < len(self.killers):
            legal = state.legal_mask()
            for killer in self.killers[ply]:
                if killer not in tried and legal[killer]:
                    tried.append(killer)
                    yield killer, None, None
        actions = [action for action in state.legal_actions().tolist() if action not in tried]
        if self.ordering == "mobility":
            yield from self._fewest_replies(state, actions)
            return
        heuristic = state.game.heuristic
        if len(actions) > 1 and self.ordering == "heuristic" and heuristic.has_move_values:
            values = heuristic.move_values([state])[0]
            if values is not None:
                value_of = dict(zip(state.legal_actions().tolist(), values.tolist()))
                actions.sort(key=value_of.__getitem__, reverse=True)
                for action in actions:
                    value = value_of[action]
                    yield action, (value / WIN if abs(value) >= WIN else None), None
                return
        if len(actions) > 1 and self.ordering != "none" and self.history:
            history = self.history
            actions.sort(key=lambda a: -history.get(a, 0))
        for action in actions:
            yield action, None, None

    def _fewest_replies(self, state: GameState, actions: list[int]):
        """``actions`` played, the wins first, then those that leave the other seat the fewest
        replies (a proof needs an answer to each), the losses last."""
        mover = state.current_player
        entries = []
        for action in actions:
            child = state.clone()
            child.apply_unchecked(action)
            if child.current_player < 0:
                final = self._final(child, mover)
                entries.append((-math.inf if final == self.high else math.inf, action, final, None))
            else:
                replies = len(child.legal_actions()) if child.current_player != mover else 0
                entries.append((replies, action, None, child))
        entries.sort(key=lambda entry: entry[0])
        for _, action, final, child in entries:
            yield action, final, child

    def _remember_cut(self, action: int, ply: int) -> None:
        """``action`` cut the search at depth ``ply``: try it early there again (a killer
        move) and, where the game has no move values, everywhere (the history table)."""
        self.history[action] = self.history.get(action, 0) + 1
        while len(self.killers) <= ply:
            self.killers.append([])
        killers = self.killers[ply]
        if action not in killers:
            killers.insert(0, action)
            del killers[2:]


#: calls at one distance from the end, all out of budget, after which :class:`MoveSolver`
#: stops trying positions that far from the end (or farther)
GIVE_UP_AFTER = 4


class MoveSolver:
    """A position's exact value and the legal moves proven to keep it, within a budget of
    ``max_nodes`` nodes per call: the search's exact endgame (``exact_nodes``). The game's
    compiled solver does it where it offers one (:meth:`~sky_envs.core.state.Game.exact_solver`;
    its ``solve_root`` where it has one: the position solved first, then its moves tested
    against its value, a fraction of the work of solving every move; positions it does not
    take, such as Sky Scrapers' set-up, are left unsolved rather than handed to the generic
    solver, many times slower a node), :class:`Solver` otherwise (every move solved). Each
    solver keeps its table between calls, so the positions of one game solve faster move after
    move; there is one compiled solver per configuration (env and options), however many game
    objects play it (each env makes its own), so neither memory nor the table's work grows with
    the games.

    A call that runs out of budget spends all of it, and far from the end every call does.
    Where the compiled solver measures how far a position is from the end
    (``remaining(state)``; Sky Scrapers: its stacks), the solver learns its reach per
    configuration: once :data:`GIVE_UP_AFTER` calls at one distance have all run out, positions
    that far from the end or farther are no longer tried (``best_moves`` answers ``None`` at
    once). ``attempts`` holds, per configuration, each distance's calls and solved calls."""

    def __init__(self, max_nodes: int):
        if not isinstance(max_nodes, (int, np.integer)) or isinstance(max_nodes, bool) or max_nodes < 1:
            raise ValueError(f"max_nodes must be a positive integer, got {max_nodes!r}")
        self.max_nodes = int(max_nodes)
        self.generic = Solver(max_nodes=self.max_nodes, max_table=200_000)
        self.compiled: dict = {}   # (env id, options as JSON) -> the compiled solver, or None
        self.attempts: dict = {}   # (env id, options as JSON) -> {distance from the end: [calls, solved]}

    def best_moves(self, state: GameState) -> tuple[float, np.ndarray] | None:
        """``(value, keep)``: the exact value of ``state`` for its seat to move and which of its
        legal moves (a boolean mask in ``legal_actions()`` order) are proven to keep it; every
        move where all lose, at least one otherwise (a win: one winning move is enough where
        the compiled solver finds it, every one where all moves are solved). ``None``: not
        solved within the budget, or a game the solver does not take (hidden information, more
        than two seats)."""
        if solver_refusal(state) is not None:
            return None
        game = state.game
        configuration = (game.env_id, json.dumps(game.options(), sort_keys=True))
        if configuration not in self.compiled:
            self.compiled[configuration] = game.exact_solver(max_nodes=self.max_nodes)
        compiled = self.compiled[configuration]
        if compiled is None:
            solution = self.generic.solve_moves(state)
            return _best_of(solution.moves) if solution.solved else None
        if compiled.refusal(state) is not None:   # positions it does not take (Sky Scrapers' set-up)
            return None
        distance = compiled.remaining(state) if hasattr(compiled, "remaining") else None
        if distance is not None and distance >= self.reach(configuration):
            return None
        if hasattr(compiled, "solve_root"):
            solved = compiled.solve_root(state)
            if solved is not None:
                value, kept = solved
                solved = value, np.isin(state.legal_actions(), kept)
        else:
            values = compiled.solve_moves(state)
            solved = None if values is None else _best_of(values)
        if distance is not None:
            tally = self.attempts.setdefault(configuration, {}).setdefault(distance, [0, 0])
            tally[0] += 1
            tally[1] += solved is not None
        return solved

    def reach(self, configuration: tuple[str, str]) -> float:
        """The smallest distance from the end (``remaining``) at which this solver's first
        :data:`GIVE_UP_AFTER` calls of ``configuration`` all ran out of budget (``inf``: none
        yet); positions that far or farther are not tried."""
        given_up = [distance for distance, (calls, solved) in self.attempts.get(configuration, {}).items()
                    if calls >= GIVE_UP_AFTER and not solved]
        return min(given_up, default=math.inf)


def _best_of(moves: dict[int, float]) -> tuple[float, np.ndarray]:
    """Every move's exact value (``{action: value}`` in ``legal_actions()`` order) to
    :meth:`MoveSolver.best_moves`'s answer."""
    values = np.fromiter(moves.values(), np.float64, len(moves))
    best = float(values.max())
    return best, values == best


class SolverAgent(Agent):
    """Plays a move of the best exact value where :class:`Solver` solves every move within
    ``max_nodes`` (per decision), and depth-2 alpha-beta on the game's heuristic otherwise;
    ties are broken at random. ``last_solution`` is the last decision's :class:`Solution`."""

    name = "solver"
    needs_state = True

    def __init__(self, max_nodes: int = 200_000, max_seconds: float | None = None, seed: int | None = None):
        super().__init__(seed)
        self.solver = Solver(max_nodes=max_nodes, max_seconds=max_seconds)
        self.fallback = AlphaBetaAgent(depth=2, seed=seed)
        self.last_solution: Solution | None = None

    def act(self, observation: dict, state: GameState | None = None) -> int:
        state = self._require_state(state)
        solution = self.last_solution = self.solver.solve_moves(state)
        best = solution.best_actions()
        if best:
            return int(best[self.rng.integers(len(best))])
        candidates, _ = self.fallback.best_actions(state)
        return int(candidates[self.rng.integers(len(candidates))])
