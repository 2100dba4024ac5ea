"""Expert iteration (train.algorithm: alphazero) on tiny budgets: checkpoints, resume, learning."""

import json

import numpy as np
import pytest
import torch

from sky_envs.agents import SearchAgent, load_checkpoint, make_agent
from sky_envs.agents.search import PUCTSearch
from training.alphazero import ExpertIterationRun, ReplayBuffer
from training.config import load_config

from .golden.make_golden import CASES as GOLDEN_CASES
from .golden.make_golden import facts as golden_facts
from .golden.make_golden import file_path as golden_file

TINY = {
    "env.id": "sky_scrapers_v0",
    "env.options": {"board": "square", "rows": 4, "cols": 4, "positioning": "random"},
    "train.algorithm": "alphazero", "train.timesteps": 150, "train.checkpoint_every": 60,
    "train.quick_eval_games": 2,
    "policy": {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 2, "head_hidden": [16]},
    "alphazero.simulations": 6, "alphazero.parallel_games": 4, "alphazero.batch_size": 16,
    "eval.games": 2, "eval.opponents": ["random"], "eval.search_simulations": 4,
}


def tiny_config(**changes):
    return load_config(None, **{**TINY, **changes})


def quiet(*_):
    pass


def weights(run):
    return {name: tensor.clone() for name, tensor in run.policy.state_dict().items()}


def test_a_run_writes_checkpoints_and_a_report_with_search(tmp_path):
    run = ExpertIterationRun(tiny_config(), tmp_path, progress=False, log=quiet)
    run.command = "python -m training.train --config tiny.yaml"
    final = run.train()
    report = run.evaluate(final)
    assert run.steps_done >= 150 and len(run.checkpoints) >= 2
    policy, metadata = load_checkpoint(final, env_id="sky_scrapers_v0", env_options=TINY["env.options"])
    assert metadata["training"]["algorithm"] == "alphazero expert iteration"
    assert metadata["training"]["steps"] == run.steps_done and metadata["training"]["command"] == run.command
    assert {"policy", "policy@4", "random"} <= set(report["ratings"])
    assert (tmp_path / "evaluation.json").is_file()
    agent = make_agent(f"{final}@4", env_id="sky_scrapers_v0", env_options=TINY["env.options"])
    assert isinstance(agent, SearchAgent)


@pytest.mark.parametrize("settings", [{}, {"alphazero.opponents": {"greedy": 0.5}},
                                      {"alphazero.expert": "alphabeta@1", "alphazero.expert_moves": 0.5},
                                      {"alphazero.solver": True, "alphazero.rollout_weight": 0.5,
                                       "alphazero.rollout_policy": "greedy"},
                                      {"alphazero.policy_target": "gumbel", "alphazero.gumbel_k": 4}])
def test_an_interrupted_run_resumes_to_exactly_the_uninterrupted_result(tmp_path, settings):
    def tiny_config(**changes):  # the module's, with these baseline opponents or expert
        return load_config(None, **{**TINY, **settings, **changes})

    straight = ExpertIterationRun(tiny_config(), tmp_path / "straight", progress=False, log=quiet)
    straight.train()

    def interrupt_after_two(run):
        if run.iteration == 2:
            raise KeyboardInterrupt

    first = ExpertIterationRun(tiny_config(), tmp_path / "cut", progress=False, log=quiet)
    with pytest.raises(KeyboardInterrupt):
        first.train(callback=interrupt_after_two)
    state = json.loads((tmp_path / "cut" / "run_state.json").read_text())
    assert state["iteration"] == 2
    (tmp_path / "cut" / "trainer_state.ptjunk.tmp").write_bytes(b"half")  # a save cut short by SIGKILL
    resumed = ExpertIterationRun(tiny_config(), tmp_path / "cut", progress=False, log=quiet)
    resumed.train(resume=True)
    assert resumed.steps_done == straight.steps_done and resumed.iteration == straight.iteration
    for name, tensor in weights(straight).items():
        assert torch.equal(tensor, weights(resumed)[name]), name
    assert not list((tmp_path / "cut").glob("*.tmp"))


def test_resume_refuses_a_folder_without_a_run_and_a_run_over_another(tmp_path):
    with pytest.raises(ValueError, match="cannot resume"):
        ExpertIterationRun(tiny_config(), tmp_path, progress=False, log=quiet).train(resume=True)
    ExpertIterationRun(tiny_config(**{"train.timesteps": 10}), tmp_path, progress=False, log=quiet).train()
    with pytest.raises(ValueError, match="already holds a run"):
        ExpertIterationRun(tiny_config(), tmp_path, progress=False, log=quiet).train()


