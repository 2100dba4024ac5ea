"""Sky Scrapers' compiled batched engine: ``num_envs`` games over a structure of arrays.

Every field of a position is one array whose leading dimension is the slot (pgx's layout):
``heights`` (N, B) int16 and ``tops`` (N, B) int8 (a stack is its height and top colour),
``cells`` (N, B) bool (random boards and loaded positions differ per slot) with ``full``
(N,) marking slots whose board is the whole box, ``seat_colours`` and ``tiles_left``
(N, P), ``phase``, ``first_mover`` and ``turns`` (N,); the seat to move is the engine's
``current_player``. One compiled call (:func:`_step_kernel`) plays an action in every
active slot, settles the turn as :class:`~sky_envs.games.sky_scrapers.state.SkyScrapersState`
does (a seat without a move is skipped, the game ends when nobody can move, ``max_turns``
cuts it), writes the next seat's mask and observation, and, where the game ended, its
returns and final observation, then sets up the slot's next game from its seed.

The kernels are compiled without numba's reference counting (``_nrt=False``): with it,
every row view a kernel takes and every helper call that passes arrays counts a reference
with an atomic operation, and those cost more than the decisions themselves. So nothing
they run allocates: the engine hands them their scratch (a generator state and a few
rows of ``int64``). The helpers work on one slot's rows; the observation loop is inlined
once per seat count, so that its offsets are constants.

Set-ups draw what ``SkyScrapersGame.new_initial_state(np.random.default_rng(seed))`` draws,
in the same order, through :mod:`sky_envs.core.numpy_random` (numpy's draws compiled), so
a slot seeded ``s`` plays the game ``env.reset(seed=s)`` plays. Landing cells come from the
full box's landing table (``board_for(box).reach``) and every cell a path crosses is
checked against the slot's board, so random boards need no table of their own.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sky_envs.core.batched import BatchedGames
from sky_envs.core.batched_kernel import best_and_ties, legal_list, nth_best, playout_ended, random_legal_action
from sky_envs.core.boards import LINE_DIRECTIONS
from sky_envs.core.numpy_random import NO_REFCOUNT_COMPILE, STATE_WORDS, choice_without_replacement, integers, permutation, seed_default_rng
from sky_envs.core.python_random import python_random
from sky_envs.core.state import WIN
from sky_envs.games.sky_scrapers.board import board_for
from sky_envs.games.sky_scrapers.heuristic import SkyScrapersHeuristic
from sky_envs.games.sky_scrapers.heuristic_kernels import move_values_into
from sky_envs.games.sky_scrapers.rules import CHOOSE, MOVE, PHASE_INDEX, PLACE, standard_colours
from sky_envs.games.sky_scrapers.state import SkyScrapersState

_MOVE, _PLACE, _CHOOSE = PHASE_INDEX[MOVE], PHASE_INDEX[PLACE], PHASE_INDEX[CHOOSE]
PHASES = {index: name for name, index in PHASE_INDEX.items()}
_FINISHED, _TRUNCATED = -1, -2        # what _start_turn returns when nobody gets the turn
# the set-up vector: facts of the configuration the kernels read
(_B, _P, _ROWS, _COLS, _POSITIONING, _FIRST_RANDOM, _RANDOM_BOARD, _CELL_LOW, _CELL_HIGH, _TILES,
 _SKYSCRAPER_HEIGHT, _MAX_TURNS, _SETUP_SIZE) = range(13)
_STANDARD, _RANDOM, _STRATEGIC = 0, 1, 2
POSITIONING_INDEX = {"standard": _STANDARD, "random": _RANDOM, "strategic": _STRATEGIC}


# ------------------------------------------------------------------ rules (one slot's rows)
@njit(cache=True, inline="always")
def _seat_after(seat, k, P):
    """``(seat + k) % P`` for ``0 <= seat, k < P``, without a division."""
    seat += k
    return seat - P if seat >= P else seat


@njit(cache=True)
def _crosses_board_cells(cells, reach, cell, d, h):
    """Whether every cell a stack of height ``h`` crosses from ``cell`` along ``d`` (before
    the one it lands on) is a board cell."""
    for step in range(1, h):
        if not cells[reach[step, cell, d]]:
            return False
    return True


@njit(cache=True)
def _movement_mask(seat, heights, tops, cells, whole, seat_colours, reach, mask, stacks):
    """Mark the stack moves of ``seat``, or of the first seat after it that has one, in
    ``mask`` (all False on entry); that seat, or -1 when no seat can move (as
    ``kernels.movement_mask``). ``reach``'s last row (heights too tall for the box) and
    the directions outside the board's lines land on ``B``, whose height is always 0, so
    that the loops have no branch a random position would mispredict."""
    B, P = tops.shape[0], seat_colours.shape[0]
    last_row = reach.shape[0] - 1
    for k in range(P):
        mover = _seat_after(seat, k, P)
        colour = seat_colours[mover]
        count = 0
        for cell in range(B):                         # the mover's stacks
            stacks[count] = cell
            count += tops[cell] == colour
        found = False
        for i in range(count):
            cell = stacks[i]
            h = np.int64(heights[cell])
            row = min(h, last_row)
            for d in range(8):
                lands = heights[reach[row, cell, d]] > 0
                if lands and h > 1 and not whole:
                    lands = _crosses_board_cells(cells, reach, cell, d, h)
                mask[cell * 8 + d] = lands
                found |= lands
        if found:
            return mover
    return -1


@njit(cache=True)
def _start_turn(seat, heights, tops, cells, whole, seat_colours, tiles_left, phase, turns, reach, mask, setup, stacks):
    """``SkyScrapersState._start_turn``: the seat that decides next (its mask written into
    ``mask``), or ``_FINISHED`` when nobody can move, or ``_TRUNCATED`` at ``max_turns``."""
    B, P = setup[_B], setup[_P]
    mask[:] = False
    if phase == _CHOOSE:
        mask[9 * B] = True
        mask[9 * B + 1] = True
    elif phase == _PLACE:
        while tiles_left[seat] == 0:
            seat = _seat_after(seat, 1, P)
        for cell in range(B):
            mask[8 * B + cell] = cells[cell] and heights[cell] == 0
    else:
        seat = _movement_mask(seat, heights, tops, cells, whole, seat_colours, reach, mask, stacks)
        if seat < 0:
            return _FINISHED
    if turns >= setup[_MAX_TURNS]:
        return _TRUNCATED
    return seat


@njit(cache=True, inline="always")
def _observe(out, seat, heights, tops, cells, seat_colours, tiles_left, phase):
    """``SkyScrapersState.observation(seat)`` into ``out`` (flat rows x cols x (P + 4)):
    0 board cell; 1 + k heights (capped at B) of the stacks of seat (seat + k)'s colour,
    colour k while colours are being chosen; P + 1 placing; P + 2 choosing; P + 3 the
    seat's tiles left to place."""
    P = seat_colours.shape[0]
    choosing = phase == _CHOOSE
    colour0 = 0 if choosing else seat_colours[seat]   # the colour of channel 1 + k
    colour1 = 1 if choosing else seat_colours[_seat_after(seat, 1, P)]
    colour2 = 2 if choosing or P == 2 else seat_colours[_seat_after(seat, 2, P)]
    colour3 = 3 if choosing or P == 2 else seat_colours[_seat_after(seat, 3, P)]
    placing, choice = np.float32(phase == _PLACE), np.float32(choosing)
    left = np.float32(tiles_left[seat])
    if P == 2:
        _observe_cells(out, heights, tops, cells, colour0, colour1, colour2, colour3, placing, choice, left, 2)
    else:
        _observe_cells(out, heights, tops, cells, colour0, colour1, colour2, colour3, placing, choice, left, 4)


