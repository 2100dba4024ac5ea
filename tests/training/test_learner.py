"""Both training algorithms are :class:`training.learner.Learner` s, the interface training.train uses."""

import inspect

import pytest

from tests.training.training_support import one_torch_thread, quiet, tiny_config  # noqa: F401 (an autouse fixture)
from training.alphazero import ExpertIterationRun
from training.learner import Learner, LearnerClass
from training.selfplay import SelfPlayRun

ALPHAZERO = {"train.algorithm": "alphazero", "alphazero.simulations": 4, "alphazero.parallel_games": 2,
             "policy": {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 2, "head_hidden": [16]}}


def parameters(function) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name != "self"]


@pytest.mark.parametrize("learner, changes", [(SelfPlayRun, {}), (ExpertIterationRun, ALPHAZERO)])
def test_both_learners_are_learners_built_and_called_as_train_calls_them(tmp_path, learner, changes):
    run = learner(tiny_config(**changes), tmp_path, progress=False, log=quiet)
    assert isinstance(run, Learner)
    assert parameters(learner) == parameters(LearnerClass.__call__)
    for method in ("train", "evaluate", "metadata"):
        assert parameters(getattr(learner, method)) == parameters(getattr(Learner, method)), method
    assert run.steps_done == 0 and run.run_dir == tmp_path and run.command == "" and run.init_from is None
    assert run.metadata()["training"]["steps"] == 0


def test_an_object_missing_part_of_the_interface_is_not_a_learner(tmp_path):
    run = SelfPlayRun(tiny_config(), tmp_path, progress=False, log=quiet)
    del run.command
    assert not isinstance(run, Learner)
