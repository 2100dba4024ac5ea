"""The tower-card deck and the bonus table: the shipped data file and validated overrides.

``deck.json`` (shipped in this package) holds the default: one entry per card value with
its number of copies, sails (score) and flags (tie-break), and the sails of every bonus.
A game may replace either with the ``deck`` / ``bonuses`` options; everything is checked
here, at construction, so a bad deck never reaches play.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from importlib import resources
from typing import Any

from sky_envs.core.options import integer_option

#: bonus cards, in the order used by observations, texts and ``Deck.bonus_sails``
BONUS_NAMES = ("big_ben", "sky", "triple", "romance", "lucky", "real_estate_king", "perfect")
BIG_BEN, SKY, TRIPLE, ROMANCE, LUCKY, KING, PERFECT = range(7)
HAND_SIZE = 5  # cards dealt to every seat; also the hand limit of the 5 (Return)
VALUES = range(1, 11)
CARD_KEYS = ("value", "copies", "sails", "flags")
MAX_CARDS = 4096          # the biggest deck, all values together
MAX_SAILS = 1000          # the most sails (or flags) of one card, and sails of one bonus
MAX_DECK_FILE = 1 << 20   # bytes: a deck file is a small JSON text


@dataclass(frozen=True)
class Deck:
    """A validated deck: per-value tables indexed 0..10 (index 0 unused, always 0)."""

    copies: tuple[int, ...]
    sails: tuple[int, ...]
    flags: tuple[int, ...]
    #: sails of each bonus in ``BONUS_NAMES`` order; ``None`` = that bonus is not in play
    bonus_sails: tuple[int | None, ...]

    @property
    def total(self) -> int:
        return sum(self.copies)

    def cards(self) -> list[dict[str, int]]:
        return [{"value": v, "copies": self.copies[v], "sails": self.sails[v], "flags": self.flags[v]}
                for v in VALUES if self.copies[v]]

    def bonuses(self) -> dict[str, int]:
        return {name: s for name, s in zip(BONUS_NAMES, self.bonus_sails) if s is not None}

    def in_play(self, bonus: int) -> bool:
        return self.bonus_sails[bonus] is not None


def default_spec() -> dict[str, Any]:
    """The shipped ``deck.json`` as a dict."""
    text = resources.files(__package__).joinpath("deck.json").read_text(encoding="utf-8")
    return json.loads(text)


def _read_deck_file(path: str | os.PathLike) -> Any:
    """The JSON in ``path``, read only if it is a regular file of at most ``MAX_DECK_FILE``
    bytes (a device such as ``/dev/zero`` or a FIFO is refused before it is opened)."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
        if regular:
            with open(path, "rb") as handle:
                data = handle.read(MAX_DECK_FILE + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise ValueError(f"deck={path!r}: cannot read the deck file ({getattr(exc, 'strerror', None) or exc})") from None
    if not regular:
        raise ValueError(f"deck={path!r} is not a regular file: a deck file is a JSON text file")
    if len(data) > MAX_DECK_FILE:
        raise ValueError(f"deck file {path!r} is bigger than {MAX_DECK_FILE} bytes: a deck file is a small JSON text")
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # JSON, UTF-8, too many digits, too deep
        raise ValueError(f"deck={path!r} is not valid JSON: {exc}") from None


def _read_spec(deck: Any) -> dict[str, Any]:
    if deck is None:
        return default_spec()
    if isinstance(deck, (str, os.PathLike)):
        spec = _read_deck_file(deck)
        if not isinstance(spec, dict):
            raise ValueError(f"deck file {deck!r} must hold a JSON object with a 'cards' list")
        return spec
    if isinstance(deck, dict):
        return deck
    if isinstance(deck, (list, tuple)):
        return {"cards": list(deck)}
    raise ValueError(f"deck must be None, a path to a JSON deck file, a dict with 'cards' or a list of "
                     f"card entries, got {type(deck).__name__}")


def _parse_cards(cards: Any) -> tuple[list[int], list[int], list[int]]:
    if not isinstance(cards, (list, tuple)) or not cards:
        raise ValueError(f"deck 'cards' must be a non-empty list of entries {{value, copies, sails, flags}}, "
                         f"got {cards!r}")
    copies, sails, flags = [0] * 11, [0] * 11, [0] * 11
    seen = set()
    for i, entry in enumerate(cards):
        if not isinstance(entry, dict):
            raise ValueError(f"deck card entry {i} must be a dict with keys {list(CARD_KEYS)}, got {entry!r}")
        unknown = set(entry) - set(CARD_KEYS)
        missing = [k for k in CARD_KEYS if k not in entry]
        if unknown or missing:
            raise ValueError(f"deck card entry {i} must have exactly the keys {list(CARD_KEYS)}: "
                             f"unknown {sorted(unknown, key=str)}, missing {missing}")
        value = entry["value"]
        if isinstance(value, bool) or not isinstance(value, int) or value not in VALUES:
            raise ValueError(f"deck card entry {i}: unknown card value {value!r}, expected an integer 1..10")
        if value in seen:
            raise ValueError(f"deck card entry {i}: value {value} appears twice; give each value one entry")
        seen.add(value)
        copies[value] = integer_option(f"deck copies of value {value}", entry["copies"], 0, MAX_CARDS)
        sails[value] = integer_option(f"deck sails of value {value}", entry["sails"], 0, MAX_SAILS)
        flags[value] = integer_option(f"deck flags of value {value}", entry["flags"], 0, MAX_SAILS)
    if sum(copies) > MAX_CARDS:
        raise ValueError(f"the deck has {sum(copies)} cards: a deck holds at most {MAX_CARDS}")
    return copies, sails, flags


def _parse_bonuses(bonuses: Any) -> tuple[int | None, ...]:
    if not isinstance(bonuses, dict):
        raise ValueError(f"bonuses must be a dict of bonus name -> sails (names {list(BONUS_NAMES)}), got {bonuses!r}")
    unknown = [k for k in bonuses if k not in BONUS_NAMES]
    if unknown:
        raise ValueError(f"unknown bonus name(s) {unknown}: expected some of {list(BONUS_NAMES)}")
    return tuple(None if name not in bonuses else integer_option(f"sails of bonus {name!r}", bonuses[name], 0, MAX_SAILS)
                 for name in BONUS_NAMES)


def load_deck(deck: Any = None, bonuses: Any = None, players: int = 2) -> Deck:
    """Validate the ``deck`` and ``bonuses`` options (``None`` = the shipped defaults).

    ``deck``: a path to a JSON file like ``deck.json``, a dict with a ``"cards"`` list (and
    optionally ``"bonuses"``), or the list of card entries itself. ``bonuses``: a dict of
    bonus name -> sails; bonuses left out are not in play. Without it the deck spec's
    ``"bonuses"`` (or the default table) is used.
    """
    spec = _read_spec(deck)
    unknown = set(spec) - {"cards", "bonuses", "description"}
    if unknown:
        raise ValueError(f"unknown deck key(s) {sorted(unknown, key=str)}: expected 'cards', 'bonuses', 'description'")
    if "cards" not in spec:
        raise ValueError("the deck spec has no 'cards' list")
    copies, sails, flags = _parse_cards(spec["cards"])
    if bonuses is None:
        bonuses = spec.get("bonuses", default_spec()["bonuses"])
    bonus_sails = _parse_bonuses(bonuses)
    total, needed = sum(copies), HAND_SIZE * players + 1
    if total < needed:
        raise ValueError(f"the deck has {total} cards but {players} players need at least {needed}: "
                         f"{HAND_SIZE} each for the deal plus one card left to draw")
    return Deck(tuple(copies), tuple(sails), tuple(flags), bonus_sails)
