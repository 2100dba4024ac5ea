"""``vector.make`` and :class:`VectorEnv`: the public face of the batched engines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sky_envs.core.batched import BatchedGames, PythonBatchedGames
from sky_envs.core.batched_kernel import slot_runs, step_slot_runs
from sky_envs.core.options import integer_option
from sky_envs.core.registry import canonical_id, make_game
from sky_envs.core.state import Game, GameState, IllegalActionError

#: the most games one VectorEnv holds (memory grows with it: see the vector guide)
MAX_NUM_ENVS = 1 << 24
ENGINES = ("auto", "python")
#: rows of a mask :func:`random_actions` draws for at once (bounds the memory of the legal index)
RANDOM_ACTION_CHUNK = 1 << 16
#: masks at least this wide, in batches of at least ``WIDE_BATCH`` entries, are drawn from
#: their bits packed 64 to a word (:func:`_wide_random_actions`); narrower ones (denser) and
#: smaller batches (where the extra numpy calls cost more than they save) through ``np.flatnonzero``
WIDE_MASK = 1024
WIDE_BATCH = 1 << 16
#: bytes of a wide mask packed in one block (bounds the packed copy: an eighth of it)
WIDE_BLOCK_BYTES = 1 << 24
#: the smallest batch of wide rows split between threads
WIDE_THREADS_FROM = 1024
#: ``_NTH_SET_BIT[byte, k]``: the place (0-7, from the low bit) of the ``k``-th set bit of ``byte``
_NTH_SET_BIT = np.array([[place for place in range(8) if byte >> place & 1] + [8] * (8 - byte.bit_count())
                         for byte in range(256)], dtype=np.int64)


@dataclass(frozen=True)
class Batch:
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return: read-only views of
    the engine's arrays, leading dimension ``num_envs`` (N), overwritten by the next call
    (copy what you keep).

    * ``observation`` ``(N, *observation_shape)`` float32: the position seen by the seat to move
    * ``action_mask`` ``(N, num_actions)`` bool: that seat's legal actions
    * ``current_player`` ``(N,)`` int32: the seat to move
    * ``rewards`` ``(N, num_players)`` float32: each seat's return where this step ended the
      game (zeros on a ``max_turns`` cut), else zeros
    * ``terminated`` / ``truncated`` ``(N,)`` bool: this step ended the game in that slot by
      its rules / at ``max_turns``; the slot already holds the next game
    * ``final_observation`` ``(N, *observation_shape)`` float32 or None: where a game ended,
      its last position seen by ``final_player``, or by the seat :meth:`VectorEnv.step`'s
      ``final_observer`` names (None when the env keeps none)
    * ``final_player`` ``(N,)`` int32: where a game ended, the seat whose action ended it, else -1
    """

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_observation: np.ndarray | None
    final_player: np.ndarray


def _read_only(array: np.ndarray | None) -> np.ndarray | None:
    if array is None:
        return None
    view = array.view()
    view.flags.writeable = False
    return view


