"""Start a network for every board (``any_board: true``) from a specialist's weights.

A specialist with the moves head (:class:`~sky_envs.agents.features.StackMovesPolicy`, one
box size, line set and seat count) and a board-free network of the same channels, blocks and
head width share most of their weights' shapes: the residual blocks, the moves head and the
value head's 1x1 convolution are copied as they are. The first convolution reads other
planes (:class:`~sky_envs.agents.features.AnyBoardTrunk`): each of the specialist's input
planes is copied to the plane that holds the same thing (the board cells, each seat's
heights, the other planes), the last seat's heights also to the seat slots it leaves empty
(a specialist for two seats sees every opponent like its one opponent), and the new planes
(the seat count, the neighbours) start at zero weight. On the specialist's own full boards
the new network then plays its moves (masking changes nothing where every cell is a board
cell), and on other boards the same trunk and moves head read those boards' planes.

The value head's hidden layers read other features (the head planes' mean and maximum over
the board instead of every cell's), so they cannot be copied: they are fitted to the
specialist's values instead (:func:`fit_value_head`, ``--value-games``), on positions of the
specialist's games with itself in its own options, the trunk and the moves head held fixed.
The new network then also estimates positions like the specialist on its boards, which its
search (``rollout_weight`` below 1) leans on; elsewhere its value is the same pooled
reading of the same trunk.

    python -m training.board_free --specialist checkpoints/sky_scrapers_v0/policy.pt \\
        --config configs/recipes/sky_scrapers_v0/universal/1_every_board.yaml --out runs/universal_start.pt
"""

from __future__ import annotations

import argparse
import shlex
import sys

import numpy as np
import torch

from sky_envs.agents.checkpoint import open_checkpoint, policy_metadata, save_checkpoint
from sky_envs.agents.features import SEATS
from sky_envs.agents.network import build_policy, forward, game_layout, normalize_spec
from sky_envs.core.arguments import HelpFormatter, module_prog
from sky_envs.core.registry import make_game
from sky_envs.core.replay_file import start_state

from .config import load_config
from .mixture import OptionMixture
from .recipe_file import BOARD_FREE_LEAST, BoardFree


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


def specialist_positions(specialist, game, games: int, seed: int, explore: float = 0.1):
    """Observations (from the mover's view) of every position of ``games`` games that
    ``specialist`` plays with itself in ``game`` (game g dealt with seed ``seed + g``), each
    move drawn from its policy, or uniformly from the legal moves with chance ``explore``;
    returned with the specialist's value of each."""
    rng = np.random.default_rng(seed)
    live = [start_state(game, seed + g) for g in range(games)]
    observations, values = [], []
    with torch.no_grad():
        while live:
            batch = np.stack([state.observation(state.current_player) for state in live]).astype(np.float32)
            logits, value = forward(specialist, torch.from_numpy(batch))
            observations.append(batch)
            values.append(value.numpy())
            for state, row in zip(live, logits.numpy()):
                legal = state.legal_actions()
                if rng.random() < explore:
                    action = legal[rng.integers(len(legal))]
                else:
                    weights = np.exp(row[legal] - row[legal].max())
                    action = legal[rng.choice(len(legal), p=weights / weights.sum())]
                state.apply(int(action))
            live = [state for state in live if state.current_player >= 0]
    return np.concatenate(observations), np.concatenate(values).astype(np.float32)


def fit_value_head(policy, observations: np.ndarray, targets: np.ndarray, steps: int, seed: int,
                   batch_size: int = 256, learning_rate: float = 1e-3) -> dict:
    """Train ``policy``'s value hidden layers and output (``mlp_extractor.value_layers``,
    ``value_net``) to give ``targets`` on ``observations`` (mean squared error, Adam), every
    other weight held fixed; a tenth of the positions are held out. Returns the held-out
    error before and after, beside the targets' variance there."""
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(observations), generator=generator)
    held_out, train = order[:len(order) // 10], order[len(order) // 10:]
    with torch.no_grad():
        features = policy.extract_features(torch.from_numpy(observations))  # the trunk is held fixed
    targets = torch.from_numpy(targets)
    fitted = [*policy.mlp_extractor.value_layers.parameters(), *policy.value_net.parameters()]
    optimizer = torch.optim.Adam(fitted, lr=learning_rate)

    def error(rows):
        return ((policy.value_net(policy.mlp_extractor.forward_critic(features[rows]))[:, 0] - targets[rows]) ** 2).mean()

    with torch.no_grad():
        before = float(error(held_out))
    for _ in range(steps):
        loss = error(train[torch.randint(len(train), (batch_size,), generator=generator)])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        after = float(error(held_out))
    return {"positions": len(observations), "steps": steps, "held_out_mse_before": round(before, 5),
            "held_out_mse": round(after, 5), "held_out_target_variance": round(float(targets[held_out].var()), 5)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=module_prog(__spec__), description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--specialist", required=True, help="the specialist's checkpoint (a moves head network)")
    parser.add_argument("--config", required=True, help="the training config of the board-free network: its env, "
                                                        "policy (any_board: true) and env.mixture")
    parser.add_argument("--out", required=True, help="the checkpoint to write (train.init_from of the run)")
    parser.add_argument("--value-games", type=int, default=BoardFree.value_games,
                        help="games of the specialist with itself whose positions fit the value head (0: leave "
                             "the value head's hidden layers untrained)")
    parser.add_argument("--value-steps", type=int, default=BoardFree.value_steps,
                        help="Adam steps of 256 positions fitting it")
    args = parser.parse_args(argv)
    least = BOARD_FREE_LEAST
    if args.value_games < least["value_games"] or args.value_steps < least["value_steps"]:
        parser.error(f"--value-games must be >= {least['value_games']} and --value-steps >= {least['value_steps']}, "
                     f"got {args.value_games} and {args.value_steps}")
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
    torch.set_num_threads(1)  # the same weights on every run
    value_fit = None
    if args.value_games:
        seed = config["train"]["seed"]
        positions = specialist_positions(specialist.policy, specialist.game, args.value_games, seed)
        value_fit = {"games": args.value_games, **fit_value_head(policy, *positions, args.value_steps, seed)}
        print(f"value head fitted on {value_fit['positions']:,} positions of {args.value_games:,} games: held-out "
              f"error {value_fit['held_out_mse']:.4f} (targets' variance {value_fit['held_out_target_variance']:.4f})")
    from .config import expert_error

    mixture = config["env"]["mixture"]
    ranges = OptionMixture(env_id, mixture, expert_error).option_ranges() if mixture else None
    command = f"{parser.prog} " + " ".join(shlex.quote(arg) for arg in (argv or sys.argv[1:]))
    metadata = policy_metadata(game, options, normalize_spec(config["policy"]), option_ranges=ranges,
                               algorithm="weights of a specialist", steps=0, seed=config["train"]["seed"],
                               command=command, specialist={"file": args.specialist,
                                                            "sha256": specialist.metadata["sha256"]},
                               **({"value_fit": value_fit} if value_fit else {}))
    print(save_checkpoint(args.out, policy, metadata))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