@njit(cache=True, inline="always")
def _observe_cells(out, heights, tops, cells, colour0, colour1, colour2, colour3, placing, choice, left, P):
    """The cells of one observation, ``P`` a constant where inlined."""
    B = tops.shape[0]
    width = P + 4
    zero = np.float32(0.0)
    for cell in range(B):
        base = cell * width
        top = tops[cell]
        height = np.float32(min(np.int64(heights[cell]), B))
        out[base] = np.float32(cells[cell])
        out[base + 1] = height if top == colour0 else zero
        out[base + 2] = height if top == colour1 else zero
        if P == 4:
            out[base + 3] = height if top == colour2 else zero
            out[base + 4] = height if top == colour3 else zero
        out[base + P + 1] = placing
        out[base + P + 2] = choice
        out[base + P + 3] = left


@njit(cache=True)
def _skyscrapers(heights, tops, colour, skyscraper_height):
    """The number of sky scrapers of ``colour`` and the height of its tallest (0 if none)."""
    count, tallest = 0, 0
    for cell in range(tops.shape[0]):
        h = np.int64(heights[cell])
        if h >= skyscraper_height and tops[cell] == colour:
            count += 1
            tallest = max(tallest, h)
    return count, tallest


@njit(cache=True)
def _write_returns(rewards, heights, tops, seat_colours, skyscraper_height):
    """``SkyScrapersState.returns()`` of a finished game: +1 for the seats with the most sky
    scrapers (then the tallest), -1 for the others, 0 for all when every seat ties."""
    P = seat_colours.shape[0]
    best = (-1, -1)
    for seat in range(P):
        score = _skyscrapers(heights, tops, seat_colours[seat], skyscraper_height)
        if score > best:
            best = score
    winners = 0
    for seat in range(P):
        winners += _skyscrapers(heights, tops, seat_colours[seat], skyscraper_height) == best
    if best[0] == 0 or winners == P:
        return
    for seat in range(P):
        won = _skyscrapers(heights, tops, seat_colours[seat], skyscraper_height) == best
        rewards[seat] = 1.0 if won else -1.0


