"""The State protocol: what every rules engine implements, and nothing about RL libraries.

A game is split in two, as in OpenSpiel:

* a :class:`Game` holds the validated options of one configuration (board, seats, variant)
  and the facts that never change during play: seat count, action count, observation shape,
  ``max_turns``. It creates states: :meth:`Game.new_initial_state` (seeded setup) and
  :meth:`Game.state_from_text` (a position written in the game's notation).
* a :class:`GameState` is one position. It knows whose decision is next, which actions are
  legal, how to apply one, what each seat may observe, and how to write itself as text.

Invariants every state keeps (the generic env, the agents and the tests rely on them):

* ``current_player`` is the seat that must decide next and always has at least one legal
  action; seats without a legal decision are skipped by the state itself. It is ``-1``
  once the game is over (terminal or truncated).
* ``apply`` raises :class:`IllegalActionError` (a ``ValueError``) for an illegal action and
  leaves the state unchanged; ``apply_unchecked`` is the same move for callers that took
  the action from ``legal_actions()`` and skips the checks.
* all randomness during play comes from ``self.rng``, the generator given at creation.
"""

from __future__ import annotations

import copy
import random
import reprlib
import weakref
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from sky_envs.core.symmetry import BoardSymmetries

#: per game object, the engine of its compiled playouts or None (:meth:`Game.playout_engine`)
_PLAYOUT_ENGINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: per game object, the engine of its compiled greedy moves or None (:meth:`Game.greedy_engine`)
_GREEDY_ENGINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class IllegalActionError(ValueError):
    """An action that is out of range or not legal in the current position."""


def action_index(action: Any) -> int:
    """The integer ``action`` stands for: an ``int``, a numpy integer, or a 0-d integer array
    (what SB3's ``predict`` returns for one observation).

    Anything else (``None``, a bool, a float such as ``2.0`` or ``2.7``, a string, an array
    of another shape or dtype) raises :class:`IllegalActionError`: nothing is truncated.
    """
    if isinstance(action, np.ndarray):
        scalar = action[()] if action.shape == () and action.dtype.kind in "iu" else None
    else:
        scalar = action
    if isinstance(scalar, (int, np.integer)) and not isinstance(scalar, bool):
        return int(scalar)
    raise IllegalActionError(
        f"action {reprlib.repr(action)} is not an integer action index: expected an int, a numpy "
        "integer or a 0-d integer array"
    )


def win_loss_returns(winners, num_players: int) -> np.ndarray:
    """The shared reward convention: +1 for each winner, -1 for every other seat, and 0
    for all when every seat (or no seat) is a winner."""
    out = np.zeros(num_players)
    if 0 < len(winners) < num_players:
        out[:] = -1.0
        out[list(winners)] = 1.0
    return out


class LazilyCopiedRng:
    """A state's ``rng`` that a clone copies lazily: the generator's state is read at clone
    time (cheap), the clone's own generator is built on first use (building one costs more
    than a whole move, and most clones never draw). Subclasses set ``self.rng`` in
    ``__init__`` and call ``self._copy_rng_to(twin)`` in ``clone``."""

    # _rng_copy: (bit generator class, its state) until first use
    __slots__ = ("_rng", "_rng_copy")

    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            kind, snapshot = self._rng_copy
            bit_generator = kind(0)
            bit_generator.state = snapshot
            self._rng = np.random.Generator(bit_generator)
            self._rng_copy = None
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value
        self._rng_copy = None

    def _copy_rng_to(self, twin: LazilyCopiedRng) -> None:
        if self._rng is None:
            twin._rng, twin._rng_copy = None, self._rng_copy   # snapshots are never edited
        else:
            bit_generator = self._rng.bit_generator
            twin._rng, twin._rng_copy = None, (type(bit_generator), bit_generator.state)


def _slot_names(cls: type) -> tuple[str, ...]:
    """Every slot declared by ``cls`` and its bases, the bases' first."""
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        slots = vars(klass).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return tuple(names)