def test_replay_buffer_keeps_the_newest_samples_and_builds_dense_targets():
    buffer = ReplayBuffer(capacity=5, num_actions=4)
    for k in range(4):
        buffer.add({"observations": np.full((2, 3), k, np.float32), "offsets": np.array([0, 2, 3]),
                    "actions": np.array([0, 3, 1], np.int32), "shares": np.array([0.25, 0.75, 1.0], np.float32),
                    "values": np.array([1.0, -1.0], np.float32)}, f"chunk{k}")
    assert buffer.names == ["chunk1", "chunk2", "chunk3"] and len(buffer) == 6
    observations, masks, targets, values = buffer.sample(50, np.random.default_rng(0))
    assert set(observations[:, 0]) <= {1.0, 2.0, 3.0}
    first = values == 1.0
    assert np.allclose(targets[first], [0.25, 0, 0, 0.75]) and np.array_equal(masks[first][0], [1, 0, 0, 1])
    assert np.allclose(targets[~first], [0, 1, 0, 0]) and np.allclose(targets.sum(axis=1), 1)


def test_training_learns_a_position_it_sees_again_and_again(tmp_path):
    """The losses fall: expert iteration fits its own targets on a fixed tiny game."""
    config = tiny_config(**{"train.timesteps": 400, "alphazero.replay_ratio": 8.0})
    run = ExpertIterationRun(config, tmp_path, progress=False, log=quiet)
    losses = []
    run.train(callback=lambda r: losses.append(r.last_losses))
    assert losses[-1]["policy_loss"] < losses[0]["policy_loss"]


def test_baseline_opponents_play_every_seat_but_the_learners(tmp_path, monkeypatch):
    """``alphazero.opponents``: that share of the games seats the baseline everywhere but one
    seat (rotating); only the searching seat's decisions become samples."""
    run = ExpertIterationRun(tiny_config(**{"alphazero.opponents": {"random": 1.0}}), tmp_path, progress=False,
                             log=quiet)
    opponents, seats = run.pick_opponents(4)
    assert [actor.name for actor in opponents] == ["random"] * 4 and sorted(seats) == [0, 0, 1, 1]
    self_play = ExpertIterationRun(tiny_config(), tmp_path / "self", progress=False, log=quiet)
    assert self_play.pick_opponents(4)[0] == [None] * 4

    decided = []  # (game id, seat) of every position the search decided
    search_run = PUCTSearch.run

    def recording_run(search, states):
        decided.extend((id(state), state.current_player) for state in states)
        return search_run(search, states)

    monkeypatch.setattr(PUCTSearch, "run", recording_run)
    chunk = run.play_games()
    assert len(chunk["values"]) == len(decided)
    seats_per_game = {}
    for game, seat in decided:
        seats_per_game.setdefault(game, set()).add(seat)
    assert all(len(seats) == 1 for seats in seats_per_game.values()) and len(seats_per_game) == 4
    assert len(run.opponent_results["random"]) == 4
    assert set(run.opponent_results["random"]) <= {0.0, 0.5, 1.0}
    assert set(np.unique(chunk["values"])) <= {-1.0, 0.0, 1.0}


def test_bad_baseline_opponents_are_refused():
    for bad in ({"mcts": 0.5}, {"greedy": 0.7, "random": 0.5}, {"greedy": -0.1}, ["greedy"]):
        with pytest.raises(ValueError, match="alphazero.opponents must map baseline names"):
            tiny_config(**{"alphazero.opponents": bad})


def test_an_expert_plays_and_teaches_the_learners_decisions(tmp_path, monkeypatch):
    """``alphazero.expert: alphabeta@D``: the classical searcher decides for the learner
    (PUCT search never runs) and every sample's target is its best moves, in equal shares."""
    from sky_envs.agents import AlphaBetaAgent

    run = ExpertIterationRun(tiny_config(**{"alphazero.expert": "alphabeta@1", "alphazero.opponents": {"random": 0.5}}),
                             tmp_path, progress=False, log=quiet)
    taught = []
    best_actions = AlphaBetaAgent.best_actions

    def recording(agent, state):
        best, value = best_actions(agent, state)
        taught.append(tuple(sorted(best)))
        return best, value

    monkeypatch.setattr(AlphaBetaAgent, "best_actions", recording)
    monkeypatch.setattr(PUCTSearch, "run", lambda *_: pytest.fail("PUCT search ran with an expert"))
    chunk = run.play_games()
    targets = []
    for k in range(len(chunk["values"])):
        part = slice(chunk["offsets"][k], chunk["offsets"][k + 1])
        shares, actions = chunk["shares"][part], chunk["actions"][part]
        support = actions[shares > 0]
        np.testing.assert_allclose(shares[shares > 0], 1.0 / support.size)
        targets.append(tuple(sorted(support.tolist())))
    assert sorted(targets) == sorted(taught) and len(taught) > 0
    run.train()   # and a whole (tiny) run learns from it
    assert run.steps_done >= TINY["train.timesteps"]