# ------------------------------------------------------------------ set-up
# rows of the int64 scratch array ``work`` (3, B + 1): the kernels allocate nothing
_CELL_LIST, _SAMPLE, _FLAGS = 0, 1, 2


@njit(cache=True)
def _grow_random_board(cells, count, reach, directions, rows, cols, bitgen, frontier, seen):
    """``boards.random_connected_cells`` into ``cells``: a random start cell, then
    ``count - 1`` times a uniformly drawn frontier cell (the frontier a list in the order
    cells joined it, as in Python). ``frontier`` and ``seen`` have ``B + 1`` entries: the
    box's edge (``B``) counts as seen, so that a neighbour joins without a branch."""
    B = cells.shape[0]
    cells[:] = False
    seen[:B] = 0
    seen[B] = 1
    pick = integers(bitgen, 0, rows) * cols
    pick += integers(bitgen, 0, cols)
    seen[pick] = 1
    size = 0
    for grown in range(count):
        if grown > 0:
            at = integers(bitgen, 0, size)
            pick = frontier[at]
            size -= 1
            for i in range(at, size):
                frontier[i] = frontier[i + 1]
        cells[pick] = True
        for d in directions:
            neighbour = reach[1, pick, d]
            new = seen[neighbour] == 0
            seen[neighbour] = 1
            frontier[size] = neighbour
            size += new