class VectorEnv:
    """``num_envs`` games of one configuration, stepped together (see :func:`make`).

    Slot ``i``'s ``k``-th game (``k = 0, 1, ...``) is the game ``env.reset(seed=seed + i +
    k * num_envs)`` of the AEC env plays, or, for a slot started from a position text, the
    game ``env.reset(seed=..., options={"position": text})`` plays: a slot restarts from its
    position each time its game ends. Fed the same actions, the VectorEnv and ``num_envs``
    AEC envs give the same observations, masks, seats to move, rewards and ends, bit for bit.
    """

    def __init__(self, game: Game, num_envs: int, seed: int | None = None,
                 positions: Sequence[str] | None = None, keep_final_observation: bool = True,
                 engine: str = "auto"):
        self.game = game
        self.num_envs = integer_option("num_envs", num_envs, 1, MAX_NUM_ENVS)
        if engine not in ENGINES:
            raise ValueError(f"engine={engine!r} is not valid: expected one of {list(ENGINES)}")
        compiled = game.batched_games(self.num_envs, keep_final_observation) if engine == "auto" else None
        self.engine: BatchedGames = compiled or PythonBatchedGames(game, self.num_envs, keep_final_observation)
        self._positions = self._read_positions(positions)
        self._slots = np.arange(self.num_envs, dtype=np.int64)
        self._all_slots = np.ones(self.num_envs, dtype=bool)
        self._games_started = np.zeros(self.num_envs, dtype=np.int64)   # k of each slot's current game
        self._seed = self._check_seed(seed)
        self._batch = Batch(*(_read_only(getattr(self.engine, name)) for name in (
            "observation", "action_mask", "current_player", "rewards", "terminated", "truncated",
            "final_observation", "final_player")))
        self._ready = False

    # ------------------------------------------------------------------ facts
    @property
    def env_id(self) -> str:
        return self.game.env_id

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return tuple(self.game.observation_shape)

    @property
    def compiled(self) -> bool:
        """Whether a compiled engine steps the games (else the reference engine over states)."""
        return not isinstance(self.engine, PythonBatchedGames)

    # ------------------------------------------------------------------ play
    def reset(self, seed: int | None = None) -> Batch:
        """Start a new game in every slot (slot ``i``: seed ``seed + i``); with ``seed`` None
        the seed given to :func:`make` (or, if none was, a random one)."""
        if seed is not None:
            self._seed = self._check_seed(seed)
        self._games_started[:] = 0
        self.engine.reset(self._seeds(self._games_started))
        if self._positions is not None:
            for slot in range(self.num_envs):
                self._start_position(slot, self._seed + slot)
        self._ready = True
        return self._batch

    def step(self, actions: Any, where: Any = None, final_observer: Any = None) -> Batch:
        """Play one action per slot: ``actions`` an ``(N,)`` integer array of legal actions.

        ``where`` (``(N,)`` bool, default all): only those slots move; the others keep their
        position, their actions are not read, and their rewards and ends read zero and
        False (turn-based self-play moves the slots that wait on one player at a time).

        ``final_observer`` (``(N,)`` integers, default all -1): where this step ends the game
        in a slot, the seat whose view ``final_observation`` is, -1 for the mover's (a
        learner playing one seat needs its own view of a game an opponent ended).

        ``IllegalActionError`` (a ``ValueError``) names the first slot whose action is out of
        range or illegal, and why; a wrong shape or dtype is a ``ValueError``. Either way no
        game has moved."""
        if not self._ready:
            raise RuntimeError("reset() needs to be called before step()")
        active = self._all_slots if where is None else self._check_where(where)
        actions = self._check_actions(actions, active)
        self.engine.final_observer[:] = -1 if final_observer is None else self._check_final_observer(final_observer)
        next_seeds = self._seeds(self._games_started + 1)
        self.engine.step(actions, next_seeds, active)
        ended = self.engine.terminated | self.engine.truncated
        if ended.any():
            self._games_started += ended
            if self._positions is not None:
                for slot in np.flatnonzero(ended):
                    self._start_position(int(slot), int(next_seeds[slot]))
        return self._batch

    def game_state(self, slot: int) -> GameState:
        """A copy of the position in ``slot`` as an ordinary ``GameState`` (for search,
        position texts, pictures)."""
        slot = integer_option("slot", slot, 0, self.num_envs - 1)
        if not self._ready:
            raise RuntimeError("reset() needs to be called before game_state()")
        return self.engine.get_state(slot)

    # --------------------------------------------------------------- helpers
    def _seeds(self, games: np.ndarray) -> np.ndarray:
        return (self._seed + self._slots + games * self.num_envs) & ((1 << 63) - 1)   # wraps like the AEC env's int64 seeds

    def _check_seed(self, seed: int | None) -> int:
        if seed is None:
            return int(np.random.default_rng().integers(1 << 62))
        return integer_option("seed", seed, 0, (1 << 63) - 1)

    def _read_positions(self, positions: Sequence[str] | None) -> list[str] | None:
        if positions is None:
            return None
        if isinstance(positions, str) or len(positions) != self.num_envs:
            raise ValueError(f"positions must be a list of {self.num_envs} position texts (one per slot), "
                             f"got {type(positions).__name__}" + ("" if isinstance(positions, str) else f" of {len(positions)}"))
        for slot, text in enumerate(positions):
            if not isinstance(text, str):
                raise ValueError(f"positions[{slot}] must be a position text (str), got {type(text).__name__}")
            try:
                state = self.game.state_from_text(text, rng=np.random.default_rng(0))
            except ValueError as error:
                raise ValueError(f"positions[{slot}] is not a {self.env_id} position: {error}") from None
            if state.current_player < 0:
                raise ValueError(f"positions[{slot}] is a finished game: a slot needs a game in play")
        return list(positions)

    def _start_position(self, slot: int, seed: int) -> None:
        state = self.game.state_from_text(self._positions[slot], rng=np.random.default_rng(seed))
        self.engine.set_state(slot, state)

    def _check_where(self, where: Any) -> np.ndarray:
        array = np.asarray(where)
        if array.shape != (self.num_envs,) or array.dtype != bool:
            raise ValueError(f"where must be a bool array of shape ({self.num_envs},), got dtype {array.dtype} "
                             f"and shape {array.shape}")
        return array

    def _check_final_observer(self, final_observer: Any) -> np.ndarray:
        array = np.asarray(final_observer)
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise ValueError(f"final_observer must be an integer array of shape ({self.num_envs},), got dtype "
                             f"{array.dtype} and shape {array.shape}")
        if self.num_envs and (array.min() < -1 or array.max() >= self.num_players):
            raise ValueError(f"final_observer must hold seats 0..{self.num_players - 1} or -1 (the mover)")
        return array

    def _check_actions(self, actions: Any, active: np.ndarray) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must be an array of shape ({self.num_envs},), one per slot, got shape {array.shape}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {array.dtype}")
        array = array.astype(np.int64, copy=False)
        if active is not self._all_slots:   # slots that do not move may hold anything
            array = np.where(active, array, np.argmax(self.engine.action_mask, axis=1))
        outside = (array < 0) | (array >= self.num_actions)
        if outside.any():
            slot = int(np.argmax(outside))
            raise IllegalActionError(f"slot {slot}: action {int(array[slot])} is out of range: expected "
                                     f"0 <= action < {self.num_actions}; no game has moved")
        legal = self.engine.action_mask[self._slots, array]
        if not legal.all():
            slot = int(np.argmin(legal))
            action = int(array[slot])
            state = self.engine.get_state(slot)
            raise IllegalActionError(
                f"slot {slot}: action {action} ({state.describe_action(action)}) is illegal for "
                f"player_{state.current_player}: {state.illegal_reason(action)}; no game has moved")
        return array

    def __repr__(self) -> str:
        kind = "compiled" if self.compiled else "python"
        return f"<VectorEnv {self.env_id} num_envs={self.num_envs} engine={kind}>"