def test_the_network_plays_its_share_of_an_experts_decisions(tmp_path, monkeypatch):
    """``alphazero.expert_moves: 0``: the network plays every learner decision itself (its
    most likely legal move), each still labelled with the expert's best moves (DAgger);
    at the default 1 it plays none."""
    def run_with(moves, folder):
        run = ExpertIterationRun(tiny_config(**{"alphazero.expert": "alphabeta@1", "alphazero.expert_moves": moves}),
                                 tmp_path / folder, progress=False, log=quiet)
        asked = []
        network_moves = ExpertIterationRun.network_moves

        def recording(self, states):
            picked = network_moves(self, states)
            for state, action in zip(states, picked):
                assert state.legal_mask()[action]
            asked.extend(picked)
            return picked

        monkeypatch.setattr(ExpertIterationRun, "network_moves", recording)
        return run.play_games(), asked

    chunk, asked = run_with(0.0, "dagger")
    assert len(asked) == len(chunk["values"]) > 0
    for k in range(len(chunk["values"])):
        part = slice(chunk["offsets"][k], chunk["offsets"][k + 1])
        assert chunk["shares"][part].max() > 0   # labelled by the expert all the same
    chunk, asked = run_with(1.0, "expert")
    assert asked == [] and len(chunk["values"]) > 0
    with pytest.raises(ValueError, match="alphazero.expert_moves must be a share from 0 to 1"):
        tiny_config(**{"alphazero.expert_moves": 1.5})


def test_a_checkpoints_search_teaches_its_visit_counts(tmp_path, monkeypatch):
    """``alphazero.expert: teacher.pt@N``: a fixed network's PUCT search (its recorded
    settings, no root noise) labels every learner decision with its visit counts, and the
    learner's own search never runs; a whole (tiny) run learns from it."""
    from sky_envs.agents.checkpoint import policy_metadata, save_checkpoint

    teacher = ExpertIterationRun(tiny_config(), tmp_path / "teacher", progress=False, log=quiet)
    path = save_checkpoint(tmp_path / "teacher.pt", teacher.policy,
                           {**policy_metadata(teacher.game, TINY["env.options"], TINY["policy"]),
                            "search": {"rollout_weight": 0.5, "rollout_policy": "greedy", "solver": True}})
    run = ExpertIterationRun(tiny_config(**{"alphazero.expert": f"{path}@5", "alphazero.expert_moves": 0.5}),
                             tmp_path / "learner", progress=False, log=quiet)
    searches, run_search = [], PUCTSearch.run

    def recording(search, states):
        assert not search.root_noise and search.solver and search.rollout_policy == "greedy"
        results = run_search(search, states)
        searches.extend(visits.copy() for _, visits, _ in results)
        return results

    monkeypatch.setattr(PUCTSearch, "run", recording)
    chunk = run.play_games()

    def rounded(shares):
        return tuple(round(float(share), 4) for share in shares)

    taught = sorted(rounded(visits / visits.sum()) for visits in searches)
    targets = sorted(rounded(chunk["shares"][chunk["offsets"][k]:chunk["offsets"][k + 1]])
                     for k in range(len(chunk["values"])))
    assert len(taught) > 0 and targets == taught
    run.train()
    assert run.steps_done >= TINY["train.timesteps"]


