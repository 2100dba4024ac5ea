"""Expert iteration (AlphaZero-style): PUCT self-play teaches the network, which guides the search.

Chosen with ``train.algorithm: alphazero``; the network (``policy``) and the checkpoint
files are the same as PPO's, so a policy trained either way plays anywhere an agent is
accepted, raw or with search (``policy.pt@200``).

One iteration:

1. ``alphazero.parallel_games`` games are played to the end by PUCT search guided by the
   current network (:class:`~sky_envs.agents.search.PUCTSearch`, every game's search in
   lockstep so each simulation is one batched network call). Root priors get Dirichlet
   noise; the first ``temperature_moves`` decisions of a game are sampled from the visit
   counts, later ones take the most visited action.
   With ``alphazero.opponents`` (a share of the games per baseline, e.g. ``{greedy: 0.25}``)
   that share of the games seats a baseline in every seat but one, rotating, and the search
   decides only for that one: games whose outcome self-play alone rarely reaches (Scala's
   self-play games run to the draw at ``max_turns``) and the learner's own wins and losses
   against the opponents it is measured on.
   With ``alphazero.expert: alphabeta@D`` a classical searcher (``AlphaBetaAgent``, two-seat
   games) takes the search's place: it plays the learner's decisions (one of its best moves
   at random) and teaches all of its best moves, each an equal share of the policy target.
   Imitation, not self-improvement: for a game whose networks cannot beat a baseline that a
   few plies of search beat (Scala's greedy racer). ``alphazero.expert: CHECKPOINT.pt@N``
   makes a fixed network's PUCT search (with the search settings the checkpoint records,
   no root noise) the expert instead, teaching its visit counts: search distilled into the
   raw policy, by a teacher that does not drift with the learner. With
   ``alphazero.expert_moves`` below 1, the network plays that share of the learner's
   decisions itself (its most likely move, still labelled by the expert): the expert then
   teaches the positions the network's own play leads to, not only its own (DAgger).
   ``alphazero.exact_nodes: N`` solves each root of the search (or of a checkpoint expert's)
   exactly within N solver nodes first and keeps only the moves proven to keep its value
   (:mod:`~sky_envs.agents.search`'s exact endgame): exact targets where the solver reaches.
   With ``alphazero.policy_target: gumbel`` the search is Gumbel AlphaZero's
   (:mod:`~sky_envs.agents.gumbel`: Gumbel-top-k of ``alphazero.gumbel_k`` root actions,
   sequential halving, ``alphazero.c_scale``) and every decision plays the action its root
   selects: its Gumbel noise is the exploration, so neither Dirichlet noise nor
   ``temperature_moves`` applies.
2. Every decision of the search becomes a sample: the deciding seat's observation, the visit
   distribution over the legal actions (the policy target; with ``alphazero.policy_target:
   best`` the most visited moves in equal shares, with ``gumbel`` the search's completed-Q
   improved policy ``softmax(logits + sigma(completed Q))``) and the game's final reward for that seat
   (the value target; with ``alphazero.value_target: search`` the search's root value for
   that seat instead, ``mean`` the mean of both: one game's result says little about each
   of its fifty positions where the outcome is barely predictable, a search's estimate
   says something about every one).
3. The network trains on minibatches from the last ``buffer_size`` samples:
   cross-entropy to the visit distribution plus the squared value error, ``replay_ratio``
   samples per new one. With ``alphazero.symmetries: true`` each sample is shown in a
   random one of the board's symmetries (``Game.symmetries``: a mirrored or rotated
   position, its mirrored targets, the same value), for games whose rules have them.

With ``env.mixture`` (:mod:`training.mixture`) each iteration first draws the options its
games are played with (and the entry's own expert, if it names one); the network, whose
weights fit every board (``policy.any_board``), is built once per configuration around the
same weights (:func:`~sky_envs.agents.network.share_weights`), each replay chunk records its
configuration, and a minibatch is trained on configuration by configuration.

``train.timesteps`` counts recorded decisions. A run folder holds what resuming needs
(``trainer_state.pt``: network and optimiser tensors, written weights-only; ``replay/``:
the sample buffer, one file per iteration; ``run_state.json``), checkpoints
(``checkpoints/step_<N>.pt``), ``final.pt``, the evaluation report and ``tb/``. The folder
is saved after every iteration, with signals held back while it is written; Ctrl-C or
SIGTERM stops the run, and ``--resume`` replays the unfinished iteration exactly (the
random generators are saved too).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sky_envs.agents.checkpoint import policy_metadata, save_checkpoint
from sky_envs.agents.network import build_policy, forward, game_layout, share_weights
from sky_envs.agents.policy import NetworkEvaluator, SearchAgent
from sky_envs.agents.search import PUCTSearch, SearchResult
from sky_envs.core.registry import canonical_id, make_game
from .evaluate import evaluate_policy
from .actors import advance
from .allocator import keep_freed_memory
from .config import expert_error
from .mixture import OptionMixture, game_of, options_key
from .run_folder import STATE, atomic_write
from .tournament import quick_scores
from .warm_start import initial_weights


class ReplayBuffer:
    """Samples of the last ``capacity`` decisions, in chunks of one iteration each.

    Targets are sparse (the legal actions and their visit shares), so a game with
    thousands of actions (Scala) costs no more than its legal moves.
    """

    def __init__(self, capacity: int, num_actions: int):
        self.capacity, self.num_actions = capacity, num_actions
        self.chunks: list[dict[str, np.ndarray]] = []
        self.names: list[str] = []  # one per chunk: its file name in a run folder

    def __len__(self) -> int:
        return sum(len(chunk["values"]) for chunk in self.chunks)

    def add(self, chunk: dict[str, np.ndarray], name: str) -> None:
        self.chunks.append(chunk)
        self.names.append(name)
        while len(self) - len(self.chunks[0]["values"]) >= self.capacity:
            self.chunks.pop(0)
            self.names.pop(0)

    def sample(self, size: int, rng: np.random.Generator):
        """``(observations, masks, policy targets, value targets)`` of ``size`` random samples."""
        picks, starts, chunk_of = self._picks(size, rng)
        return self._rows(picks, starts, chunk_of, self.num_actions)

    def sample_groups(self, size: int, rng: np.random.Generator, num_actions_of) -> list[tuple]:
        """``size`` random samples of a buffer whose chunks hold several configurations' samples
        (each chunk's ``options``: :func:`training.mixture.options_key`), one group per
        configuration drawn, in the order first drawn: ``[(key, observations, masks,
        policy targets, value targets)]`` (``num_actions_of(key)``: that configuration's actions)."""
        picks, starts, chunk_of = self._picks(size, rng)
        keys = [str(self.chunks[c]["options"]) for c in chunk_of]
        groups = []
        for key in dict.fromkeys(keys):
            rows = np.array([k == key for k in keys])
            groups.append((key, *self._rows(picks[rows], starts, chunk_of[rows], num_actions_of(key))))
        return groups

    def _picks(self, size: int, rng: np.random.Generator):
        lengths = np.array([len(chunk["values"]) for chunk in self.chunks])
        picks = rng.integers(lengths.sum(), size=size)
        starts = np.concatenate([[0], np.cumsum(lengths)])
        return picks, starts, np.searchsorted(starts, picks, side="right") - 1

    def _rows(self, picks: np.ndarray, starts: np.ndarray, chunk_of: np.ndarray, num_actions: int):
        size = len(picks)
        observations, values = [], np.empty(size, dtype=np.float32)
        targets = np.zeros((size, num_actions), dtype=np.float32)
        masks = np.zeros((size, num_actions), dtype=bool)
        for row, (c, pick) in enumerate(zip(chunk_of, picks)):
            chunk, i = self.chunks[c], pick - starts[c]
            observations.append(chunk["observations"][i])
            lo, hi = chunk["offsets"][i], chunk["offsets"][i + 1]
            actions = chunk["actions"][lo:hi]
            targets[row, actions] = chunk["shares"][lo:hi]
            masks[row, actions] = True
            values[row] = chunk["values"][i]
        return np.stack(observations), masks, targets, values


def expert_results(expert, states: list) -> list[SearchResult]:
    """What ``PUCTSearch.run`` gives, from the expert. A checkpoint's search (``SearchAgent``)
    searches all the states in lockstep, without root noise: its visit counts. A classical
    searcher gives per state the legal actions and a "visit count" of 1 for each of its best
    moves, 0 for the others; it searches a world resampled from the mover's view, as when it
    plays."""
    if isinstance(expert, SearchAgent):
        return expert.search.run(states)
    out = []
    for state in states:
        actions = state.legal_actions()
        best, _ = expert.best_actions(state.sample_consistent(state.current_player, expert.rng))
        counts = np.isin(actions, best).astype(np.float64)
        out.append(SearchResult(actions, counts, None, counts / counts.sum()))
    return out


VALUE_TARGET_WEIGHT = {"outcome": 0.0, "search": 1.0, "mean": 0.5}  # the search's share of each value target


def value_target(outcome: float, root_value: float | None, weight: float) -> float:
    """A decision's value target: the game's outcome for the mover, mixed with the search's
    root value by ``weight`` (``alphazero.value_target``; the outcome alone without a root value)."""
    return outcome if root_value is None or weight == 0 else (1 - weight) * outcome + weight * root_value


def policy_target(result: SearchResult, kind: str) -> np.ndarray:
    """A decision's policy target: the visit shares, with ``alphazero.policy_target: best``
    the most visited moves in equal shares (the moves the search plays, not those it only
    tried), with ``gumbel`` the Gumbel search's improved policy."""
    visits = result.visits
    if kind == "best":
        best = visits == visits.max()
        return best / best.sum()
    if kind == "gumbel":
        return result.policy
    return visits / visits.sum()


class IterationGames:
    """One iteration's games: their states, who plays each seat, the decisions recorded so
    far, and the samples and baseline scores of the games that have ended."""

    def __init__(self, states: list, opponent_of: list, searched_seat: list[int], value_weight: float):
        self.states, self.opponent_of, self.searched_seat = states, opponent_of, searched_seat
        self.value_weight = value_weight
        self.records: list[list[tuple]] = [[] for _ in states]  # (observation, seat, actions, target, root value)
        self.samples: list[tuple] = []                            # (observation, actions, target, value)
        self.opponent_results: dict[str, list[float]] = {}

    def actor_of(self, g: int, seat: int):
        """The baseline that plays ``seat`` of game ``g``; None: the seat is the searching learner's."""
        opponent = self.opponent_of[g]
        return None if opponent is None or seat == self.searched_seat[g] else opponent

    def play_opponents(self, active: list[int]) -> list[int]:
        """The baselines' moves, up to the learner's next decision in each game; ends the
        games that finish on the way and returns those still going."""
        advance(self.states, active, self.actor_of)
        for g in active:
            if self.states[g].current_player < 0:
                self.finish(g)
        return [g for g in active if self.states[g].current_player >= 0]

    def finish(self, g: int) -> None:
        """Game ``g`` has ended: its decisions become samples, valued by the outcome, and a
        baseline game scores the learner (1 win, 0.5 draw, 0 loss)."""
        state = self.states[g]
        returns = state.returns() if state.is_terminal() else np.zeros(state.num_players)
        self.samples.extend((obs, a, p, value_target(returns[seat], root, self.value_weight))
                            for obs, seat, a, p, root in self.records[g])
        if self.opponent_of[g] is not None:
            self.opponent_results.setdefault(self.opponent_of[g].name, []).append(
                (1.0 + float(np.sign(returns[self.searched_seat[g]]))) / 2)

    def chunk(self) -> dict[str, np.ndarray]:
        """The samples as one replay chunk (sparse targets: the legal actions and their shares)."""
        samples = self.samples
        lengths = [len(a) for _, a, _, _ in samples]
        return {"observations": np.stack([obs for obs, _, _, _ in samples]).astype(np.float32),
                "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                "actions": np.concatenate([a for _, a, _, _ in samples]).astype(np.int32),
                "shares": np.concatenate([p for _, _, p, _ in samples]).astype(np.float32),
                "values": np.array([v for _, _, _, v in samples], dtype=np.float32)}


@dataclass
class Configuration:
    """The options one iteration's games are played with: their game, the network built for
    it (the run's weights) and the expert spec (None: the run's PUCT search decides)."""

    options: dict
    game: object
    policy: object
    expert: str | None


class ExpertIterationRun:
    """One expert-iteration run; ``train()`` then ``evaluate()`` (a :class:`~training.learner.Learner`)."""

    def __init__(self, config: dict, run_dir: str | Path, progress: bool = True, log=print):
        import torch

        self.config = config
        self.env_id = canonical_id(config["env"]["id"])
        self.options = dict(config["env"]["options"])
        self.game = make_game(self.env_id, **self.options)
        self.run_dir = Path(run_dir)
        self.progress, self.log = progress, log
        self.settings = config["alphazero"]
        self.seed = int(config["train"]["seed"])
        torch.set_num_threads(int(config["train"]["torch_threads"]))
        keep_freed_memory()
        torch.manual_seed(self.seed)
        self.rng = np.random.default_rng(self.seed)
        if self.settings["symmetries"] and self.game.symmetries is None:
            raise ValueError(f"alphazero.symmetries: {self.env_id} with these options has no board symmetries "
                             "(Game.symmetries) to train in: set it to false")
        self.policy = build_policy(config["policy"], self.game.observation_shape, self.game.num_actions,
                                   **game_layout(self.game))
        weights, self.init_from = initial_weights(config, run_dir)  # fine-tuning (train.init_from)
        if weights is not None:
            self.policy.load_state_dict(weights)
        self.optimizer = torch.optim.AdamW(self.policy.parameters(), lr=self.settings["learning_rate"],
                                           weight_decay=self.settings["weight_decay"],
                                           fused=config["train"]["fused_adam"])
        self.buffer = ReplayBuffer(self.settings["buffer_size"], self.game.num_actions)
        self.mixture = OptionMixture(self.env_id, config["env"]["mixture"], expert_error) if config["env"]["mixture"] else None
        self.networks = {options_key(self.options): self.policy}  # per configuration, sharing the weights
        self.playing = Configuration(self.options, self.game, self.policy, self.settings["expert"])
        self.steps_done = 0
        self.iteration = 0
        self.seconds = 0.0
        self.quick_evals: list[dict] = []
        self.checkpoints: list[str] = []
        self.command = ""  # the command line that started the run, recorded in checkpoints
        self.last_losses: dict[str, float] = {}

    # ------------------------------------------------------------ self-play
    def play_games(self) -> dict[str, np.ndarray]:
        """One iteration's games; returns their samples as one chunk.

        Round by round: the baselines move up to the learner's next decisions, every waiting
        decision is searched (by the run's PUCT search, or by the expert), the targets are
        recorded and the learner's moves played (:meth:`play_decisions`)."""
        s = self.settings
        self.policy.set_training_mode(False)
        if self.mixture is not None:
            options, expert = self.mixture.draw(self.rng)
            game = game_of(self.env_id, options_key(options))
            self.playing = Configuration(options, game, self.network_for(options), expert or s["expert"])
        search = self.new_search()
        expert = self.new_expert()
        states = [self.playing.game.new_initial_state(self.rng) for _ in range(s["parallel_games"])]
        games = IterationGames(states, *self.pick_opponents(len(states)), VALUE_TARGET_WEIGHT[s["value_target"]])
        self.opponent_results: dict[str, list[float]] = games.opponent_results
        active = list(range(len(states)))
        while active:
            active = games.play_opponents(active)
            if not active:
                break
            waiting = [states[g] for g in active]
            results = expert_results(expert, waiting) if expert else search.run(waiting)
            own = self.dagger_moves(games, active) if expert and s["expert_moves"] < 1.0 else {}
            active = self.play_decisions(games, active, results, own)
        chunk = games.chunk()
        if self.mixture is not None:
            chunk["options"] = np.array(options_key(self.playing.options))
        return chunk

    def network_for(self, options: dict):
        """The network built for the configuration ``options``, sharing the run's weights."""
        key = options_key(options)
        if key not in self.networks:
            game = game_of(self.env_id, key)
            policy = build_policy(self.config["policy"], game.observation_shape, game.num_actions, **game_layout(game))
            self.networks[key] = share_weights(policy, self.policy)
        return self.networks[key]

    def new_search(self) -> PUCTSearch:
        """The iteration's search, guided by the current network: PUCT with root noise, or
        with ``policy_target: gumbel`` the Gumbel root with its noise."""
        s = self.settings
        gumbel = s["policy_target"] == "gumbel"
        return PUCTSearch(NetworkEvaluator(self.playing.policy), s["simulations"], s["c_puct"], rng=self.rng,
                          root_noise=not gumbel, noise_fraction=s["noise_fraction"], noise_alpha=s["noise_alpha"],
                          rollout_weight=s["rollout_weight"], rollout_policy=s["rollout_policy"], solver=s["solver"],
                          root="gumbel" if gumbel else "puct", gumbel_k=s["gumbel_k"], c_scale=s["c_scale"],
                          exact_nodes=s["exact_nodes"])

    def new_expert(self):
        """The ``alphazero.expert`` agent, seeded from the run's generator, or None."""
        if not self.playing.expert:
            return None
        from sky_envs.agents import make_agent, split_spec

        # a checkpoint's search solves its roots too (alpha-beta searches without a network)
        exact = ({"exact_nodes": self.settings["exact_nodes"]}
                 if self.settings["exact_nodes"] and split_spec(self.playing.expert)[0].endswith(".pt") else {})
        return make_agent(self.playing.expert, env_id=self.env_id, env_options=self.playing.options,
                          seed=int(self.rng.integers(2**31)), **exact)

    def dagger_moves(self, games: "IterationGames", active: list[int]) -> dict[int, int]:
        """DAgger (``alphazero.expert_moves`` below 1): the games, each drawn with the
        network's share, where the network plays the expert-labelled decision itself, and
        the network's move in each."""
        mine = [g for g in active if self.rng.random() >= self.settings["expert_moves"]]
        return dict(zip(mine, self.network_moves([games.states[g] for g in mine])))

    def play_decisions(self, games: "IterationGames", active: list[int], results: list[tuple],
                       own: dict[int, int]) -> list[int]:
        """Record each searched decision (observation, policy target, root value) and play
        the learner's move in its game; returns the games still going."""
        still = []
        for g, result in zip(active, results):
            actions, _, root_value = result
            state = games.states[g]
            player = state.current_player
            target = policy_target(result, self.settings["policy_target"])
            games.records[g].append((state.observation(player), player, actions, target.astype(np.float32), root_value))
            action = own[g] if g in own else self.learner_move(result, len(games.records[g]))
            state.apply_unchecked(action)
            if state.current_player >= 0:
                still.append(g)
            else:
                games.finish(g)
        return still

    def learner_move(self, result: SearchResult, decisions: int) -> int:
        """The searched move played: the Gumbel root's choice where it made one; else sampled
        from the visit shares for a game's first ``temperature_moves`` decisions
        (``decisions`` counts this one), later one of the most visited at random."""
        if result.action is not None:
            return result.action
        actions, visits, _ = result
        if decisions <= self.settings["temperature_moves"]:
            return int(actions[self.rng.choice(actions.size, p=visits / visits.sum())])
        best = np.flatnonzero(visits == visits.max())
        return int(actions[best[self.rng.integers(best.size)]])

    def network_moves(self, states: list) -> list[int]:
        """The network's most likely legal action in each state (the raw policy's move)."""
        if not states:
            return []
        observations = np.stack([state.observation(state.current_player) for state in states])
        masks = np.stack([state.legal_mask() for state in states])
        return NetworkEvaluator(self.playing.policy).masked_logits(observations, masks).argmax(dim=1).tolist()

    def pick_opponents(self, count: int) -> tuple[list, list[int]]:
        """Per game: the baseline actor that plays every seat but one (None: self-play, the
        search plays them all) and the seat the learner searches for, rotating game by game.
        Baselines are seeded from the run's generator, so a resumed iteration replays exactly."""
        from sky_envs.agents import make_agent
        from .actors import actor_for

        shares = self.settings["opponents"]
        names = sorted(shares)
        actors = [actor_for(make_agent(name, seed=int(self.rng.integers(2**31))), seed=int(self.rng.integers(2**31)))
                  for name in names]
        bounds = np.cumsum([shares[name] for name in names])
        opponent_of, searched_seat = [], []
        for g in range(count):
            k = int(np.searchsorted(bounds, self.rng.random(), side="right"))
            opponent_of.append(actors[k] if k < len(actors) else None)
            searched_seat.append((self.iteration * count + g) % self.playing.game.num_players)
        return opponent_of, searched_seat

    # --------------------------------------------------------------- learning
    def learn(self, new_samples: int) -> dict[str, float]:
        import torch

        s = self.settings
        updates = max(1, round(s["replay_ratio"] * new_samples / s["batch_size"]))
        self.policy.set_training_mode(True)
        policy_losses, value_losses = [], []
        for _ in range(updates):
            total, policy_loss, value_loss = 0.0, 0.0, 0.0
            for game, policy, observations, masks, targets, values in self.minibatch():
                if s["symmetries"]:  # a mirrored position's best moves are the mirrored moves, its value the same
                    symmetries = game.symmetries
                    which = self.rng.integers(len(symmetries), size=len(values))
                    observations, masks, targets = symmetries.transform(which, observations, masks, targets)
                obs = torch.as_tensor(observations)
                logits, predicted = forward(policy, obs)
                logits = logits.masked_fill(~torch.as_tensor(masks), -1e9)
                target = torch.as_tensor(targets)
                share = len(values) / s["batch_size"]  # each configuration's part of the minibatch's mean
                group_policy_loss = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
                group_value_loss = ((predicted - torch.as_tensor(values)) ** 2).mean()
                total = total + share * (group_policy_loss + group_value_loss)
                policy_loss += share * group_policy_loss.item()
                value_loss += share * group_value_loss.item()
            self.optimizer.zero_grad()
            total.backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 5.0)
            self.optimizer.step()
            policy_losses.append(policy_loss)
            value_losses.append(value_loss)
        self.policy.set_training_mode(False)
        return {"policy_loss": float(np.mean(policy_losses)), "value_loss": float(np.mean(value_losses)),
                "updates": updates}

    def minibatch(self) -> list[tuple]:
        """``alphazero.batch_size`` samples from the buffer, per configuration drawn: ``(game,
        network, observations, masks, policy targets, value targets)`` (one group without a mixture)."""
        size = self.settings["batch_size"]
        if self.mixture is None:
            return [(self.game, self.policy, *self.buffer.sample(size, self.rng))]
        groups = self.buffer.sample_groups(size, self.rng, lambda key: game_of(self.env_id, key).num_actions)
        return [(game_of(self.env_id, key), self.network_for(json.loads(key)), *rows) for key, *rows in groups]

    # ------------------------------------------------------------ checkpoints
    def metadata(self) -> dict:
        ranges = self.mixture.option_ranges() if self.mixture is not None else None
        return policy_metadata(self.game, self.options, self.config["policy"], option_ranges=ranges,
                               algorithm="alphazero expert iteration",
                               steps=int(self.steps_done), iterations=self.iteration, seed=self.seed,
                               wall_clock_s=round(self.seconds, 1), command=self.command,
                               **({"init_from": self.init_from} if self.init_from else {}))

    def save(self) -> None:
        """Everything a resume needs, each file written atomically, the run state last."""
        import torch

        self.run_dir.mkdir(parents=True, exist_ok=True)
        replay = self.run_dir / "replay"
        replay.mkdir(exist_ok=True)
        keep = set(self.buffer.names)
        for name, chunk in zip(self.buffer.names, self.buffer.chunks):
            path = replay / name
            if not path.exists():
                atomic_write(path, lambda handle, c=chunk: np.savez(handle, **c))
        trainer = {"policy": self.policy.state_dict(), "optimizer": self.optimizer.state_dict()}
        atomic_write(self.run_dir / "trainer_state.pt", lambda handle: torch.save(trainer, handle))
        state = {"env_id": self.env_id, "env_options": self.options, "config": self.config,
                 "steps_done": int(self.steps_done), "iteration": self.iteration, "seconds": self.seconds,
                 "rng": self.rng.bit_generator.state, "torch_rng": torch.get_rng_state().tolist(),
                 "checkpoints": [os.path.relpath(p, self.run_dir) for p in self.checkpoints],
                 "command": self.command, "init_from": self.init_from,
                 "quick_evals": self.quick_evals, "replay": sorted(keep)}
        text = json.dumps(state, indent=2).encode()
        atomic_write(self.run_dir / STATE, lambda handle: handle.write(text))
        for path in replay.iterdir():  # chunks that left the buffer, and temp files of an interrupted save
            if path.name not in keep:
                path.unlink()

    def restore(self) -> None:
        import torch

        state_path = self.run_dir / STATE
        if not state_path.is_file() or not (self.run_dir / "trainer_state.pt").is_file():
            raise ValueError(f"cannot resume: {str(self.run_dir)!r} holds no run_state.json and trainer_state.pt")
        state = json.loads(state_path.read_text())
        if state["env_id"] != self.env_id or state["env_options"] != self.options:
            raise ValueError(f"cannot resume: the run in {str(self.run_dir)!r} trained {state['env_id']} "
                             f"{state['env_options']}, not {self.env_id} {self.options}")
        trainer = torch.load(self.run_dir / "trainer_state.pt", map_location="cpu", weights_only=True)
        self.policy.load_state_dict(trainer["policy"])
        self.optimizer.load_state_dict(trainer["optimizer"])
        self.steps_done, self.iteration, self.seconds = state["steps_done"], state["iteration"], state["seconds"]
        self.rng.bit_generator.state = state["rng"]
        torch.set_rng_state(torch.tensor(state["torch_rng"], dtype=torch.uint8))
        self.checkpoints = [str(self.run_dir / p) for p in state["checkpoints"]]
        if state.get("command") and self.command:  # the run's whole history: started, then resumed
            self.command = f"{state['command']} ; {self.command}"
        self.quick_evals = list(state["quick_evals"])
        self.init_from = state.get("init_from")
        for path in self.run_dir.glob("*.tmp"):  # left by a process killed while saving
            path.unlink()
        for name in state["replay"]:
            with np.load(self.run_dir / "replay" / name) as data:
                self.buffer.add({key: data[key] for key in data.files}, name)

    def quick_eval(self) -> dict:
        scores = {"steps": int(self.steps_done),
                  **quick_scores(self.env_id, self.options, self.policy, self.config["train"]["quick_eval_games"],
                                 seed=10_000 + self.iteration, agent_seed=self.seed)}
        self.quick_evals.append(scores)
        return scores

    # ------------------------------------------------------------------ train
    def train(self, resume: bool = False, callback=None) -> Path:
        """Train to ``train.timesteps`` recorded decisions; returns the final checkpoint.
        ``callback(run)`` is called after every iteration; returning False stops early."""
        from torch.utils.tensorboard import SummaryWriter
        from tqdm import tqdm

        from .signals import deferred_interrupts, interrupts_as_keyboard

        if resume:
            self.restore()
            self.log(f"resuming {self.env_id} at decision {self.steps_done} (iteration {self.iteration}) from {self.run_dir}")
        elif (self.run_dir / STATE).exists():
            raise ValueError(f"{str(self.run_dir)!r} already holds a run: pass resume=True (--resume) or another folder")
        else:
            self.save()  # a run interrupted in its first iteration resumes from the start
        total, every = self.config["train"]["timesteps"], self.config["train"]["checkpoint_every"]
        writer = SummaryWriter(str(self.run_dir / "tb" / "alphazero"))
        bar = tqdm(total=total, initial=min(self.steps_done, total), disable=not self.progress, unit="decision")
        try:
            with interrupts_as_keyboard():
                while self.steps_done < total:
                    started = time.perf_counter()
                    chunk = self.play_games()
                    played = time.perf_counter()
                    new = len(chunk["values"])
                    self.buffer.add(chunk, f"iteration_{self.iteration + 1:06d}.npz")
                    losses = self.last_losses = self.learn(new)
                    self.seconds += time.perf_counter() - started
                    before, self.steps_done, self.iteration = self.steps_done, self.steps_done + new, self.iteration + 1
                    rate = new / max(played - started, 1e-9)
                    for key, value in {**losses, "decisions_per_s": rate, "buffer": len(self.buffer),
                                       "value_target_mean_abs": float(np.abs(chunk["values"]).mean())}.items():
                        writer.add_scalar(f"alphazero/{key}", value, self.steps_done)
                    for name, results in self.opponent_results.items():
                        writer.add_scalar(f"alphazero/score_vs_{name}", float(np.mean(results)), self.steps_done)
                    bar.update(new)
                    bar.set_postfix(decisions_per_s=f"{rate:.0f}", policy_loss=f"{losses['policy_loss']:.3f}",
                                    value_loss=f"{losses['value_loss']:.3f}")
                    if self.steps_done // every > before // every or self.steps_done >= total:
                        scores = self.quick_eval()
                        for name in ("random", "greedy"):
                            writer.add_scalar(f"eval/score_vs_{name}", scores[name], self.steps_done)
                        with deferred_interrupts():
                            path = save_checkpoint(self.run_dir / "checkpoints" / f"step_{self.steps_done:09d}.pt",
                                                   self.policy, self.metadata())
                            self.checkpoints.append(str(path))
                            self.save()
                        self.log(f"decision {self.steps_done}: checkpoint {path.name}; score vs random "
                                 f"{scores['random']:.2f}, vs greedy {scores['greedy']:.2f}")
                    else:
                        with deferred_interrupts():
                            self.save()
                    if callback is not None and callback(self) is False:
                        break
        except KeyboardInterrupt:
            # the folder holds the run as of its last finished iteration (saved after each one)
            self.log(f"interrupted: the run is saved as of its last finished iteration; continue with "
                     f"--resume {self.run_dir}")
            raise
        finally:
            bar.close()
            writer.close()
        final = save_checkpoint(self.run_dir / "final.pt", self.policy, self.metadata())
        self.log(f"trained on {self.steps_done} decisions in {self.seconds:.0f} s; final policy {final}")
        return final

    def evaluate(self, policy_path: Path) -> dict:
        return evaluate_policy(self.env_id, self.options, policy_path, self.config["eval"], self.seed, self.run_dir,
                               self.log, training_steps=int(self.steps_done))


__all__ = ["ExpertIterationRun", "ReplayBuffer"]