def _slot_copier(cls: type, names: tuple[str, ...]):
    """``copy(self)``: a new ``cls`` with every slot in ``names`` set to ``self``'s value.
    Generated code (as ``dataclasses`` does): one plain assignment per slot is several times
    faster than a loop over ``getattr``/``setattr``."""
    lines = [f"    twin.{name} = self.{name}" for name in names]
    source = "def copy(self):\n    twin = new(cls)\n" + "\n".join(lines) + "\n    return twin\n"
    namespace = {"new": object.__new__, "cls": cls}
    exec(source, namespace)
    copy_ = namespace["copy"]
    copy_.__qualname__ = f"{cls.__qualname__}._shallow_copy"
    return copy_


class StackMoves:
    """The move layout of a stacking game, for networks that read both ends of a move.

    Over the observation's ``rows x cols`` grid (B cells), action ``cell * directions + d``
    (``cell < B``) moves the stack on ``cell`` along direction ``d``; a stack's height is the
    sum of the observation planes ``height_planes`` at its cell, and ``targets[h][cell][d]``
    is where a stack of height ``h`` lands (``B`` when the line leaves the box; heights past
    the table's last row use that row). The ``cell_actions * B`` actions after the moves are
    one per cell and kind (``B * directions + k * B + cell``); any actions after those are
    not tied to a cell. Plain data (:meth:`as_dict`, :meth:`from_dict`): checkpoints record it.
    """

    __slots__ = ("directions", "height_planes", "cell_actions", "targets")

    def __init__(self, directions: int, height_planes: Sequence[int], cell_actions: int, targets):
        self.directions = int(directions)
        self.height_planes = tuple(int(plane) for plane in height_planes)
        self.cell_actions = int(cell_actions)
        self.targets = np.array(targets, dtype=np.int64)
        self.targets.flags.writeable = False

    def as_dict(self) -> dict:
        return {"directions": self.directions, "height_planes": list(self.height_planes),
                "cell_actions": self.cell_actions, "targets": self.targets.tolist()}

    @classmethod
    def from_dict(cls, data: Any) -> StackMoves:
        """``ValueError`` if ``data`` is not a mapping of the four fields :meth:`as_dict` writes."""
        fields = {"directions", "height_planes", "cell_actions", "targets"}
        if isinstance(data, StackMoves):
            return data
        if not isinstance(data, dict) or set(data) != fields:
            raise ValueError(f"stack_moves must be a mapping with keys {sorted(fields)}, got {reprlib.repr(data)}")
        try:
            return cls(**data)
        except (TypeError, ValueError, OverflowError) as error:
            raise ValueError(f"stack_moves holds values of the wrong kind: {error}") from None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, StackMoves) and self.as_dict() == other.as_dict())

    def __repr__(self) -> str:
        return (f"StackMoves(directions={self.directions}, height_planes={self.height_planes}, "
                f"cell_actions={self.cell_actions}, targets shape {self.targets.shape})")


#: the heuristic value of a finished game, times the seat's return: more than any position's
#: heuristic value, so a searcher takes a sure win and avoids a sure loss
WIN = 1000.0


def _lead(scores: Sequence[float], seat: int) -> float:
    """``seat``'s score minus the best other seat's."""
    return float(scores[seat] - max(s for i, s in enumerate(scores) if i != seat))