@njit(cache=True)
def _new_game(slot, seed, heights, tops, cells, full, seat_colours, tiles_left, phase, first_mover, turns,
              fixed_cells, standard_tops, reach, directions, setup, bitgen, work):
    """``SkyScrapersGame.new_initial_state(np.random.default_rng(seed))`` into ``slot``,
    drawing what it draws in its order; returns the seat it hands the first turn to."""
    B, P = setup[_B], setup[_P]
    positioning = setup[_POSITIONING]
    if setup[_RANDOM_BOARD] or positioning == _RANDOM or setup[_FIRST_RANDOM]:
        seed_default_rng(bitgen, seed)
    if setup[_RANDOM_BOARD]:
        count = integers(bitgen, setup[_CELL_LOW], setup[_CELL_HIGH] + 1)
        _grow_random_board(cells[slot], count, reach, directions, setup[_ROWS], setup[_COLS], bitgen,
                           work[_CELL_LIST], work[_FLAGS])
    else:
        for cell in range(B):
            cells[slot, cell] = fixed_cells[cell]
    board_cells = work[_CELL_LIST]                   # np.flatnonzero(cells)
    num_cells = 0
    for cell in range(B):
        board_cells[num_cells] = cell
        num_cells += cells[slot, cell]
    full[slot] = num_cells == B
    tiles = setup[_TILES] if setup[_TILES] > 0 else num_cells // P
    heights[slot, :] = 0
    tops[slot, :] = -1
    for seat in range(P):
        seat_colours[slot, seat] = seat
        tiles_left[slot, seat] = 0
    phase[slot] = _MOVE
    first_mover[slot] = 0
    turns[slot] = 0
    to_move = 0
    if positioning == _STANDARD:
        for cell in range(B):
            if cells[slot, cell]:
                tops[slot, cell] = standard_tops[cell]
                heights[slot, cell] = 1
    elif positioning == _RANDOM:
        spots = work[_SAMPLE]
        choice_without_replacement(bitgen, num_cells, tiles * P, spots, work[_FLAGS])
        for k in range(tiles * P):
            spot = board_cells[spots[k]]
            tops[slot, spot] = k // tiles
            heights[slot, spot] = 1
        to_move = integers(bitgen, 0, P)            # the coin toss: who moves first
        if P == 2:
            phase[slot] = _CHOOSE
            seat_colours[slot, 0] = seat_colours[slot, 1] = -1
            to_move = 1 - to_move                   # the second mover chooses the colour first
        else:
            dealt = work[_SAMPLE, :P]
            permutation(bitgen, dealt)
            for seat in range(P):
                seat_colours[slot, seat] = dealt[seat]
    else:
        phase[slot] = _PLACE
        for seat in range(P):
            tiles_left[slot, seat] = tiles
        to_move = integers(bitgen, 0, P) if setup[_FIRST_RANDOM] else 0
        first_mover[slot] = _seat_after(to_move, 1, P)   # the seat that placed second moves first
    return to_move


# ------------------------------------------------------------------ entry points
# compiled without reference counting (see the module docstring): nothing below allocates
@njit(cache=True)
def _begin(slot, seed, heights, tops, cells, full, seat_colours, tiles_left, phase, first_mover, turns, action_mask,
           fixed_cells, standard_tops, reach, directions, setup, bitgen, work):
    """Start the game of ``seed`` in ``slot`` and write its mask; the seat to move, or a
    negative number if that game is over before its first decision."""
    to_move = _new_game(slot, seed, heights, tops, cells, full, seat_colours, tiles_left, phase, first_mover, turns,
                        fixed_cells, standard_tops, reach, directions, setup, bitgen, work)
    return _start_turn(to_move, heights[slot], tops[slot], cells[slot], full[slot], seat_colours[slot],
                       tiles_left[slot], phase[slot], turns[slot], reach, action_mask[slot], setup, work[_CELL_LIST])


@njit(**NO_REFCOUNT_COMPILE)
def _reset_kernel(seeds, heights, tops, cells, full, seat_colours, tiles_left, phase, first_mover, turns,
                  current_player, observation, action_mask, rewards, terminated, truncated, final_player,
                  fixed_cells, standard_tops, reach, directions, setup, bitgen, work):
    """New games in every slot; the first slot whose game has no first decision, or -1."""
    for slot in range(seeds.shape[0]):
        rewards[slot, :] = 0.0
        terminated[slot] = truncated[slot] = False
        final_player[slot] = -1
        seat = _begin(slot, seeds[slot], heights, tops, cells, full, seat_colours, tiles_left, phase, first_mover,
                      turns, action_mask, fixed_cells, standard_tops, reach, directions, setup, bitgen, work)
        if seat < 0:
            return slot
        current_player[slot] = seat
        _observe(observation[slot], seat, heights[slot], tops[slot], cells[slot], seat_colours[slot], tiles_left[slot],
                 phase[slot])
    return -1


