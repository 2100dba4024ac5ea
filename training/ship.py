"""Copy a trained checkpoint to where it ships, optionally with float16 weights (half the size).

    python -m training.ship runs/az_golden_rush/final.pt checkpoints/golden_rush_v0/policy.pt --weights-dtype float16

The metadata (env, network, how it was trained) is kept as it is; ``--rollout-weight``,
``--rollout-policy``, ``--c-puct``, ``--leaves-per-call``, ``--solver``, ``--root``,
``--gumbel-k``, ``--gumbel-scale`` and ``--c-scale`` add the search settings this network plays
best with (measured by evaluation: see :class:`~sky_envs.agents.search.PUCTSearch`), the
defaults of ``make_agent("policy.pt@N")`` (``--root gumbel``: ``policy.pt@N`` searches with
the Gumbel root, ``policy.pt@N+puct`` still with PUCT's);
``--average-symmetries`` that it plays averaged over the board's symmetries, raw and in search
(:func:`~sky_envs.agents.checkpoint.checkpoint_symmetries`); ``--option-ranges JSON`` replaces the
options a network for every board covers (its ``option_ranges``, e.g. to add board shapes it
was shown to play); ``--recipe ENV_ID`` records that the network is the output of that env's
recipe (``metadata["training"]["recipe"]``: ``python -m training.recipe ENV_ID``, the one
command that rebuilds it, which :mod:`training.recipe` passes on its final ship step).
Storing float16 rounds every weight, so the command compares the copy with the original on
positions from random games of the checkpoint's env and prints how often both pick the same
action and the largest value difference: a copy that plays differently is worth
re-evaluating.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from sky_envs.agents.checkpoint import (WEIGHTS_DTYPES, CheckpointError, checkpoint_symmetries, load_checkpoint,
                                       save_checkpoint)
from sky_envs.agents.playouts import PLAYOUTS, playout_error
from sky_envs.agents.policy import NetworkEvaluator
from sky_envs.agents.search import ROOTS, SEARCH_SETTINGS
from sky_envs.core.registry import make_game


def sample_positions(env_id: str, options: dict, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` positions met in random games."""
    game = make_game(env_id, **options)
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    state = game.new_initial_state(rng)
    while len(observations) < count:
        if state.current_player < 0:
            state = game.new_initial_state(rng)
            continue
        observations.append(state.observation(state.current_player))
        masks.append(state.legal_mask())
        legal = state.legal_actions()
        state.apply_unchecked(int(legal[rng.integers(legal.size)]))
    return np.stack(observations), np.stack(masks)


def compare(original, copy, observations: np.ndarray, masks: np.ndarray) -> tuple[float, float]:
    """``(share of positions where both pick the same most likely action, largest value difference)``."""
    p0, v0 = NetworkEvaluator(original)(observations, masks)
    p1, v1 = NetworkEvaluator(copy)(observations, masks)
    return float(np.mean(p0.argmax(axis=1) == p1.argmax(axis=1))), float(np.abs(v0 - v1).max())


def ship(source: str | Path, target: str | Path, weights_dtype: str = "float32",
         positions: int = 2000, seed: int = 0, search: dict | None = None,
         average_symmetries: bool | None = None, option_ranges: dict | None = None,
         recipe: str | None = None) -> dict:
    """Copy ``source`` to ``target``; ``search`` settings (any of
    :data:`~sky_envs.agents.search.SEARCH_SETTINGS`) are recorded over any it had, and
    ``average_symmetries`` (when not None) whether the network plays averaged over the
    board's symmetries (:func:`~sky_envs.agents.checkpoint.checkpoint_symmetries`);
    ``option_ranges`` (when not None) the options a network for every board covers;
    ``recipe`` (when not None) the env whose recipe made the network."""
    policy, metadata = load_checkpoint(source)
    kind = (search or {}).get("rollout_policy")
    if kind is not None and (error := playout_error(kind, make_game(metadata["env_id"], **metadata["env_options"]))):
        raise ValueError(error)
    if search:
        metadata = {**metadata, "search": {**metadata.get("search", {}), **search}}
    if average_symmetries is not None:
        metadata = {**metadata, "average_symmetries": bool(average_symmetries)}
        checkpoint_symmetries(metadata)  # the env must have them: CheckpointError before anything is written
    if option_ranges is not None:
        metadata = {**metadata, "option_ranges": option_ranges}
    if recipe is not None:
        if recipe != metadata["env_id"]:
            raise ValueError(f"--recipe {recipe!r} names another env than the checkpoint's {metadata['env_id']!r}")
        metadata = {**metadata, "training": {**metadata.get("training", {}),
                                             "recipe": f"python -m training.recipe {recipe}"}}
    path = save_checkpoint(target, policy, metadata, weights_dtype=weights_dtype)  # the digest is made anew
    copy, _ = load_checkpoint(path)
    observations, masks = sample_positions(metadata["env_id"], metadata["env_options"], positions, seed)
    same, value_gap = compare(policy, copy, observations, masks)
    return {"path": str(path), "bytes": path.stat().st_size, "same_action": same, "max_value_difference": value_gap}


