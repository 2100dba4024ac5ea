"""The compiled rules core of both modes over arrays of games (numba, one slot per row).

The readable engine is :mod:`~sky_envs.games.highrise_heist.state` with its mode hooks in
``heist.py`` and ``rush.py``; this module plays the same games over a structure of arrays
(leading dimension: the slot) for :class:`~sky_envs.games.highrise_heist.batched.HighriseHeistBatch`,
which builds the arguments (``batched.py`` names every array). Legal masks and
observations are read from the game's lookup tables (:mod:`~sky_envs.games.highrise_heist.tables`,
cut down by :mod:`~sky_envs.games.highrise_heist.batched_tables`) through the same
per-stand keys and codes.

A decision is :func:`_apply` (the action and what its closures trigger), :func:`_settle`
(the end, the cut, or the next mask, skipping placement phases without a legal placement)
and :func:`_write_observation`, inlined into the one entry point :func:`advance`. The
functions take plain arrays, not tuples of them, index with unsigned integers where the
index is known to be in range, and are compiled without reference counting (nothing
allocates): each of these halved the time of a step.

Observations are written incrementally, and provably equal to a full write. A cell is a
head, its feature-table row (fixed by the observer, its stand, the stand's observation
key and the cell's colour), and a tail of constant planes (the flags context, the turn
fraction, Golden Rush's queue ranks), the same in every cell. A decision marks the stands
whose blocks it changed (their seen key -1); a stand whose observation key is unchanged
and whose blocks were not touched keeps its heads, and every cell gets only the tail
words that changed. A new observer rewrites everything.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sky_envs.core.batched import REFRESH, RESTART, STEP
from sky_envs.core.batched_kernel import forget_last_end, playout_ended, random_legal_action
from sky_envs.core.numpy_random import NO_REFCOUNT_COMPILE
from sky_envs.games.highrise_heist.rules import HEIGHT, PLACE, TRANSFER

CONTINUES, TERMINATED, TRUNCATED = 0, 1, 2
ALL_STANDS = -1  # a set of stands as bits: all of them
LEVELS = HEIGHT + 1  # heights and group sizes 0..11 in a key
#: int64 words of a cell's head in either mode (``batched_tables`` finds them; other
#: lengths are copied too, by a plain loop)
HEIST_HEAD, RUSH_HEAD = 4, 9
MAX_TAIL = 4  # int64 words of a cell's tail at most

# configuration entries (``batched.py`` writes them)
STANDS, PLAYERS, RUSH, TEAMS, SCORE_REWARD, MAX_TURNS, NO_TRANSFER, SINGLE, SWAP = range(9)
FRACTION_CHANNEL, QUEUE_CHANNEL, TAIL_START, CENTRE_POINTS, NEAR_POINTS, FAR_POINTS, TEAM_BONUS = range(9, 16)
SCORE_SCALE, KEEP_FINAL, PLACE_ROW, CONFIG_SIZE = 16, 17, 18, 19

_compiled = njit(**NO_REFCOUNT_COMPILE, nogil=True, error_model="numpy")
_inlined = njit(**NO_REFCOUNT_COMPILE, error_model="numpy", inline="always")
#: an index known to be in range as unsigned: numba then skips its negative-index test
_index = np.uint64


# ------------------------------------------------------------------ positions
@_compiled
def _top_group_size(cells, i, s, h):
    if h == 0:
        return 0
    colour = cells[i, s * HEIGHT + h - 1]
    size = 1
    while size < h and cells[i, s * HEIGHT + h - 1 - size] == colour:
        size += 1
    return size


@_compiled
def _heist_cap(heights, closed, i, S):
    """``HeistState._placement_cap``: 11 when at most 2 stands are open and nothing closed
    this turn, else 10."""
    if closed[i]:
        return HEIGHT - 1
    open_count = 0
    for s in range(S):
        if heights[i, s] < HEIGHT:
            open_count += 1
    return HEIGHT if open_count <= 2 else HEIGHT - 1


@_compiled
def _heist_can_win(mine, theirs, open_count, golden_height, golden_top, seat):
    best = mine + open_count
    if best != theirs:
        return best > theirs
    return golden_height < HEIGHT or golden_top == seat


@_compiled
def _heist_winner(cells, heights, i, S):
    """The seat that can still win when the other cannot (``HeistState._decided`` and
    ``winner``): 0 or 1 once the game is decided, -1 while both can."""
    counts0 = 0
    counts1 = 0
    for s in range(S):
        if heights[i, s] == HEIGHT:
            if cells[i, s * HEIGHT + HEIGHT - 1] == 0:
                counts0 += 1
            else:
                counts1 += 1
    open_count = S - counts0 - counts1
    golden_height, golden_top = heights[i, 0], cells[i, HEIGHT - 1]
    can0 = _heist_can_win(counts0, counts1, open_count, golden_height, golden_top, 0)
    can1 = _heist_can_win(counts1, counts0, open_count, golden_height, golden_top, 1)
    if can0 and can1:
        return -1
    return 0 if can0 else 1


@_compiled
def _queued(queue, queue_len, i, seat):
    for r in range(queue_len[i]):
        if queue[i, r] == seat:
            return True
    return False


@_inlined
def _apply(action, i, cells, heights, groups, turn, phase, closed, queue, queue_len, seen_keys, placements,
           config):
    """``StackState.apply_unchecked`` up to the settle: the transfer, swap or placement, and
    what a closure triggers (``_closed``, ``RushState._on_close``). Marks the stands whose
    blocks changed in ``seen_keys``; returns whether the game is decided, and the stands
    whose codes may have changed (bit s for stand s; all of them after a closure, which
    can change other stands' capacities, or a swap)."""
    S, P, rush = config[STANDS], config[PLAYERS], config[RUSH]
    closing = False
    changed = 0
    if phase[i] == TRANSFER:
        if action == config[SWAP]:  # HeistState._swap, then the turn ends
            for s in range(S):
                for level in range(heights[i, s]):
                    cells[i, s * HEIGHT + level] = 1 - cells[i, s * HEIGHT + level]
                seen_keys[i, s] = -1
            turn[i] += 1
            closed[i] = 0
            return _heist_winner(cells, heights, i, S) >= 0, ALL_STANDS
        phase[i] = PLACE
        if action == config[NO_TRANSFER]:
            return False, 0
        source, target = action // S, action % S
        h = heights[i, source]
        size = groups[i, source]
        colour = cells[i, source * HEIGHT + h - 1]
        for level in range(h - size, h):
            cells[i, source * HEIGHT + level] = -1
        heights[i, source] = h - size
        groups[i, source] = _top_group_size(cells, i, source, h - size)
        seen_keys[i, source] = -1
        seen_keys[i, target] = -1
        height = heights[i, target]
        group = size
        if height > 0 and cells[i, target * HEIGHT + height - 1] == colour:
            group += groups[i, target]
        total = height + size
        if total < HEIGHT:
            for level in range(height, total):
                cells[i, target * HEIGHT + level] = colour
            heights[i, target] = total
            groups[i, target] = group
            return False, 1 << source | 1 << target
        excess = total - HEIGHT  # the overflow leaves from the bottom (Highrise Heist)
        for level in range(height - excess):
            cells[i, target * HEIGHT + level] = cells[i, target * HEIGHT + level + excess]
        for level in range(height - excess, HEIGHT):
            cells[i, target * HEIGHT + level] = colour
        heights[i, target] = HEIGHT
        groups[i, target] = min(group, HEIGHT)
        closing = True
    else:
        colour = turn[i] % P
        placement = action - config[SINGLE]
        for p in range(placements[placement, 3]):
            s = placements[placement, 4 + 2 * p]
            count = placements[placement, 5 + 2 * p]
            h = heights[i, s]
            if h > 0 and cells[i, s * HEIGHT + h - 1] == colour:
                groups[i, s] += count
            else:
                groups[i, s] = count
            for level in range(h, h + count):
                cells[i, s * HEIGHT + level] = colour
            heights[i, s] = h + count
            seen_keys[i, s] = -1
            changed |= 1 << s
            if h + count == HEIGHT:
                closing = True
        turn[i] += 1  # the placement ends the turn
        phase[i] = TRANSFER
        closed[i] = 0
    if not closing:
        return False, changed
    if phase[i] == PLACE:
        closed[i] = 1  # closed_this_turn (a placement's is reset by the end of its turn)
    if not rush:
        return _heist_winner(cells, heights, i, S) >= 0, ALL_STANDS
    for seat in range(P):  # eligible seats queue in seat order
        if (heights[i, 2 * seat + 1] == HEIGHT and heights[i, 2 * seat + 2] == HEIGHT
                and not _queued(queue, queue_len, i, seat)):
            queue[i, queue_len[i]] = seat
            queue_len[i] += 1
    for s in range(S):
        if heights[i, s] < HEIGHT:
            return False, ALL_STANDS
    return True, ALL_STANDS


# ------------------------------------------------------------------ masks
@_compiled
def _refresh_codes(i, changed, cells, heights, groups, queue, queue_len, keys, sources, targets, place_ids, codes,
                   config):
    """The key (``StackState._recode``, less the stand's own part: ``keys`` are per stand)
    and table codes (``tables``, within the stand's share) of the ``changed`` stands."""
    S, P, rush = config[STANDS], config[PLAYERS], config[RUSH]
    for s in range(S):
        if not (changed >> s) & 1:
            continue
        h = heights[i, s]
        if h == 0:
            top = -1
        elif h < HEIGHT:
            top = cells[i, s * HEIGHT + h - 1]
        elif rush and s == 0:
            top = queue[i, 0]  # the centre belongs to the head of the queue
        else:
            top = cells[i, s * HEIGHT + HEIGHT - 1]
        cb = 0  # RushState._capacity_bit; Highrise Heist's caps are global
        if rush:
            if s == 0:
                cb = 1 if queue_len[i] > 0 else 0
            elif s % 2 == 1 or heights[i, s - 1] == HEIGHT:
                cb = 1
        key = ((h * LEVELS + groups[i, s]) * (P + 1) + top + 1) * 2 + cb
        keys[i, s] = key
        sources[i, s] = codes[0, key]
        targets[i, s] = codes[1, key]
        place_ids[i, s] = codes[2, key]


@_inlined
def _settle(i, decided, changed, mask, cells, heights, groups, turn, phase, closed, queue, queue_len, keys, sources,
            targets, place_ids, transfer, transfer_of_mover, codes, singles, pairs, config):
    """``StackState._settle``: the end, the cut, or the next decision's mask in row ``i``
    of ``mask``, skipping placement phases without a legal placement. The codes
    of the ``changed`` stands are refreshed first (also when the game ended: the final
    observation reads them)."""
    S, P, rush = config[STANDS], config[PLAYERS], config[RUSH]
    _refresh_codes(i, changed, cells, heights, groups, queue, queue_len, keys, sources, targets, place_ids, codes,
                   config)
    if decided:
        return TERMINATED
    while True:
        if turn[i] >= config[MAX_TURNS]:
            return TRUNCATED
        row_mask = mask[i]
        row_mask[:] = False
        if phase[i] == TRANSFER:
            # rows of stands without a group to give (empty or closed) are all False, and
            # no group goes back onto its own stand
            table, columns = transfer[transfer_of_mover[turn[i] % P]], targets[i]
            for a in range(S):
                h = heights[i, a]
                if 0 < h < HEIGHT:
                    row = sources[i, a]
                    for b in range(S):
                        if b != a:
                            row_mask[_index(a * S + b)] = table[_index(row + columns[_index(b)])]
            row_mask[config[NO_TRANSFER]] = True
            if config[SWAP] >= 0 and turn[i] == 1:  # HeistState._swap_legal
                row_mask[config[SWAP]] = True
            return CONTINUES
        if rush:
            context = 0
        else:  # heist_tables: (most == 3) * 2 + (cap == 11)
            context = (turn[i] != 0) * 2 + (_heist_cap(heights, closed, i, S) == HEIGHT)
        single, pair = singles[context], pairs[context]
        width = config[PLACE_ROW]  # the pair table's [first id, second id, entry] flattened
        found = False
        ids = place_ids[i]
        action = config[SINGLE]  # the layout's order: singles by stand, then pairs s < t
        for s in range(S):
            base = ids[_index(s)] * 4
            for k in range(3):
                legal = single[_index(base + k)]
                row_mask[_index(action + k)] = legal
                found |= legal
            action += 3
        for s in range(S):
            row = ids[_index(s)] * width
            for t in range(s + 1, S):
                base = row + ids[_index(t)] * 4
                for k in range(3):
                    legal = pair[_index(base + k)]
                    row_mask[_index(action + k)] = legal
                    found |= legal
                action += 3
        if found:
            return CONTINUES
        turn[i] += 1  # no legal placement: the turn ends
        phase[i] = TRANSFER
        closed[i] = 0


# ------------------------------------------------------------------ results
@_compiled
def _rush_score(cells, heights, queue, queue_len, i, seat, config):
    """``RushState.scores()[seat]``: blocks, closed stands owned, the team bonus (teams)."""
    score = 0
    for s in range(config[STANDS]):
        h = heights[i, s]
        for level in range(h):
            if cells[i, s * HEIGHT + level] == seat:
                score += 1
        if h == HEIGHT:
            if s == 0:
                if queue[i, 0] == seat:
                    score += config[CENTRE_POINTS]
            elif cells[i, s * HEIGHT + HEIGHT - 1] == seat:
                score += config[NEAR_POINTS] if s % 2 == 1 else config[FAR_POINTS]
    if config[TEAMS] and _queued(queue, queue_len, i, seat) and _queued(queue, queue_len, i, (seat + 2) % 4):
        score += config[TEAM_BONUS]
    return score


@_compiled
def _rush_value(cells, heights, queue, queue_len, i, seat, config):
    """What decides for ``seat``: its score (ffa) or its team's total (teams)."""
    if config[TEAMS]:
        team = seat % 2
        return (_rush_score(cells, heights, queue, queue_len, i, team, config)
                + _rush_score(cells, heights, queue, queue_len, i, team + 2, config))
    return _rush_score(cells, heights, queue, queue_len, i, seat, config)


@_compiled
def _write_returns(rewards, i, cells, heights, queue, queue_len, config):
    """``returns()`` of a game decided by its rules into row ``i`` of ``rewards`` (zeros)."""
    if not config[RUSH]:
        winner = _heist_winner(cells, heights, i, config[STANDS])
        rewards[i, winner] = 1.0
        rewards[i, 1 - winner] = -1.0
        return
    v0 = _rush_value(cells, heights, queue, queue_len, i, 0, config)
    v1 = _rush_value(cells, heights, queue, queue_len, i, 1, config)
    v2 = _rush_value(cells, heights, queue, queue_len, i, 2, config)
    v3 = _rush_value(cells, heights, queue, queue_len, i, 3, config)
    if config[SCORE_REWARD]:
        mean = (v0 + v1 + v2 + v3) / 4
        scale = config[SCORE_SCALE]
        rewards[i, 0] = (v0 - mean) / scale
        rewards[i, 1] = (v1 - mean) / scale
        rewards[i, 2] = (v2 - mean) / scale
        rewards[i, 3] = (v3 - mean) / scale
        return
    # win_loss_returns(winners): the best value wins (teams: the members share their
    # team's total), all 0 when every seat has it (a team draw included)
    best = max(max(v0, v1), max(v2, v3))
    if v0 == best and v1 == best and v2 == best and v3 == best:
        return
    rewards[i, 0] = 1.0 if v0 == best else -1.0
    rewards[i, 1] = 1.0 if v1 == best else -1.0
    rewards[i, 2] = 1.0 if v2 == best else -1.0
    rewards[i, 3] = 1.0 if v3 == best else -1.0


# ------------------------------------------------------------------ observations
@_inlined
def _copy_words(out, target, rows, source, count):
    """``out[target:target + count] = rows[source:source + count]``; for the head lengths
    of both modes, loads before stores (so that they may go as vectors). Unsigned indices:
    no negative-index tests."""
    if count == HEIST_HEAD:
        a0, a1 = rows[_index(source)], rows[_index(source + 1)]
        a2, a3 = rows[_index(source + 2)], rows[_index(source + 3)]
        out[_index(target)], out[_index(target + 1)] = a0, a1
        out[_index(target + 2)], out[_index(target + 3)] = a2, a3
    elif count == RUSH_HEAD:
        a0, a1, a2 = rows[_index(source)], rows[_index(source + 1)], rows[_index(source + 2)]
        a3, a4, a5 = rows[_index(source + 3)], rows[_index(source + 4)], rows[_index(source + 5)]
        a6, a7, a8 = rows[_index(source + 6)], rows[_index(source + 7)], rows[_index(source + 8)]
        out[_index(target)], out[_index(target + 1)], out[_index(target + 2)] = a0, a1, a2
        out[_index(target + 3)], out[_index(target + 4)], out[_index(target + 5)] = a3, a4, a5
        out[_index(target + 6)], out[_index(target + 7)], out[_index(target + 8)] = a6, a7, a8
    else:
        for c in range(count):
            out[_index(target + c)] = rows[_index(source + c)]


@_compiled
def _queue_rank(queue, queue_len, queue_rank, i, seat, k):
    """Relative seat k's queue rank value (``observation._queue_ranks``), 0 if not queued."""
    for r in range(queue_len[i]):
        if (queue[i, r] - seat) % 4 == k:
            return queue_rank[r]
    return 0.0


@_inlined
def _write_observation(obs64, i, seat, to_move, track, cells, heights, turn, phase, closed, queue, queue_len, keys,
                       seen_seat, seen_keys, levels, row_offsets, heads, tails, queue_rank, tail32, tail64, config):
    """``seat``'s observation (``heist_observation`` / ``rush_observation``) into row ``i``
    of ``obs64`` (the observations as int64 pairs of channels, flat per slot); ``to_move``
    is -1 once the game is over. With ``track``, only what changed since the last write,
    and ``seen_seat`` / ``seen_keys`` are kept (see the module docstring)."""
    S, P, rush = config[STANDS], config[PLAYERS], config[RUSH]
    t = turn[i]
    place = 1 if phase[i] == PLACE else 0
    mine = 1 if to_move == seat else 0
    if rush:
        context = mine << 1 | place
        cb = 0
    else:
        swap_open = 1 if (t == 1 and place == 0) else 0
        context = mine << 4 | place << 3 | (1 if t == 0 else 0) << 2 | swap_open << 1 | closed[i]
        cb = 1 if _heist_cap(heights, closed, i, S) == HEIGHT else 0  # the global cap's bit
    # the tail: the context's planes, then the turn fraction and queue ranks over them
    tail_start, tail_length = config[TAIL_START], tail32.shape[0]
    first = (seat * (tails.shape[0] // (P * tail_length)) + context) * tail_length
    for c in range(tail_length):
        tail32[c] = tails[first + c]
    fraction = t / config[MAX_TURNS]
    tail32[config[FRACTION_CHANNEL] - tail_start] = fraction if fraction < 1.0 else 1.0
    if config[QUEUE_CHANNEL] >= 0:
        for k in range(4):
            tail32[config[QUEUE_CHANNEL] - tail_start + k] = _queue_rank(queue, queue_len, queue_rank, i, seat, k)
    head, words = tail_start // 2, obs64.shape[1] // (S * HEIGHT)  # int64 words: the head's, a cell's
    out = obs64[i]
    full = not track or seen_seat[i] != seat
    tail = words - head  # 1 to MAX_TAIL words
    changed = 0  # bit w: tail word w differs from the one every cell holds (compared in the first)
    for w in range(tail):
        if full or out[head + w] != tail64[w]:
            changed |= 1 << w
    t0 = tail64[0]
    t1 = tail64[1] if tail > 1 else 0
    t2 = tail64[2] if tail > 2 else 0
    t3 = tail64[3] if tail > 3 else 0
    rows = seat * (heads.shape[0] // (head * P))  # the observer's first feature row
    blocks = cells[i]
    for s in range(S):
        key = keys[i, s] + cb
        rewritten = full or key != seen_keys[i, s]
        written = (1 << tail) - 1 if rewritten else changed
        if written == 0:
            continue
        base = rows + row_offsets[s]
        for level in range(HEIGHT):
            cell = s * HEIGHT + level
            target = cell * words
            if rewritten:
                # the level table counts colour + 1 in: an empty cell (-1) reads the base row
                row = base + levels[_index(key * HEIGHT + level)] + blocks[_index(cell)]
                _copy_words(out, target, heads, row * head, head)
            target += head
            if written & 1:
                out[_index(target)] = t0
            if written & 2:
                out[_index(target + 1)] = t1
            if written & 4:
                out[_index(target + 2)] = t2
            if written & 8:
                out[_index(target + 3)] = t3
        if track:
            seen_keys[i, s] = key
    if track:
        seen_seat[i] = seat


# ------------------------------------------------------------------ the entry point


@_compiled
def advance(mode, first, last, actions, seeds, active, *arrays):
    """Slots ``first`` to ``last - 1``: with ``STEP``, play ``actions`` where ``active`` and
    start the game of ``seeds`` where that ended one (``BatchedGames.step``); with
    ``RESTART``, a new game where ``active`` (``reset``); with ``REFRESH``, the mask, seat
    to move and observation of the positions put there (``set_state``: in play, settled).

    ``arrays``: the 8 outputs of ``BatchedGames`` (the observations as int64 pairs of
    channels, flat per slot), the 9 state arrays, the 4 code arrays, the 2 seen arrays,
    the 11 tables (``batched_tables``), a scratch array (float32 and int64 views), the
    configuration and ``final_observer`` (``BatchedGames``'), as ``batched.py`` lists them:
    separate arguments, since tuples of arrays cost milliseconds to dispatch."""
    observation64, action_mask, current_player, rewards, terminated, truncated, final64, final_player = arrays[0:8]
    cells, heights, groups, turn, phase, closed, queue, queue_len, slot_seeds = arrays[8:17]
    keys, sources, targets, place_ids = arrays[17:21]
    seen_seat, seen_keys = arrays[21:23]
    transfer, transfer_of_mover, codes, singles, pairs, placements = arrays[23:29]
    levels, row_offsets, heads, tails, queue_rank = arrays[29:34]
    tail32, tail64 = arrays[34:36]
    config = arrays[36]
    final_observer = arrays[37]
    for i in range(first, last):
        if mode != REFRESH:
            forget_last_end(i, rewards, terminated, truncated, final_player)
            if not active[i]:
                continue
        new_game = mode == RESTART
        if mode == STEP:
            mover = current_player[i]
            decided, changed = _apply(actions[i], i, cells, heights, groups, turn, phase, closed, queue, queue_len,
                                      seen_keys, placements, config)
            status = _settle(i, decided, changed, action_mask, cells, heights, groups, turn, phase, closed, queue,
                             queue_len, keys, sources, targets, place_ids, transfer, transfer_of_mover, codes, singles,
                             pairs, config)
            if status != CONTINUES:
                if status == TERMINATED:
                    terminated[i] = True
                    _write_returns(rewards, i, cells, heights, queue, queue_len, config)
                else:
                    truncated[i] = True
                final_player[i] = mover
                if config[KEEP_FINAL]:
                    seen_by = mover if final_observer[i] < 0 else final_observer[i]
                    _write_observation(final64, i, seen_by, -1, False, cells, heights, turn, phase, closed, queue,
                                       queue_len, keys, seen_seat, seen_keys, levels, row_offsets, heads, tails,
                                       queue_rank, tail32, tail64, config)
                new_game = True
        if new_game:  # empty stands, turn 0 (no chance in either mode): Highrise Heist opens
            cells[i] = -1  # with the placement of one block, Golden Rush with a transfer phase
            heights[i] = 0
            groups[i] = 0
            turn[i] = 0
            phase[i] = TRANSFER if config[RUSH] else PLACE
            closed[i] = 0
            queue[i] = -1
            queue_len[i] = 0
            slot_seeds[i] = seeds[i]
        if new_game or mode == REFRESH:
            seen_seat[i] = -1  # a new position: its observation is written whole
            _settle(i, False, ALL_STANDS, action_mask, cells, heights, groups, turn, phase, closed, queue, queue_len,
                    keys, sources, targets, place_ids, transfer, transfer_of_mover, codes, singles, pairs, config)
        seat = turn[i] % config[PLAYERS]
        current_player[i] = seat
        _write_observation(observation64, i, seat, seat, True, cells, heights, turn, phase, closed, queue, queue_len,
                           keys, seen_seat, seen_keys, levels, row_offsets, heads, tails, queue_rank, tail32, tail64,
                           config)


@_compiled
def play_out(mt, max_plies, returns, actions, seeds, active, *arrays):
    """A random playout of the game in slot 0 (``KernelBatchedGames.play_out``): moves
    picked by :func:`~sky_envs.core.batched_kernel.random_legal_action` with Python's
    generator ``mt``, until the game ends or ``max_plies`` moves (-1: no cap); ``returns``
    gets every seat's return, zeros for a ``max_turns`` cut or a capped playout. ``arrays``
    are :func:`advance`'s; the slot then holds a new game."""
    action_mask, rewards, terminated, truncated = arrays[1], arrays[3], arrays[4], arrays[5]
    plies = 0
    returns[:] = 0.0
    while max_plies < 0 or plies < max_plies:
        actions[0] = random_legal_action(action_mask[0], mt)
        advance(STEP, 0, 1, actions, seeds, active, *arrays)
        plies += 1
        if playout_ended(returns, rewards, terminated, truncated):
            return