@njit(**NO_REFCOUNT_COMPILE)
def _step_kernel(actions, next_seeds, active, heights, tops, cells, full, seat_colours, tiles_left, phase,
                 first_mover, turns, current_player, observation, action_mask, rewards, terminated, truncated,
                 final_player, final_observation, keep_final, final_observer, fixed_cells, standard_tops, reach,
                 directions, setup, bitgen, work):
    """Play ``actions`` in the active slots (``SkyScrapersState.apply_unchecked``), settle
    each turn, record ended games and start the next ones; the first slot whose new game
    has no first decision, or -1."""
    B, P = setup[_B], setup[_P]
    stacks = work[_CELL_LIST]
    for slot in range(actions.shape[0]):
        rewards[slot, :] = 0.0
        terminated[slot] = truncated[slot] = False
        final_player[slot] = -1
        if not active[slot]:
            continue
        slot_heights, slot_tops, slot_cells = heights[slot], tops[slot], cells[slot]
        colours, left = seat_colours[slot], tiles_left[slot]
        seat = current_player[slot]
        action = actions[slot]
        turns[slot] += 1
        if action < 8 * B:                           # move the stack on a cell along a direction
            origin, d = action // 8, action % 8
            h = np.int64(slot_heights[origin])
            target = reach[min(h, reach.shape[0] - 1), origin, d]
            slot_heights[target] += h
            slot_tops[target] = slot_tops[origin]
            slot_heights[origin] = 0
            slot_tops[origin] = -1
            following = _seat_after(seat, 1, P)
        elif action < 9 * B:                         # place a tile on an empty cell
            cell = action - 8 * B
            slot_heights[cell] = 1
            slot_tops[cell] = colours[seat]
            left[seat] -= 1
            following = _seat_after(seat, 1, P)
            if not left.any():
                phase[slot] = _MOVE
                following = first_mover[slot]
        else:                                        # choose colour a or b
            chosen = action - 9 * B
            colours[seat] = chosen
            colours[1 - seat] = 1 - chosen
            phase[slot] = _MOVE
            following = 1 - seat
        nxt = _start_turn(following, slot_heights, slot_tops, slot_cells, full[slot], colours, left, phase[slot],
                          turns[slot], reach, action_mask[slot], setup, stacks)
        if nxt < 0:
            if nxt == _FINISHED:
                terminated[slot] = True
                _write_returns(rewards[slot], slot_heights, slot_tops, colours, setup[_SKYSCRAPER_HEIGHT])
            else:
                truncated[slot] = True
            final_player[slot] = seat
            if keep_final:
                seen_by = seat if final_observer[slot] < 0 else final_observer[slot]
                _observe(final_observation[slot], seen_by, slot_heights, slot_tops, slot_cells, colours, left,
                         phase[slot])
            nxt = _begin(slot, next_seeds[slot], heights, tops, cells, full, seat_colours, tiles_left, phase,
                         first_mover, turns, action_mask, fixed_cells, standard_tops, reach, directions, setup, bitgen,
                         work)
            if nxt < 0:
                return slot
        current_player[slot] = nxt
        _observe(observation[slot], nxt, slot_heights, slot_tops, slot_cells, colours, left, phase[slot])
    return -1


@njit(**NO_REFCOUNT_COMPILE)
def _play_out_kernel(mt, max_plies, returns, actions, next_seeds, active, heights, tops, cells, full, seat_colours,
                     tiles_left, phase, first_mover, turns, current_player, observation, action_mask, rewards,
                     terminated, truncated, final_player, final_observation, keep_final, final_observer, fixed_cells,
                     standard_tops, reach, directions, setup, bitgen, work):
    """A random playout of the game in slot 0 (``BatchedGames.play_out``): moves picked by
    ``random_legal_action`` with Python's generator ``mt``, stepped by :func:`_step_kernel`
    (whose arguments follow ``returns``), until the game ends (``returns``: its rewards) or
    ``max_plies`` moves (-1: no cap; zeros then, as at a ``max_turns`` cut)."""
    returns[:] = 0.0
    plies = 0
    while max_plies < 0 or plies < max_plies:
        actions[0] = random_legal_action(action_mask[0], mt)
        _step_kernel(actions, next_seeds, active, heights, tops, cells, full, seat_colours, tiles_left, phase,
                     first_mover, turns, current_player, observation, action_mask, rewards, terminated, truncated,
                     final_player, final_observation, keep_final, final_observer, fixed_cells, standard_tops, reach,
                     directions, setup, bitgen, work)
        plies += 1
        if playout_ended(returns, rewards, terminated, truncated):
            return