def main(argv: list[str] | None = None) -> int:
    from sky_envs.core.arguments import HelpFormatter, module_prog

    parser = argparse.ArgumentParser(prog=module_prog(__spec__), description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("source", help="a checkpoint written by training (e.g. runs/<run>/final.pt)")
    parser.add_argument("target", help="where the copy goes (e.g. checkpoints/<env_id>/policy.pt)")
    parser.add_argument("--weights-dtype", choices=WEIGHTS_DTYPES, default="float32")
    parser.add_argument("--positions", type=int, default=2000, help="positions compared (default 2000)")
    parser.add_argument("--rollout-weight", type=float, metavar="W",
                        help="record this search setting: leaf value = (1-W) network + W random playout")
    parser.add_argument("--rollout-policy", choices=PLAYOUTS,
                        help="record this search setting: how the playouts move (greedy: games with move values)")
    parser.add_argument("--c-puct", type=float, metavar="C", help="record this search setting: PUCT's exploration")
    parser.add_argument("--leaves-per-call", type=int, metavar="L",
                        help="record this search setting: leaves evaluated per network call (virtual loss)")
    parser.add_argument("--solver", action=argparse.BooleanOptionalAction,
                        help="record this search setting: back up proven wins and losses (perfect information)")
    parser.add_argument("--root", choices=ROOTS,
                        help="record this search setting: how the root spends the simulations (PUCT, or Gumbel-top-k "
                             "with sequential halving)")
    parser.add_argument("--gumbel-k", type=int, metavar="K",
                        help="record this search setting: root actions the Gumbel root samples")
    parser.add_argument("--gumbel-scale", type=float, metavar="S",
                        help="record this search setting: the Gumbel root's noise scale (0: none)")
    parser.add_argument("--c-scale", type=float, metavar="C",
                        help="record this search setting: the weight of Q against the logits at the Gumbel root")
    parser.add_argument("--exact-nodes", type=int, metavar="N",
                        help="record this search setting: solve each root exactly within N solver nodes first and "
                             "keep the moves proven to keep its value (two-seat perfect-information games; 0: off)")
    parser.add_argument("--average-symmetries", action=argparse.BooleanOptionalAction,
                        help="record that the network plays averaged over the board's symmetries (raw and in search)")
    parser.add_argument("--option-ranges", metavar="JSON", type=json.loads,
                        help="record the options a network for every board covers, e.g. "
                             "'{\"rows\": {\"min\": 4, \"max\": 12}, \"lines\": [\"all\", \"hex\"]}'")
    parser.add_argument("--recipe", metavar="ENV_ID",
                        help="record that this network is the output of ENV_ID's recipe (python -m training.recipe)")
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    try:
        # every search setting has its option, named as the setting (--c-puct sets c_puct)
        search = {name: getattr(args, name) for name in SEARCH_SETTINGS if getattr(args, name) is not None}
        result = ship(args.source, args.target, args.weights_dtype, args.positions, search=search,
                      average_symmetries=args.average_symmetries, option_ranges=args.option_ranges,
                      recipe=args.recipe)
    except (CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {result['path']} ({result['bytes']:,} bytes); on {args.positions} positions of random games "
          f"the copy picks the same action {result['same_action']:.1%} of the time, "
          f"values differ by at most {result['max_value_difference']:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
