"""Env ids, ``make()``, and registration with PettingZoo's registry.

An env id is ``<name>_v<version>`` (``sky_scrapers_v0``); PettingZoo's registry knows the
same env as ``sky_envs/<name>-v<version>``. Either spelling is accepted everywhere.
A game is registered with a factory ``factory(**options) -> Game`` or a lazy
``"module:attr"`` string, so importing ``sky_envs`` imports no rules engine.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium
import pettingzoo

from sky_envs.core.env import SkyEnv
from sky_envs.core.state import Game

NAMESPACE = "sky_envs"
_ID = re.compile(r"^(?:sky_envs/)?(?P<name>[a-z][a-z0-9_]*?)(?:_v|-v)(?P<version>\d+)$")
_factories: dict[str, Callable[..., Game] | str] = {}


def canonical_id(env_id: str) -> str:
    """``"sky_envs/sky_scrapers-v0"`` or ``"sky_scrapers_v0"`` -> ``"sky_scrapers_v0"``."""
    match = _ID.match(env_id) if isinstance(env_id, str) else None
    if match is None:
        raise ValueError(
            f"malformed env id {env_id!r}: expected '<name>_v<N>' or 'sky_envs/<name>-v<N>', "
            f"e.g. 'sky_scrapers_v0'; registered ids are {env_ids()}"
        )
    return f"{match['name']}_v{match['version']}"


def pettingzoo_id(env_id: str) -> str:
    name, version = canonical_id(env_id).rsplit("_v", 1)
    return f"{NAMESPACE}/{name}-v{version}"


def register(env_id: str, game: Callable[..., Game] | str, *, overwrite: bool = False) -> None:
    """Add a game: ``game(**options)`` must return a :class:`~sky_envs.core.state.Game`.

    After this, ``sky_envs.make(env_id)`` and ``pettingzoo.make("aec",
    "sky_envs/<name>-v<N>")`` build the generic env over it, and
    ``gymnasium.make("sky_envs/<name>-v<N>", opponent=...)`` its single-agent view
    (``gymnasium.make_vec(..., num_envs=N, vectorization_mode="vector_entry_point")`` the
    same view over ``N`` batched games).
    """
    key = canonical_id(env_id)
    if key in _factories and not overwrite:
        raise ValueError(f"env id {key!r} is already registered; pass overwrite=True to replace it")
    if not (callable(game) or (isinstance(game, str) and ":" in game)):
        raise ValueError(f"game must be a callable returning a Game or a 'module:attr' string, got {game!r}")
    _factories[key] = game
    pettingzoo.aec_registry.pop(pettingzoo_id(key), None)  # re-registering must not warn
    pettingzoo.register("aec", pettingzoo_id(key), entry_point=partial(make, key))
    gymnasium.registry.pop(pettingzoo_id(key), None)
    # a string entry point: the single-agent view sits above core (it plays agents). No
    # OrderEnforcing: Gymnasium 1.x wrappers do not forward attributes, so it would hide
    # action_masks(); the view refuses step-before-reset itself.
    # gymnasium.make_vec(...): the same view over many games, opponents batched across them
    gymnasium.register(pettingzoo_id(key), entry_point="sky_envs.gym_env:SingleAgentEnv",
                       vector_entry_point="sky_envs.integrations.gymnasium_vector:SingleAgentVectorEnv",
                       kwargs={"env_id": key}, disable_env_checker=True, order_enforce=False)


def env_ids() -> list[str]:
    """Every registered env id, sorted."""
    return sorted(_factories)


def make_game(env_id: str, **options: Any) -> Game:
    """The :class:`Game` of ``env_id`` configured with ``options`` (validated)."""
    key = canonical_id(env_id)
    if key not in _factories:
        raise ValueError(f"unknown env id {env_id!r}: registered ids are {env_ids()}")
    factory = _factories[key]
    if isinstance(factory, str):
        module, attr = factory.split(":")
        factory = _factories[key] = getattr(importlib.import_module(module), attr)
    return factory(**options)


def make(env_id: str, render_mode: str | None = None, **options: Any) -> SkyEnv:
    """The env as ``<game>_v0.env()`` builds it: illegal moves lose, like PettingZoo's classics."""
    return SkyEnv(make_game(env_id, **options), render_mode=render_mode, strict=False)


def make_raw(env_id: str, render_mode: str | None = None, **options: Any) -> SkyEnv:
    """The env as ``<game>_v0.raw_env()`` builds it: illegal moves raise ``ValueError``."""
    return SkyEnv(make_game(env_id, **options), render_mode=render_mode, strict=True)



def env_constructors(env_id: str) -> tuple[Callable[..., SkyEnv], Callable[..., SkyEnv]]:
    """``env`` and ``raw_env`` functions for a versioned module such as ``sky_scrapers_v0``."""

    def env(render_mode: str | None = None, **options: Any) -> SkyEnv:
        return make(env_id, render_mode=render_mode, **options)

    def raw_env(render_mode: str | None = None, **options: Any) -> SkyEnv:
        return make_raw(env_id, render_mode=render_mode, **options)

    env.__doc__ = f"The {env_id} env with PettingZoo's classic illegal-move handling."
    raw_env.__doc__ = f"The {env_id} env that raises ValueError on an illegal action."
    return env, raw_env