@njit(**NO_REFCOUNT_COMPILE)
def _board_reach(cells, reach, out):
    """Into ``out`` (shaped as the box's ``reach``): the board's own landing table
    (``Board.reach`` of the board ``cells``), where a stack of each height on each cell lands
    along each direction, ``B`` where the path leaves the board or crosses a hole."""
    B = cells.shape[0]
    for cell in range(B):
        for d in range(8):
            out[0, cell, d] = B
            open_path = cells[cell]
            for h in range(1, reach.shape[0]):
                landing = reach[h, cell, d]
                open_path = open_path and landing < B and cells[landing]
                out[h, cell, d] = landing if open_path else B


@njit(**NO_REFCOUNT_COMPILE)
def _greedy_play_out_kernel(mt, epsilon, win, returns, actions, next_seeds, active, heights, tops, cells, full,
                            seat_colours, tiles_left, phase, first_mover, turns, current_player, observation,
                            action_mask, rewards, terminated, truncated, final_player, final_observation, keep_final,
                            final_observer, fixed_cells, standard_tops, reach, directions, setup, bitgen, work,
                            board_reach, landing, legal, values, h, t, scores):
    """A greedy playout of the game in slot 0 (``BatchedGames.greedy_play_out``), stepped by
    :func:`_step_kernel` (whose arguments follow ``active``) until the game ends: at each
    decision a draw of Python's generator ``mt``; from ``epsilon`` up, in the move phase, one
    of the moves :func:`move_values_into` values highest (the tie broken by the next draw),
    else the move ``random_legal_action`` draws. The rest is scratch: the board's landing
    table and its landings now, the legal moves and their values, copies of the heights and
    tops, the score rows."""
    returns[:] = 0.0
    B = setup[_B]
    _board_reach(cells[0], reach, board_reach)
    last_row = reach.shape[0] - 1
    while True:
        if python_random(mt) >= epsilon and phase[0] == _MOVE:
            count = legal_list(action_mask[0], legal)
            for cell in range(B):
                row = min(np.int64(heights[0, cell]), last_row)
                for d in range(8):
                    landing[cell, d] = board_reach[row, cell, d]
                h[cell] = heights[0, cell]
                t[cell] = tops[0, cell]
            move_values_into(heights[0], tops[0], landing, board_reach, seat_colours[0], current_player[0], legal,
                             count, setup[_SKYSCRAPER_HEIGHT], win, values, h, t, scores)
            best, ties = best_and_ties(values, count)
            actions[0] = nth_best(legal, values, count, best, int(python_random(mt) * ties))
        else:
            actions[0] = random_legal_action(action_mask[0], mt)
        _step_kernel(actions, next_seeds, active, heights, tops, cells, full, seat_colours, tiles_left, phase,
                     first_mover, turns, current_player, observation, action_mask, rewards, terminated, truncated,
                     final_player, final_observation, keep_final, final_observer, fixed_cells, standard_tops, reach,
                     directions, setup, bitgen, work)
        if playout_ended(returns, rewards, terminated, truncated):
            return


@njit(**NO_REFCOUNT_COMPILE)
def _refresh_kernel(slot, seat, heights, tops, cells, full, seat_colours, tiles_left, phase, turns, current_player,
                    observation, action_mask, reach, setup, work):
    """Seat, mask and observation of a position put into ``slot`` whose seat to move is
    ``seat``; returns the seat the rules give (``seat`` for a consistent position)."""
    nxt = _start_turn(seat, heights[slot], tops[slot], cells[slot], full[slot], seat_colours[slot], tiles_left[slot],
                      phase[slot], turns[slot], reach, action_mask[slot], setup, work[_CELL_LIST])
    if nxt >= 0:
        current_player[slot] = nxt
        _observe(observation[slot], nxt, heights[slot], tops[slot], cells[slot], seat_colours[slot], tiles_left[slot],
                 phase[slot])
    return nxt


