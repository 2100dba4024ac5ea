"""Expert iteration over many option sets (``env.mixture``, :mod:`training.mixture`): what an
iteration draws, the option ranges a run's checkpoints record, a run that trains over mixed
boards and resumes exactly, and the errors of a bad mixture."""

import collections

import numpy as np
import pytest
import torch
import yaml

from sky_envs.agents.checkpoint import load_checkpoint, option_ranges_error
from tests import REPO_ROOT
from tests.agents.test_universal_network import ANY
from tests.training.training_support import one_torch_thread, quiet  # noqa: F401 (fixture)
from training.alphazero import ExpertIterationRun
from training.config import expert_error, load_config
from training.mixture import OptionMixture, game_of, options_key

RECIPE = REPO_ROOT / "configs/recipes/sky_scrapers_v0/universal/1_every_board.yaml"


def test_the_recipes_mixture_draws_valid_option_sets_in_proportion():
    mixture = OptionMixture("sky_scrapers_v0", yaml.safe_load(RECIPE.read_text())["env"]["mixture"], expert_error)
    ranges = mixture.option_ranges()
    assert ranges == {"board": ["random", "square", "standard"], "cols": {"min": 4, "max": 10},
                      "lines": ["all", "hex", "orthogonal"], "players": {"min": 2, "max": 4},
                      "positioning": ["random", "standard", "strategic"], "rows": {"min": 4, "max": 10},
                      "skyscraper_height": {"min": 4, "max": 4}}
    every = [options_key(options) for k in range(len(mixture.entries)) for options in mixture.configurations(k)]
    rng, experts, seen = np.random.default_rng(0), collections.Counter(), collections.Counter()
    draws = 400
    for _ in range(draws):
        options, expert = mixture.draw(rng)
        assert options_key(options) in every
        game = game_of("sky_scrapers_v0", options_key(options))
        assert option_ranges_error(ranges, game) is None
        state = game.new_initial_state(rng)
        assert state.legal_actions().size > 0
        experts[expert] += 1
        seen.update([("rows", game.rows), ("players", game.num_players), ("lines", options.get("lines"))])
    # the specialist's entry has weight 0.5 of 4: an eighth of the iterations, with its expert
    assert set(experts) == {None, "checkpoints/sky_scrapers_v0/policy.pt@50"}
    assert 25 <= experts["checkpoints/sky_scrapers_v0/policy.pt@50"] <= 80
    assert {rows for (name, rows) in seen if name == "rows"} == set(range(4, 11))
    assert {("players", 2), ("players", 4), ("lines", "hex"), ("lines", "orthogonal")} <= set(seen)


MIXED = {
    "env.id": "sky_scrapers_v0",
    "env.options": {"board": "random", "rows": 5, "cols": 5, "positioning": "random"},
    "env.mixture": [
        {"options": {"board": "random", "rows": 5, "cols": 5, "positioning": "random"}, "expert": "alphabeta@1"},
        {"weight": 2, "options": {"board": "random"},
         "draw": [[{"rows": 4, "cols": 4}, {"rows": 5, "cols": 6}], [{"lines": "all"}, {"lines": "hex"}],
                  [{"players": 2}, {"players": 4}], [{"positioning": "random"}, {"positioning": "strategic"}]]}],
    "train.algorithm": "alphazero", "train.timesteps": 240, "train.checkpoint_every": 120,
    "train.quick_eval_games": 2, "policy": ANY,
    "alphazero.simulations": 4, "alphazero.parallel_games": 3, "alphazero.batch_size": 16,
    "alphazero.symmetries": True, "alphazero.value_target": "mean",
    "eval.games": 2, "eval.opponents": ["random"],
}


def weights(run):
    return {name: tensor.clone() for name, tensor in run.policy.state_dict().items()}


def test_a_run_over_mixed_boards_trains_records_its_ranges_and_resumes_exactly(tmp_path):
    straight = ExpertIterationRun(load_config(None, **MIXED), tmp_path / "straight", progress=False, log=quiet)
    final = straight.train()
    chunks = [str(chunk["options"]) for chunk in straight.buffer.chunks]
    assert len(set(chunks)) > 1   # the iterations played several configurations
    _, metadata = load_checkpoint(final)
    assert metadata["option_ranges"] == {"board": ["random"], "cols": {"min": 4, "max": 6}, "lines": ["all", "hex"],
                                         "players": {"min": 2, "max": 4}, "positioning": ["random", "strategic"],
                                         "rows": {"min": 4, "max": 5}}
    load_checkpoint(final, env_id="sky_scrapers_v0", env_options={"board": "random", "rows": 4, "cols": 6,
                                                                  "players": 4, "lines": "hex",
                                                                  "positioning": "strategic"})

    def interrupt_after_two(run):
        if run.iteration == 2:
            raise KeyboardInterrupt

    cut = ExpertIterationRun(load_config(None, **MIXED), tmp_path / "cut", progress=False, log=quiet)
    with pytest.raises(KeyboardInterrupt):
        cut.train(callback=interrupt_after_two)
    resumed = ExpertIterationRun(load_config(None, **MIXED), tmp_path / "cut", progress=False, log=quiet)
    resumed.train(resume=True)
    assert resumed.steps_done == straight.steps_done
    for name, tensor in weights(straight).items():
        assert torch.equal(tensor, weights(resumed)[name]), name


@pytest.mark.parametrize("change, message", [
    ({"policy": {**ANY, "any_board": False}}, "policy any_board: true"),
    ({"train.algorithm": "ppo"}, "needs train.algorithm 'alphazero'"),
    ({"env.mixture": [{"options": {"board": "square", "rows": 5, "cols": 5, "positioning": "standard"}}]},
     "entry 1 draws options .* that sky_scrapers_v0 refuses"),
    ({"env.mixture": [{"options": {}, "draw": [{"rows": 4}]}]}, "draw must be a list of groups"),
    ({"env.mixture": [{"options": {}, "expert": "greedy"}]}, "entry 1: expert must be null"),
    ({"env.mixture": [{"options": {}, "weight": 0}]}, "weight must be a positive number"),
])
def test_a_mixture_is_validated_with_clear_errors(change, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, **{**MIXED, **change})