def make(env_id: str, num_envs: int, seed: int | None = None, positions: Sequence[str] | None = None,
         keep_final_observation: bool = True, engine: str = "auto", **options: Any) -> VectorEnv:
    """``num_envs`` games of ``env_id`` configured by ``options`` (the env's options).

    ``seed``: slot ``i``'s ``k``-th game is seeded ``seed + i + k * num_envs`` (random if
    None). ``positions``: one position text per slot to start (and restart) from.
    ``keep_final_observation=False`` saves ``(N, *observation_shape)`` floats where no
    learner needs the last position of ended games. ``engine``: ``"auto"`` (the game's
    compiled engine where it has one) or ``"python"`` (the reference engine over states).
    """
    game = make_game(canonical_id(env_id), **options)
    return VectorEnv(game, num_envs, seed=seed, positions=positions,
                     keep_final_observation=keep_final_observation, engine=engine)


def random_actions(action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a bool ``(N, A)`` mask, in numpy: one
    uniform draw per row (``rng.random(N)``), then, for all rows together, the legal actions
    of the rows and each row's pick among them.

    Wide masks (Scala's 7,744 entries) are packed into bits first (:func:`_wide_random_actions`),
    in blocks of rows of at most ``WIDE_BLOCK_BYTES``, and from ``WIDE_THREADS_FROM`` rows
    that one pass over the whole mask is split between the cores' threads
    (``core.batched_kernel.step_slot_runs``; numpy releases the GIL over large arrays). The
    picks are the same whichever way the rows are split."""
    mask = np.asarray(action_mask)
    if mask.dtype != bool or mask.ndim != 2:
        raise ValueError(f"action_mask must be a 2-d bool array, got dtype {mask.dtype} and {mask.ndim} dimensions")
    rows, width = mask.shape
    draws = rng.random(rows)
    if width >= WIDE_MASK and mask.size >= WIDE_BATCH:
        return _wide_random_actions(mask, draws)
    # bounded memory: the legal index holds 8 bytes a legal action
    parts = [_random_actions(mask[start:start + RANDOM_ACTION_CHUNK], draws[start:start + RANDOM_ACTION_CHUNK], start)
             for start in range(0, rows, RANDOM_ACTION_CHUNK)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _random_actions(mask: np.ndarray, draws: np.ndarray, first_row: int) -> np.ndarray:
    """The pick of each row of ``mask`` (rows ``first_row...`` of the whole mask), row ``r``
    taking the ``floor(draws[r] * count)``-th of its legal actions."""
    rows, width = mask.shape
    legal = np.flatnonzero(mask)                        # ascending
    row_starts = np.arange(rows + 1, dtype=np.int64) * width
    bounds = np.searchsorted(legal, row_starts)        # where each row's legal actions begin in legal
    counts = np.diff(bounds)
    _check_counts(counts, first_row)
    picks = legal[bounds[:-1] + (draws * counts).astype(np.int64)]
    return picks - row_starts[:-1]


def _wide_random_actions(mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """:func:`_random_actions` for wide, sparse masks (Scala's 7,744-entry rows hold about 60
    legal actions), the same draws. The one pass over the mask (:func:`_held_words`, on the
    threads) packs each row's entries into 64-bit words and keeps the words holding a legal
    action; then, over those few words of all rows at once, their bits are counted, and only
    the word of each row's draw is searched, byte by byte, then in its byte through
    ``_NTH_SET_BIT``. About half of ``flatnonzero``'s time on Scala's masks."""
    rows, width = mask.shape
    words_per_row = -(-width // 64)
    block = max(1, WIDE_BLOCK_BYTES // width)

    def held_words(first: int, stop: int) -> list[tuple[np.ndarray, np.ndarray]]:
        return [_held_words(mask[start:min(start + block, stop)], start * words_per_row)
                for start in range(first, stop, block)]

    parts = [part for run in step_slot_runs(held_words, rows, slot_runs(rows, WIDE_THREADS_FROM)) for part in run]
    hits = np.concatenate([part[0] for part in parts])      # the words holding a legal action, ascending
    held = np.concatenate([part[1] for part in parts])
    per_word = np.bitwise_count(held).astype(np.int64)
    through = np.cumsum(per_word)                      # legal actions up to and with each held word
    bounds = np.searchsorted(hits, np.arange(rows + 1, dtype=np.int64) * words_per_row)
    before = np.concatenate((np.zeros(1, np.int64), through))[bounds]    # legal actions before each row
    counts = np.diff(before)
    _check_counts(counts, 0)
    pick = before[:-1] + (draws * counts).astype(np.int64)    # the draw's rank among all legal
    word = np.searchsorted(through, pick, side="right")                  # the held word holding it
    rank_in_word = pick - (through[word] - per_word[word])
    word_bytes = held[word].view(np.uint8).reshape(rows, 8)   # little-endian: byte b holds entries 8b..8b+7
    per_byte = np.bitwise_count(word_bytes)
    seen = np.cumsum(per_byte, axis=1, dtype=np.int64)        # legal entries up to and with each byte
    byte = np.argmax(seen > rank_in_word[:, None], axis=1)
    row = np.arange(rows)
    rank_in_byte = rank_in_word - seen[row, byte] + per_byte[row, byte]
    return (hits[word] % words_per_row) * 64 + byte * 8 + _NTH_SET_BIT[word_bytes[row, byte], rank_in_byte]


def _held_words(mask: np.ndarray, first_word: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``mask`` packed into bits (``np.packbits``: entry ``e`` of a row is bit
    ``e % 8`` of its byte ``e // 8``), each row padded to whole 64-bit words: the numbers
    (counted from ``first_word``) of the words holding a legal action, ascending, and those words."""
    rows = mask.shape[0]
    packed = np.packbits(mask, axis=1, bitorder="little")
    if packed.shape[1] % 8:
        packed = np.concatenate((packed, np.zeros((rows, -packed.shape[1] % 8), np.uint8)), axis=1)
    words = packed.reshape(-1).view("<u8")            # little-endian words on any machine
    hits = np.flatnonzero(words != 0)
    return hits + first_word, words[hits]


def _check_counts(counts: np.ndarray, first_row: int) -> None:
    if not counts.all():
        raise ValueError(f"row {first_row + int(np.argmin(counts))} of action_mask has no legal action")