# ------------------------------------------------------------------ the engine
class SkyScrapersBatch(BatchedGames):
    """The compiled engine of one Sky Scrapers configuration (every option set)."""

    def __init__(self, game, num_envs: int, keep_final_observation: bool = True):
        super().__init__(game, num_envs, keep_final_observation)
        N, P = num_envs, game.num_players
        B = game.rows * game.cols
        self.heights = np.zeros((N, B + 1), dtype=np.int16)   # column B: always 0 (off-board landings)
        self.tops = np.full((N, B), -1, dtype=np.int8)
        self.cells = np.zeros((N, B), dtype=bool)
        self.full = np.zeros(N, dtype=bool)
        self.seat_colours = np.zeros((N, P), dtype=np.int8)
        self.tiles_left = np.zeros((N, P), dtype=np.int16)
        self.phase = np.zeros(N, dtype=np.int8)
        self.first_mover = np.zeros(N, dtype=np.int8)
        self.turns = np.zeros(N, dtype=np.int32)
        box = np.ones((game.rows, game.cols), dtype=bool)
        self._reach = board_for(box, game.lines).reach          # (H + 1, B, 8): heights from H leave the box
        self._directions = np.array(LINE_DIRECTIONS[game.lines], dtype=np.int64)
        fixed = game.fixed_cells
        self._fixed_cells = np.zeros(B, dtype=bool) if fixed is None else fixed.reshape(-1).copy()
        self._standard_tops = (standard_colours(fixed, P).reshape(-1).astype(np.int8) if game.positioning == "standard"
                               else np.zeros(B, dtype=np.int8))
        setup = np.zeros(_SETUP_SIZE, dtype=np.int64)
        setup[_B], setup[_P], setup[_ROWS], setup[_COLS] = B, P, game.rows, game.cols
        setup[_POSITIONING] = POSITIONING_INDEX[game.positioning]
        setup[_FIRST_RANDOM] = game.first == "random"
        setup[_RANDOM_BOARD] = fixed is None
        setup[_CELL_LOW], setup[_CELL_HIGH] = game.cell_range
        setup[_TILES] = game.tiles_per_player or 0
        setup[_SKYSCRAPER_HEIGHT] = game.skyscraper_height
        setup[_MAX_TURNS] = game.max_turns
        self._setup = setup
        self._bitgen = np.zeros(STATE_WORDS, dtype=np.uint64)      # the kernels' scratch: they allocate nothing
        self._work = np.zeros((3, B + 1), dtype=np.int64)
        self._observation_rows = self.observation.reshape(N, -1)
        self._final_rows = (self.final_observation.reshape(N, -1) if self.final_observation is not None
                            else np.zeros((1, self._observation_rows.shape[1]), dtype=np.float32))
        self._rng = np.random.default_rng(0)   # the rng of states handed out (play draws nothing)

    def _position_arrays(self):
        return (self.heights, self.tops, self.cells, self.full, self.seat_colours, self.tiles_left, self.phase,
                self.first_mover, self.turns)

    def reset(self, seeds: np.ndarray) -> None:
        failed = _reset_kernel(np.asarray(seeds, dtype=np.int64), *self._position_arrays(), self.current_player,
                               self._observation_rows, self.action_mask, self.rewards, self.terminated, self.truncated,
                               self.final_player, self._fixed_cells, self._standard_tops, self._reach,
                               self._directions, self._setup, self._bitgen, self._work)
        self._check_started(failed, seeds)

    def step(self, actions: np.ndarray, next_seeds: np.ndarray, active: np.ndarray) -> None:
        failed = _step_kernel(np.asarray(actions, dtype=np.int64), np.asarray(next_seeds, dtype=np.int64),
                              np.asarray(active, dtype=bool), *self._step_arrays())
        self._check_started(failed, next_seeds)

    def _step_arrays(self) -> tuple:
        """:func:`_step_kernel`'s arguments after the actions, seeds and active slots."""
        return (*self._position_arrays(), self.current_player, self._observation_rows, self.action_mask, self.rewards,
                self.terminated, self.truncated, self.final_player, self._final_rows,
                self.final_observation is not None, self.final_observer, self._fixed_cells, self._standard_tops,
                self._reach, self._directions, self._setup, self._bitgen, self._work)

    plays_out = True

    def _run_playout(self, max_plies, mt, returns, actions, seeds, active) -> None:
        _play_out_kernel(mt, max_plies, returns, actions, seeds, active, *self._step_arrays())

    @property
    def plays_greedy_out(self) -> bool:
        return type(self.game.heuristic) is SkyScrapersHeuristic

    _greedy_scratch: tuple | None = None

    def _run_greedy_playout(self, epsilon, mt, returns, actions, seeds, active) -> None:
        if self._greedy_scratch is None:
            B, P = self.heights.shape[1] - 1, self.game.num_players
            self._greedy_scratch = (np.zeros_like(self._reach), np.zeros((B, 8), dtype=self._reach.dtype),
                                    np.zeros(8 * B, dtype=np.int64), np.zeros(8 * B), np.zeros(B + 1, dtype=np.int16),
                                    np.zeros(B, dtype=np.int8), np.zeros((6, P)))
        _greedy_play_out_kernel(mt, epsilon, WIN, returns, actions, seeds, active, *self._step_arrays(),
                                *self._greedy_scratch)

    @staticmethod
    def _check_started(failed: int, seeds: np.ndarray) -> None:
        if failed >= 0:
            raise ValueError(f"seed {int(seeds[failed])} gives a game that is over before its first move; "
                             "a batch needs games with a first decision")

    def set_state(self, slot: int, state: SkyScrapersState) -> None:
        game = self.game
        if state.game.env_id != game.env_id:
            raise ValueError(f"a {state.game.env_id} position cannot go into a batch of {game.env_id}")
        if state.current_player < 0:
            raise ValueError(f"slot {slot}: the position is over; a slot holds a game in play")
        for fact in ("rows", "cols", "num_players", "lines", "skyscraper_height", "max_turns"):
            if getattr(state.game, fact) != getattr(game, fact):
                raise ValueError(f"slot {slot}: the position's game has {fact}={getattr(state.game, fact)!r} "
                                 f"but this batch's has {getattr(game, fact)!r}")
        self.heights[slot] = state.heights
        self.tops[slot] = state.tops
        self.cells[slot] = state.board.cells
        self.full[slot] = bool(state.board.cells.all())
        self.seat_colours[slot] = state.seat_colours
        self.tiles_left[slot] = state.tiles_left
        self.phase[slot] = PHASE_INDEX[state.phase]
        self.first_mover[slot] = state.first_mover
        self.turns[slot] = state.turns
        seat = _refresh_kernel(slot, state.current_player, *self._position_arrays()[:7], self.turns,
                               self.current_player, self._observation_rows, self.action_mask, self._reach,
                               self._setup, self._work)
        if seat != state.current_player:
            raise RuntimeError(f"slot {slot}: the engine gives the turn to {seat}, the position to "
                               f"{state.current_player}; the position is inconsistent")

    def get_state(self, slot: int) -> SkyScrapersState:
        game = self.game
        heights = self.heights[slot].astype(np.int32)
        board = board_for(self.cells[slot].reshape(game.rows, game.cols), game.lines)
        state = SkyScrapersState(game, board, heights, self.tops[slot].copy(), self.seat_colours[slot].copy(),
                                 PHASES[int(self.phase[slot])], int(self.current_player[slot]),
                                 self.tiles_left[slot].astype(np.int32), int(self.first_mover[slot]), self._rng)
        state.turns = int(self.turns[slot])
        return state