class Heuristic:
    """A game's cheap judgement of positions, the optional hooks of the baseline agents
    (greedy, alpha-beta, greedy playouts of PUCT search). A game offers its own by setting
    :attr:`Game.heuristic` to an instance of a subclass; every hook has a default, so a game
    that defines none is still played by every agent.

    * :meth:`value` (greedy, and the leaves of :meth:`search_value`'s default): higher is
      better for ``seat``. Default: the score lead by ``state.info()["scores"]`` (own score
      minus the best other seat's), 0 where the game reports no scores.
    * :meth:`search_value` (the leaves of alpha-beta): what a searcher judges a position by,
      where it differs from greedy's one-ply view. Default: :meth:`value`.
    * :meth:`move_values` (greedy and greedy playouts, perfect-information games only): the
      one-ply value of every legal action of many positions at once, without playing any
      (e.g. from arrays). They must be exactly what :meth:`played_value` gives each action
      (``tests/training/test_opponents.py`` checks this on random positions). Default: none
      (``None``), and the agents play each action on a clone.

    Hooks see a whole state and may read the game's own internals: a game's heuristic lives
    beside its rules (``sky_envs/games/<game>/heuristic.py``), and the agents only call it.
    """

    def value(self, state: GameState, seat: int) -> float:
        """The position's value for ``seat`` (unfinished positions; finished ones are judged
        by their returns, see :meth:`played_value`)."""
        scores = state.info().get("scores")
        return 0.0 if scores is None else _lead(scores, seat)

    def search_value(self, state: GameState, seat: int) -> float:
        """The position's value for ``seat`` at a search leaf; :meth:`value` unless overridden."""
        return self.value(state, seat)

    def move_values(self, states: Sequence[GameState]) -> list[np.ndarray | None] | None:
        """Per state, the value for its seat to move of each action of ``legal_actions()``
        (float64, in that order), or ``None`` for a state the game does not cover (another
        phase); ``None`` for the whole call where the game has no move values at all (the
        default), whatever ``states`` holds."""
        return None

    @property
    def has_move_values(self) -> bool:
        """Whether this heuristic overrides :meth:`move_values`."""
        return type(self).move_values is not Heuristic.move_values

    def played_value(self, world: GameState, seat: int, action: int) -> float:
        """The one-ply value of ``action`` (legal in ``world``): play it on a clone, then judge
        the result by :meth:`value`, a finished game by :data:`WIN` times ``seat``'s return."""
        child = world.clone()
        child.apply_unchecked(action)  # legal by construction: skip apply()'s checks
        return WIN * float(child.returns()[seat]) if child.is_terminal() else self.value(child, seat)


