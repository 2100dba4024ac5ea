"""Start a network for every board (``any_board: true``) from a specialist's weights.

A specialist with the moves head (:class:`~sky_envs.agents.features.StackMovesPolicy`, one
box size, line set and seat count) and a board-free network of the same channels, blocks and
head width share most of their weights' shapes: the residual blocks, the moves head and the
value head's 1x1 convolution are copied as they are. The first convolution reads other
planes (:class:`~sky_envs.agents.features.AnyBoardTrunk`): each of the specialist's input
planes is copied to the plane that holds the same thing (the board cells, each seat's
heights, the other planes), the last seat's heights also to the seat slots it leaves empty
(a specialist for two seats sees every opponent like its one opponent), and the new planes
(the seat count, the neighbours) start at zero weight. The value head's hidden layers start
untrained. On the specialist's own full boards the new network then plays its moves
(masking changes nothing where every cell is a board cell); elsewhere it is a start.

    python -m training.board_free --specialist checkpoints/sky_scrapers_v0/policy.pt \\
        --config configs/recipes/sky_scrapers_v0/universal/1_every_board.yaml --out runs/universal_start.pt
"""

from __future__ import annotations

import argparse
import shlex
import sys

import torch

from sky_envs.agents.checkpoint import open_checkpoint, policy_metadata, save_checkpoint
from sky_envs.agents.features import SEATS
from sky_envs.agents.network import build_policy, game_layout, normalize_spec
from sky_envs.core.arguments import HelpFormatter, module_prog
from sky_envs.core.registry import make_game

from .config import load_config
from .mixture import OptionMixture


def specialist_weights(specialist, policy) -> dict:
    """``policy``'s state dict (a board-free network) with ``specialist``'s weights copied in
    (the module docstring); ``ValueError`` where the two do not share their shapes."""
    source = specialist.state_dict()
    target = {name: tensor.clone() for name, tensor in policy.state_dict().items()}
    seats = list(specialist.features_extractor.height_planes)
    planes = specialist.observation_space.shape[-1]
    others = [p for p in range(1, planes) if p not in seats]
    plane_map = {0: [0], **{p: [1 + i] for i, p in enumerate(seats)}, **{p: [1 + SEATS + j] for j, p in enumerate(others)}}
    plane_map[seats[-1]] += list(range(1 + len(seats), 1 + SEATS))
    copied = 0
    for name, tensor in source.items():
        if name not in target:
            continue
        if name.endswith("features_extractor.stem.weight"):
            weight = torch.zeros_like(target[name])
            for plane, slots in plane_map.items():
                weight[:, slots] = tensor[:, plane:plane + 1]
            target[name] = weight
        elif target[name].shape == tensor.shape:
            target[name] = tensor.clone()
        else:
            continue
        copied += 1
    if copied < len(target) // 2:
        raise ValueError(f"the specialist shares too few weights with the board-free network ({copied} of "
                         f"{len(target)} tensors): give both the same channels, blocks and head_channels")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=module_prog(__spec__), description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--specialist", required=True, help="the specialist's checkpoint (a moves head network)")
    parser.add_argument("--config", required=True, help="the training config of the board-free network: its env, "
                                                        "policy (any_board: true) and env.mixture")
    parser.add_argument("--out", required=True, help="the checkpoint to write (train.init_from of the run)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
        env_id, options = config["env"]["id"], config["env"]["options"]
        game = make_game(env_id, **options)
        specialist = open_checkpoint(args.specialist)
        torch.manual_seed(config["train"]["seed"])
        policy = build_policy(config["policy"], game.observation_shape, game.num_actions, **game_layout(game))
        policy.load_state_dict(specialist_weights(specialist.policy, policy))
    except ValueError as error:
        parser.error(str(error))
    from .config import expert_error

    mixture = config["env"]["mixture"]
    ranges = OptionMixture(env_id, mixture, expert_error).option_ranges() if mixture else None
    command = f"{parser.prog} " + " ".join(shlex.quote(arg) for arg in (argv or sys.argv[1:]))
    metadata = policy_metadata(game, options, normalize_spec(config["policy"]), option_ranges=ranges,
                               algorithm="weights of a specialist", steps=0, seed=config["train"]["seed"],
                               command=command, specialist={"file": args.specialist,
                                                            "sha256": specialist.metadata["sha256"]})
    print(save_checkpoint(args.out, policy, metadata))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