def test_a_best_move_target_teaches_the_most_visited_moves_in_equal_shares(tmp_path, monkeypatch):
    """``alphazero.policy_target: best``: each sample's target is the search's most visited
    moves (those it plays), not the moves it only tried."""
    run = ExpertIterationRun(tiny_config(**{"alphazero.policy_target": "best"}), tmp_path, progress=False, log=quiet)
    searches, run_search = [], PUCTSearch.run

    def recording(search, states):
        results = run_search(search, states)
        searches.extend(visits.copy() for _, visits, _ in results)
        return results

    monkeypatch.setattr(PUCTSearch, "run", recording)
    chunk = run.play_games()
    spread = sum(np.count_nonzero(visits) > np.count_nonzero(visits == visits.max()) for visits in searches)
    taught = sorted(tuple((visits == visits.max()) / np.count_nonzero(visits == visits.max())) for visits in searches)
    targets = sorted(tuple(chunk["shares"][chunk["offsets"][k]:chunk["offsets"][k + 1]].astype(np.float64))
                     for k in range(len(chunk["values"])))
    assert spread > 0 and np.allclose(np.concatenate(taught), np.concatenate(targets))
    with pytest.raises(ValueError, match="alphazero.policy_target must be 'visits', 'best' or 'gumbel'"):
        tiny_config(**{"alphazero.policy_target": "argmax"})


def test_a_gumbel_target_teaches_the_improved_policy_and_plays_the_roots_choice(tmp_path, monkeypatch):
    """``alphazero.policy_target: gumbel``: self-play searches with the Gumbel root (no
    Dirichlet noise), each sample's target is the search's improved policy (not its visit
    shares) and every move played is the action its root selected, from the first decision."""
    run = ExpertIterationRun(tiny_config(**{"alphazero.policy_target": "gumbel", "alphazero.gumbel_k": 4,
                                            "alphazero.simulations": 8}), tmp_path, progress=False, log=quiet)
    results, played, run_search = [], [], PUCTSearch.run
    learner_move = ExpertIterationRun.learner_move

    def recording(search, states):
        assert search.root == "gumbel" and search.gumbel_k == 4 and not search.root_noise
        out = run_search(search, states)
        results.extend(out)
        return out

    def recording_move(self, result, decisions):
        played.append((result, learner_move(self, result, decisions)))
        return played[-1][1]

    monkeypatch.setattr(PUCTSearch, "run", recording)
    monkeypatch.setattr(ExpertIterationRun, "learner_move", recording_move)
    chunk = run.play_games()
    targets = [chunk["shares"][chunk["offsets"][k]:chunk["offsets"][k + 1]] for k in range(len(chunk["values"]))]
    assert len(targets) == len(results) > 0

    def rounded(shares):
        return tuple(np.round(np.asarray(shares, dtype=np.float64), 5))

    assert sorted(map(rounded, targets)) == sorted(rounded(result.policy) for result in results)
    assert any(not np.allclose(result.policy, result.visits / result.visits.sum(), atol=1e-3) for result in results)
    assert all(action == result.action for result, action in played) and len(played) == len(results)
    with pytest.raises(ValueError, match="alphazero.policy_target 'gumbel' teaches the improved policy"):
        tiny_config(**{"alphazero.policy_target": "gumbel", "alphazero.expert": "alphabeta@1"})
    with pytest.raises(ValueError, match="gumbel_k must be a positive integer"):
        tiny_config(**{"alphazero.gumbel_k": 0})


@pytest.mark.parametrize("value_target", ["search", "mean"])
def test_a_search_value_target_teaches_the_root_value(tmp_path, monkeypatch, value_target):
    """``alphazero.value_target: search``: each sample's value target is its search's root
    value for the deciding seat; ``mean``: the mean of that and the game's outcome."""
    run = ExpertIterationRun(tiny_config(**{"alphazero.value_target": value_target}), tmp_path, progress=False,
                             log=quiet)
    roots, run_search = {}, PUCTSearch.run

    def recording(search, states):
        results = run_search(search, states)
        for state, (_, _, root_value) in zip(states, results):
            roots[state.observation(state.current_player).tobytes()] = root_value
        return results

    monkeypatch.setattr(PUCTSearch, "run", recording)
    chunk = run.play_games()
    searched = np.array([roots[observation.tobytes()] for observation in chunk["observations"]])
    assert len(searched) > 0 and np.abs(searched).max() > 0
    if value_target == "search":
        assert np.allclose(chunk["values"], searched, atol=1e-6)
    else:  # outcome = 2 * target - root value: a win, a draw or a loss
        outcomes = 2 * chunk["values"] - searched
        assert np.allclose(outcomes, np.round(outcomes), atol=1e-5) and set(np.round(outcomes)) <= {-1, 0, 1}
        assert not np.allclose(chunk["values"], searched)


def test_bad_value_targets_are_refused():
    with pytest.raises(ValueError, match="alphazero.value_target must be 'outcome', 'search' or 'mean'"):
        tiny_config(**{"alphazero.value_target": "returns"})
    with pytest.raises(ValueError, match="an alpha-beta expert gives only its best moves"):
        tiny_config(**{"alphazero.value_target": "search", "alphazero.expert": "alphabeta@2"})