class Game(ABC):
    """One configuration of a game. Subclasses validate their options in ``__init__``.

    Class attributes subclasses set: ``name`` (``"sky_scrapers"``), ``version`` (0).
    Instance attributes subclasses set: ``num_players``, ``num_actions``,
    ``observation_shape``, ``max_turns``; optionally ``observation_low/high``: the bounds
    of every observation value, a number or an array of ``observation_shape``;
    ``action_cells`` where every action moves something from one board cell to another;
    ``stack_moves`` where actions move a stack as far as it is high (:class:`StackMoves`);
    ``symmetries`` where the board's reflections and rotations keep the rules;
    ``heuristic`` where the game judges positions better than by its score lead
    (:class:`Heuristic`: the optional hooks of the baseline agents).
    """

    name: str = "game"
    version: int = 0
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    observation_low: float | np.ndarray = 0.0
    observation_high: float | np.ndarray = 1.0
    max_turns: int
    #: For games whose actions are moves between n board cells, ``action = from * n + to``:
    #: each cell's flat index in the observation's (rows, cols) grid, so that a network can
    #: score a move from its two cells (``policy_head: pairs``). None elsewhere.
    action_cells: tuple[int, ...] | None = None
    #: For games whose actions move the stack on a cell along a line by as many cells as it
    #: is high (Sky Scrapers): where each move lands, so that a network can score a move from
    #: its two cells (``policy_head: moves``). None elsewhere.
    stack_moves: StackMoves | None = None
    #: For games whose observation is board planes only: the reflections and rotations of
    #: the board under which the rules are unchanged (:class:`BoardSymmetries`), which
    #: training may show its samples in. None elsewhere.
    symmetries: BoardSymmetries | None = None
    #: For wide action spaces most of which can never be legal: every action legal in some
    #: position (a sorted int64 array; Scala: the 2,420 moves a stone can make of its 7,744
    #: actions), so that a dense policy head keeps and trains only their rows. None elsewhere
    #: (any action may be legal).
    possible_actions: np.ndarray | None = None
    #: How the baseline agents judge this game's positions (:class:`Heuristic`); the default
    #: judges by the score lead and has no array move values.
    heuristic: Heuristic = Heuristic()
    #: the rules summary the play front ends show: this file beside the game's module
    rules_summary_file: str = "rules_summary.md"

    @property
    def teams(self) -> tuple[int, ...]:
        """Each seat's team: the seats of one team share every result (their ``returns`` are
        equal), so a search that values a position for one seat gives its teammates the same
        value and the other teams its opposite. By default every seat plays for itself."""
        return tuple(range(self.num_players))

    def batched_games(self, num_envs: int, keep_final_observation: bool = True):
        """A compiled engine of ``num_envs`` games of this configuration over arrays of games
        (a :class:`sky_envs.core.batched.BatchedGames`), or ``None`` (the default): then
        :mod:`sky_envs.vector` steps plain states with the reference engine
        (:class:`sky_envs.core.batched.PythonBatchedGames`). Games with a batched engine
        override this; the oracle tests hold it to the states bit for bit."""
        return None

    def playout_engine(self):
        """The compiled engine that plays this game's random playouts
        (:meth:`GameState.playout_returns`): one slot of :meth:`batched_games`, made at the
        first call and kept for this game object; ``None`` where the engine plays none (no
        compiled engine, or one whose kernel has no ``play_out``). Not for use from two
        threads at once: its one slot is overwritten by each playout."""
        if self not in _PLAYOUT_ENGINES:
            engine = self.batched_games(1, keep_final_observation=False)
            _PLAYOUT_ENGINES[self] = engine if getattr(engine, "plays_out", False) else None
        return _PLAYOUT_ENGINES[self]

    def greedy_engine(self):
        """The compiled engine that plays the greedy baseline's moves
        (:meth:`~sky_envs.core.batched.BatchedGames.greedy_actions`, for
        :class:`~sky_envs.agents.baselines.GreedyAgent`): one slot of :meth:`batched_games`,
        made at the first call and kept for this game object; ``None`` where the engine plays
        none. Not for use from two threads at once: its one slot is overwritten each move."""
        if self not in _GREEDY_ENGINES:
            _GREEDY_ENGINES[self] = self.batched_games(1, keep_final_observation=False)
        engine = _GREEDY_ENGINES[self]
        return engine if getattr(engine, "plays_greedy", False) else None   # asked each time: it reads the heuristic

    def exact_solver(self, max_nodes: int | None = None):
        """A compiled exact solver of this configuration's positions, or ``None`` (the
        default): then :class:`~sky_envs.agents.solver.MoveSolver` plays the moves on cloned
        states with the generic :class:`~sky_envs.agents.solver.Solver`. A compiled solver
        offers ``refusal(state)`` (why it cannot take a position, or ``None``) and
        ``solve_moves(state)``: every legal move's exact value for the seat to move
        (``{action: value}`` in ``legal_actions()`` order), or ``None`` when ``max_nodes``
        (each call's budget) ran out; and may offer ``solve_root(state)``: the position's
        exact value and the legal moves proven to keep it (``(value, [action, ...])``, or
        ``None``), which the search's exact endgame then asks instead, and
        ``remaining(state)``, an integer that the solver's work grows with (how far the position
        is from the end), from which ``MoveSolver`` learns which positions are beyond its budget."""
        return None

    def rules_summary(self) -> str:
        """The game's rules in short (markdown), read from :attr:`rules_summary_file` beside
        the module that defines the game's class; ``FileNotFoundError`` if it is missing."""
        import sys
        from pathlib import Path

        module = sys.modules[type(self).__module__]
        path = Path(module.__file__).parent / self.rules_summary_file
        if not path.is_file():
            raise FileNotFoundError(f"{self.env_id} has no rules summary: expected {str(path)!r} "
                                    f"({type(self).__name__}.rules_summary_file beside its module)")
        return path.read_text(encoding="utf-8")

    @abstractmethod
    def new_initial_state(self, rng: np.random.Generator) -> GameState:
        """The position at the start of a game; all set-up randomness comes from ``rng``."""

    @abstractmethod
    def state_from_text(self, text: str, rng: np.random.Generator | None = None) -> GameState:
        """Parse a position in the game's notation; ``ValueError`` naming the line if bad."""

    def options(self) -> dict[str, Any]:
        """The options this game was created with (for checkpoints and reports)."""
        return dict(getattr(self, "_options", {}))

    @property
    def env_id(self) -> str:
        return f"{self.name}_v{self.version}"

    # The global state (PettingZoo's ``state()``, for centralised critics): every seat's
    # observation, concatenated along the last axis, then one-hot planes of the seat to decide.
    @property
    def state_shape(self) -> tuple[int, ...]:
        """Shape of :meth:`GameState.global_observation`."""
        *cells, channels = self.observation_shape
        return (*cells, self.num_players * (channels + 1))

    def state_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` float32 arrays of ``state_shape``: the observation bounds for every
        seat's block, ``[0, 1]`` for the seat-to-decide planes."""
        shape = self.observation_shape
        to_move = shape[:-1] + (self.num_players,)
        low = np.broadcast_to(np.asarray(self.observation_low, dtype=np.float32), shape)
        high = np.broadcast_to(np.asarray(self.observation_high, dtype=np.float32), shape)
        seats = self.num_players
        return (np.concatenate([low] * seats + [np.zeros(to_move, np.float32)], axis=-1),
                np.concatenate([high] * seats + [np.ones(to_move, np.float32)], axis=-1))

    def render_rgb(self, state: GameState) -> np.ndarray:
        """An ``(H, W, 3)`` uint8 picture of ``state``. Games override this."""
        from sky_envs.core.render import text_image

        return text_image(state.render_text())


class GameState(ABC):
    """One position of a game. See the module docstring for the invariants.

    The rules engines declare every instance attribute in ``__slots__`` (every class of
    their MRO does, so instances have no ``__dict__``) and set all of them in ``__init__``.
    Such a class gets ``_shallow_copy()``, a copy of every slot generated for it, which
    their ``clone`` builds on. Why slots: search plays almost all of its moves on clones,
    and under CPython a state copied through its ``__dict__`` is slower to play on than one
    built by ``__init__`` (reading ``__dict__`` turns an instance's inline attribute values
    into a real dict, and attribute access leaves the interpreter's specialised fast path);
    a copy of the slots keeps clones as fast as fresh states. Games without slots keep
    working (``clone`` deep-copies them).
    """

    __slots__ = ()

    game: Game
    current_player: int
    rng: np.random.Generator

    #: every slot declared along the class's MRO, the bases' first
    _slot_names: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._slot_names = _slot_names(cls)
        # instances with a __dict__ hold more than the slots, and a subclass must not inherit
        # its parent's copier (which builds the parent's type): they get the default
        slotted = cls.__dictoffset__ == 0
        cls._shallow_copy = _slot_copier(cls, cls._slot_names) if slotted else GameState._shallow_copy

    def _shallow_copy(self) -> GameState:
        """A new instance sharing every attribute's value with this one (slotted classes)."""
        raise TypeError(f"{type(self).__name__} instances have a __dict__ (a class of its MRO declares no "
                        "__slots__): only a class whose attributes are all slots gets _shallow_copy")

    @property
    def num_players(self) -> int:
        return self.game.num_players

    # ------------------------------------------------------------------ rules
    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """Boolean vector of length ``game.num_actions``; all False once the game is over."""

    @abstractmethod
    def apply_unchecked(self, action: int) -> None:
        """Apply ``action``, a plain ``int`` the caller knows to be legal, and advance to the
        next decision (OpenSpiel's ``apply_action`` beside :meth:`apply`, its
        ``apply_action_with_legality_check``).

        The contract: ``action`` is an index where ``legal_mask()`` is true in this position;
        nothing is checked, so anything else leaves the state undefined. Search, playouts
        and self-play call it with actions taken from ``legal_actions()``, where the checks
        of :meth:`apply` would cost a mask scan per move; everything that takes an action
        from outside (a user, a network, a file) calls :meth:`apply`."""

    def apply(self, action: int) -> None:
        """Apply ``action`` for ``current_player``; ``IllegalActionError`` if it is not legal.

        ``action`` is anything :func:`action_index` accepts (an int, a numpy integer, a 0-d
        integer array)."""
        action = action_index(action)
        if self.current_player < 0:
            raise IllegalActionError(f"action {action}: the game is over, no action is legal")
        if not 0 <= action < self.game.num_actions:
            raise IllegalActionError(
                f"action {action} is out of range: expected 0 <= action < {self.game.num_actions}"
            )
        if not self.legal_mask()[action]:
            raise IllegalActionError(
                f"action {action} ({self.describe_action(action)}) is illegal for "
                f"player_{self.current_player}: {self.illegal_reason(action)}"
            )
        self.apply_unchecked(action)

    #: ``(mask, actions)`` of the last ``legal_actions`` call on a read-only mask
    _legal_cache: tuple[np.ndarray, np.ndarray] | None = None

    def legal_actions(self) -> np.ndarray:
        """The legal actions in ascending order: a read-only int64 array, the indices where
        ``legal_mask()`` is true. Consumers that only need the legal moves use this rather
        than scanning a large mask (Scala's has 7,744 entries).

        Cached while ``legal_mask()`` returns the same read-only array (games that cache
        their mask replace it when the position changes and never edit it); games may
        override with actions they produce alongside the mask.
        """
        mask = self.legal_mask()
        cached = self._legal_cache
        if cached is not None and cached[0] is mask:
            return cached[1]
        actions = mask.nonzero()[0]
        actions.flags.writeable = False
        if not mask.flags.writeable:
            self._legal_cache = (mask, actions)
        return actions

    def random_playout(self, rng: np.random.Generator, max_plies: int | None = None) -> np.ndarray:
        """Plays this state to the end with uniformly random legal actions (the state is
        changed): every seat's return, zeros for a draw, a truncated game or one cut at
        ``max_plies``. Search plays out positions with :meth:`playout_returns`, which gives the
        same result.

        One draw from ``rng`` seeds the playout; each ply then picks with Python's own
        generator, a tenth of the cost of a numpy draw, which is most of a short ply."""
        pick = random.Random(int(rng.integers(1 << 62))).random
        plies = 0
        while self.current_player >= 0:
            if max_plies is not None and plies >= max_plies:
                return np.zeros(self.num_players)
            legal = self._playout_actions()
            self.apply_unchecked(int(legal[int(pick() * len(legal))]))
            plies += 1
        return self.returns() if self.is_terminal() else np.zeros(self.num_players)

    def playout_returns(self, rng: np.random.Generator, max_plies: int | None = None,
                        consume: bool = False) -> np.ndarray:
        """What :meth:`random_playout` returns when it plays a copy of this state (the same
        draw from ``rng``, the same moves, the same result), this state left as it is: in the
        game's compiled engine where it has one that plays playouts
        (:meth:`Game.playout_engine`; several times faster on long games), else on a clone,
        or with ``consume`` (the caller has no further use for this state) on the state itself.
        The rollouts of MCTS and of PUCT's playout mixing."""
        engine = self.game.playout_engine() if self.current_player >= 0 else None
        if engine is None:
            return (self if consume else self.clone()).random_playout(rng, max_plies)
        return engine.play_out(self, int(rng.integers(1 << 62)), max_plies)

    def _playout_actions(self) -> Sequence[int]:
        """The legal actions in any fixed order, as cheaply as the game has them (a random
        playout asks at every ply); games with a cached list of their moves override this."""
        return self.legal_actions()

    def winning_actions(self) -> np.ndarray | None:
        """Legal actions that win the game at once for the seat to move (ascending int64),
        or ``None`` where the game has no cheap exact test.

        Every action returned wins; a game may leave out wins it cannot find cheaply (its
        override says which). Search uses it to see a win one move ahead without a network
        guess (:class:`sky_envs.agents.search.PUCTSearch`), and so, one level up, which
        moves allow the opponent one.
        """
        return None

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is illegal here; games override with rule-specific reasons."""
        return "it is not one of the legal actions in this position"

    def action_to_string(self, action: int) -> str:
        """``action`` in the game's compact move notation (what a player types);
        :meth:`string_to_action` reads it back. Games override this."""
        return f"action {action}"

    def describe_action(self, action: int) -> str:
        """``action`` in words, for logs and error messages; games with a terse notation
        override this."""
        return self.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """The action that ``text`` (the game's move notation) names, for the seat to move.

        ``ValueError`` naming the text and the expected form when it is not a move in the
        notation; :class:`IllegalActionError` with the reason when it is a well-formed move
        that is not legal here. This default matches ``text`` against the notation of every
        action; games override it with a parser."""
        if not isinstance(text, str):
            raise ValueError(f"move {text!r} is not text: expected a move in {self.game.env_id}'s notation")
        wanted = " ".join(text.split()).lower()
        for action in range(self.game.num_actions):
            if self.action_to_string(action).lower() == wanted:
                return self.check_legal(action, text)
        examples = ", ".join(self.action_to_string(int(a)) for a in self.legal_actions()[:3])
        raise ValueError(f"{text!r} is not a move in {self.game.env_id}'s notation: legal moves here look like {examples}")

    def check_legal(self, action: int, text: str | None = None) -> int:
        """``action`` if it is legal for the seat to move, else :class:`IllegalActionError`
        saying why (``text``: how the player wrote it)."""
        if self.current_player < 0:
            raise IllegalActionError(f"{text or action}: the game is over, no move is legal")
        if not 0 <= action < self.game.num_actions:
            raise IllegalActionError(f"action {action} is out of range: expected 0 <= action < {self.game.num_actions}")
        if not self.legal_mask()[action]:
            raise IllegalActionError(f"{text or self.action_to_string(action)} is illegal for "
                                     f"player_{self.current_player}: {self.illegal_reason(action)}")
        return action

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game has ended by its rules (not by ``max_turns``)."""

    def is_truncated(self) -> bool:
        """True once ``game.max_turns`` cut the game short (a draw)."""
        return False

    def is_over(self) -> bool:
        return self.is_terminal() or self.is_truncated()

    @abstractmethod
    def returns(self) -> np.ndarray:
        """Final reward per seat (float64, length ``num_players``); zeros until the end."""

    def info(self) -> dict[str, Any]:
        """Human-readable details of the position (scores, colours, at the end ``winners``:
        a list of seats); the env's ``infos`` hold fixed-shape numbers instead."""
        return {}

    def winners(self) -> list[int]:
        """The winning seats once the game has ended by its rules (``infos["winners"]``):
        by default those with a positive return; games override with their own rule."""
        return np.flatnonzero(self.returns() > 0).tolist()

    def score_vector(self) -> list[float]:
        """Each seat's score by the game's own count (``infos["scores"]``); games override."""
        return [0.0] * self.game.num_players

    def phase_index(self) -> int:
        """The kind of decision pending as a small int (``infos["phase"]``, documented per env);
        0 in games with one kind of decision."""
        return 0

    # ------------------------------------------------------------ observation
    @abstractmethod
    def observation(self, seat: int) -> np.ndarray:
        """float32 tensor of ``game.observation_shape`` from ``seat``'s point of view."""

    def global_observation(self) -> np.ndarray:
        """float32 tensor of ``game.state_shape``: the whole position, seen by no seat in
        particular. Block k of the last axis is ``observation(k)`` (so it holds everything any
        seat knows: in hidden-information games every hand), then ``num_players`` planes, plane
        k all ones when seat k decides (all zeros once the game is over)."""
        seats = self.game.num_players
        blocks = [self.observation(seat) for seat in range(seats)]
        to_move = np.zeros(blocks[0].shape[:-1] + (seats,), dtype=np.float32)
        if self.current_player >= 0:
            to_move[..., self.current_player] = 1.0
        blocks.append(to_move)
        return np.concatenate(blocks, axis=-1)

    # ------------------------------------------------------------ text, copies
    @abstractmethod
    def to_text(self) -> str:
        """The position in the game's notation; ``game.state_from_text`` reads it back."""

    def render_text(self) -> str:
        return self.to_text()

    def transposition_key(self) -> Any:
        """A hashable key of everything that decides this position's future: two states with
        equal keys have the same legal moves and the same results whatever is played (a
        counter that truncates the game belongs in it). The exact solver's transposition
        table (:mod:`sky_envs.agents.solver`) looks positions up by it. Default: the position
        text; games override it with a cheaper exact key."""
        return self.to_text()

    def clone(self) -> GameState:
        """An independent copy. Games override with a faster copy.

        A game that draws from ``rng`` during play gives the clone its own copy of the
        generator; a game whose rng serves set-up only may let clones share it (nothing
        draws from it after set-up, and copying a generator costs more than a whole move).
        """
        return copy.deepcopy(self)

    def sample_consistent(self, seat: int, rng: np.random.Generator) -> GameState:
        """A full state consistent with what ``seat`` observes (determinised search).

        Perfect-information games return a clone; hidden-information games redistribute
        what ``seat`` cannot see.
        """
        return self.clone()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.env_id}\n{self.to_text()}>"


def hides_information(state: GameState) -> bool:
    """Whether ``state``'s game hides information from its seats: its states redraw what a
    seat cannot see (:meth:`GameState.sample_consistent`)."""
    return type(state).sample_consistent is not GameState.sample_consistent
