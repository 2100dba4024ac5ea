"""keep_freed_memory: glibc's allocator reuses freed blocks in a training process; the user's
own allocator settings stand."""

import ctypes.util
import os
import subprocess
import sys

import pytest

CHECK = """
import sys
from training.allocator import keep_freed_memory
first = keep_freed_memory()
print(first, keep_freed_memory() == first)
"""


def run(env: dict) -> str:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    return subprocess.run([sys.executable, "-c", CHECK], env={**environment, **env}, capture_output=True, text=True,
                          check=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__)))).stdout.split()


@pytest.mark.skipif(not sys.platform.startswith("linux") or "libc.so" not in (ctypes.util.find_library("c") or ""),
                    reason="glibc's allocator settings")
def test_applied_once_on_glibc_unless_the_environment_sets_the_allocator():
    assert run({}) == ["True", "True"]
    assert run({"MALLOC_TRIM_THRESHOLD_": "1000000"}) == ["False", "True"]
    assert run({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000000"}) == ["False", "True"]


def test_a_run_sets_it_up_and_trains_the_same_weights(tmp_path):
    """Applied by SelfPlayRun (and ExpertIterationRun); allocation settings change no number:
    two runs of one config in fresh processes, one with the user's own settings, give the same
    weights."""
    script = """
import hashlib, sys, torch
from training.selfplay import SelfPlayRun
from training import allocator
from tests.training.training_support import tiny_config
run = SelfPlayRun(tiny_config(**{"train.torch_threads": 1}), sys.argv[1], progress=False, log=lambda *a: None)
run.train()
digest = hashlib.sha256(b"".join(v.numpy().tobytes() for v in run.model.policy.state_dict().values())).hexdigest()
print(allocator._applied, digest)
"""
    root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    outputs = []
    for name, extra in (("kept", {}), ("users", {"MALLOC_TRIM_THRESHOLD_": "131072"})):
        environment = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
        outputs.append(subprocess.run([sys.executable, "-c", script, str(tmp_path / name)], env={**environment, **extra},
                                      capture_output=True, text=True, check=True, cwd=root).stdout.split())
    glibc = sys.platform.startswith("linux") and "libc.so" in (ctypes.util.find_library("c") or "")
    assert outputs[0][0] == str(glibc) and outputs[1][0] == "False"
    assert outputs[0][1] == outputs[1][1]