def test_bad_experts_are_refused():
    for bad in ("mcts@100", "alphabeta@0", "alphabeta@x", 3, "teacher.pt", "teacher.pt@0", "teacher@5"):
        with pytest.raises(ValueError, match="alphazero.expert must be null"):
            tiny_config(**{"alphazero.expert": bad})
    assert tiny_config(**{"alphazero.expert": "alphabeta"})["alphazero"]["expert"] == "alphabeta"


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_tiny_runs_give_their_recorded_samples_scores_losses_and_weights(case):
    """The golden runs of tests/training/golden (written by its make_golden, taken at the
    commit before play_games was split into named steps): the positions, actions and scores
    exactly, the float targets, losses and weights to a relative 1e-4."""
    expected = json.loads(golden_file(case).read_text())
    got = golden_facts(case)
    assert len(got["iterations"]) == len(expected["iterations"])
    for index, (mine, theirs) in enumerate(zip(got["iterations"], expected["iterations"])):
        for key in ("observations", "offsets", "actions", "opponent_results"):
            assert mine[key] == theirs[key], f"iteration {index}: {key} differ"
        for key in ("shares", "values"):
            np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-4, atol=1e-6, err_msg=f"iteration {index}: {key}")
        assert mine["learn"]["updates"] == theirs["learn"]["updates"]
        for key in ("policy_loss", "value_loss"):
            assert mine["learn"][key] == pytest.approx(theirs["learn"][key], rel=1e-4), f"iteration {index}: {key}"
    assert list(got["weights"]) == list(expected["weights"])
    for name, (shape, total, absolute) in expected["weights"].items():
        assert got["weights"][name][0] == shape, name
        assert got["weights"][name][1:] == pytest.approx([total, absolute], rel=1e-4, abs=1e-5), name


@pytest.mark.parametrize("with_expert", [False, True])
def test_exact_nodes_teaches_only_the_moves_that_keep_the_proven_result(tmp_path, monkeypatch, with_expert):
    """``alphazero.exact_nodes``: every root of the learner's search (or of a checkpoint
    expert's) that the solver solves is searched over moves that keep its value only, so the
    moves that throw the proven result away get no share of the target."""
    from sky_envs.agents.checkpoint import policy_metadata, save_checkpoint
    from sky_envs.agents.solver import MoveSolver

    changes = {"alphazero.exact_nodes": 50_000}
    if with_expert:
        teacher = ExpertIterationRun(tiny_config(), tmp_path / "teacher", progress=False, log=quiet)
        path = save_checkpoint(tmp_path / "teacher.pt", teacher.policy,
                               policy_metadata(teacher.game, TINY["env.options"], TINY["policy"]))
        changes.update({"alphazero.expert": f"{path}@5"})
    run = ExpertIterationRun(tiny_config(**changes), tmp_path / "run", progress=False, log=quiet)
    searched, solved, run_search, best_moves = [], {}, PUCTSearch.run, MoveSolver.best_moves

    def recording(search, states):
        assert search.exact is not None and search.root_noise != with_expert
        results = run_search(search, states)
        searched.extend((state.clone(), result) for state, result in zip(states, results))
        return results

    def recording_solver(solver, state):
        answer = best_moves(solver, state)
        solved[state.to_text()] = answer
        return answer

    monkeypatch.setattr(PUCTSearch, "run", recording)
    monkeypatch.setattr(MoveSolver, "best_moves", recording_solver)
    run.play_games()
    narrowed = 0
    for state, result in searched:
        assert np.array_equal(result.actions, state.legal_actions())
        answer = solved[state.to_text()]
        if answer is None or answer[1].all():
            continue
        value, keep = answer
        assert result.visits[~keep].sum() == 0 and result.visits.sum() > 0
        values = np.array(list(state.game.exact_solver().solve_moves(state).values()))   # every move, no budget
        assert value == values.max() and (values[keep] == value).all()
        narrowed += 1
    assert narrowed >= 5


def test_exact_nodes_is_refused_with_an_alpha_beta_expert_and_when_not_a_count():
    with pytest.raises(ValueError, match="alphazero.exact_nodes solves the roots of a network's search"):
        tiny_config(**{"alphazero.exact_nodes": 1000, "alphazero.expert": "alphabeta@2"})
    with pytest.raises(ValueError, match="alphazero.exact_nodes must be an integer >= 0"):
        tiny_config(**{"alphazero.exact_nodes": -1})
