"""Runs over many configurations of one env (``env.mixture``): each expert-iteration
iteration draws the options its games are played with.

A config's ``env.options`` is the run's own configuration (its checkpoints name it, its
quick evaluations play it); ``env.mixture`` lists where each iteration's games come from::

    env:
      id: sky_scrapers_v0
      options: {board: random, rows: 6, cols: 6, positioning: random}
      mixture:
        - weight: 1                      # an entry's share of the iterations (default 1)
          options: {board: random, rows: 6, cols: 6, positioning: random}
          expert: specialist.pt@100      # this entry's expert (default: alphazero.expert)
        - weight: 3
          options: {board: random}
          draw:                          # one member of each group per iteration, merged in
            - [{rows: 4, cols: 4}, {rows: 7, cols: 7}, {rows: 10, cols: 10}]
            - [{lines: all}, {lines: hex}]
            - [{players: 2}, {players: 4}]

Every configuration an entry can draw is built once when the config is read, so an option
set the game refuses is an error naming the entry and the options, not a crash hours into
the run. The network must fit every board (``policy.any_board: true``); its checkpoints
record ``option_ranges`` (:mod:`sky_envs.agents.checkpoint`): for every option an entry
names, the values drawn (numbers as their least and greatest, the game's resolved value of
each), so that the checkpoint refuses options it never played.
"""

from __future__ import annotations

import itertools
import json
from functools import lru_cache

import numpy as np

from sky_envs.agents.checkpoint import RESOLVED_OPTION
from sky_envs.core.registry import make_game

ENTRY_KEYS = ("weight", "options", "draw", "expert")
MAX_CONFIGURATIONS = 10_000


def options_key(options: dict) -> str:
    """A configuration's options as canonical JSON: the key of its games, samples and network."""
    return json.dumps(options, sort_keys=True)


@lru_cache(maxsize=256)
def game_of(env_id: str, key: str):
    """The game of the options ``key`` names (built once per process)."""
    return make_game(env_id, **json.loads(key))


class OptionMixture:
    """A validated ``env.mixture`` (the module docstring); ``ValueError`` naming what is wrong."""

    def __init__(self, env_id: str, mixture, expert_error):
        """``expert_error(spec)``: why an entry's ``expert`` is not valid (None if it is)."""
        if not isinstance(mixture, list) or not mixture:
            raise ValueError(f"env.mixture must be a non-empty list of entries (mappings with keys {ENTRY_KEYS}), "
                             f"got {mixture!r:.200}")
        self.env_id = env_id
        self.entries = [self._entry(k, entry, expert_error) for k, entry in enumerate(mixture)]
        weights = np.array([entry["weight"] for entry in self.entries], dtype=np.float64)
        self.shares = weights / weights.sum()
        for k, entry in enumerate(self.entries):
            for options in self.configurations(k):
                try:
                    game_of(env_id, options_key(options))
                except ValueError as error:
                    raise ValueError(f"env.mixture entry {k + 1} draws options {options} that {env_id} refuses: "
                                     f"{error}") from None

    @staticmethod
    def _entry(k: int, entry, expert_error) -> dict:
        where = f"env.mixture entry {k + 1}"
        if not isinstance(entry, dict) or set(entry) - set(ENTRY_KEYS) or "options" not in entry:
            raise ValueError(f"{where} must be a mapping with 'options' and optionally 'weight', 'draw', 'expert', "
                             f"got {entry!r:.200}")
        weight = entry.get("weight", 1)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
            raise ValueError(f"{where}: weight must be a positive number, got {weight!r}")
        if not isinstance(entry["options"], dict):
            raise ValueError(f"{where}: options must be a mapping of env options, got {entry['options']!r:.200}")
        draw = entry.get("draw", [])
        if not isinstance(draw, list) or not all(isinstance(group, list) and group and
                                                 all(isinstance(member, dict) for member in group) for group in draw):
            raise ValueError(f"{where}: draw must be a list of groups, each a non-empty list of option mappings "
                             f"(one of them drawn per iteration), got {draw!r:.200}")
        expert = entry.get("expert")
        if expert is not None and (error := expert_error(expert)) is not None:
            raise ValueError(f"{where}: expert {error}")
        count = int(np.prod([len(group) for group in draw]))
        if count > MAX_CONFIGURATIONS:
            raise ValueError(f"{where} draws from {count:,} configurations: at most {MAX_CONFIGURATIONS:,}")
        return {"weight": weight, "options": dict(entry["options"]), "draw": draw, "expert": expert}

    def configurations(self, k: int):
        """Every option set entry ``k`` can draw."""
        entry = self.entries[k]
        for members in itertools.product(*entry["draw"]):
            options = dict(entry["options"])
            for member in members:
                options.update(member)
            yield options

    def draw(self, rng: np.random.Generator) -> tuple[dict, str | None]:
        """``(options, expert)`` of one iteration: an entry by weight, then one member of each
        of its groups (``expert``: the entry's own, None for the run's)."""
        entry = self.entries[int(rng.choice(len(self.entries), p=self.shares))]
        options = dict(entry["options"])
        for group in entry["draw"]:
            options.update(group[int(rng.integers(len(group)))])
        return options, entry["expert"]

    def option_ranges(self) -> dict:
        """The ``option_ranges`` a checkpoint of the run records: per option named by any
        entry, the resolved values of every configuration (integers as ``{min, max}``, other
        values as a list; options whose values are neither, e.g. ``cells`` pairs, are not
        recorded)."""
        names = sorted({name for entry in self.entries
                        for name in itertools.chain(entry["options"], *(m for g in entry["draw"] for m in g))})
        values: dict[str, list] = {name: [] for name in names}
        for k in range(len(self.entries)):
            for options in self.configurations(k):
                game = game_of(self.env_id, options_key(options))
                for name in names:
                    value = getattr(game, RESOLVED_OPTION.get(name, name), None)
                    if value not in values[name]:
                        values[name].append(value)
        ranges = {}
        for name, seen in values.items():
            if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in seen):
                ranges[name] = {"min": int(min(seen)), "max": int(max(seen))}
            elif all(isinstance(v, str) for v in seen):
                ranges[name] = sorted(seen)
        return ranges


__all__ = ["OptionMixture", "game_of", "options_key"]
