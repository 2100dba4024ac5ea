"""A real two-node Ray cluster on this machine, started with Ray's own CLI, for the tests.

Each node is ``ray start ... --block`` (head: ``--head --port P``; second node: ``--address
127.0.0.1:P``), on loopback, one CPU each, its own temp folder, with token authentication
(``RAY_AUTH_MODE=token``, a fresh token in a file named by ``RAY_AUTH_TOKEN_PATH``: Ray 2.60
turns authentication on at ``ray start --head``, and a node or driver without the token fails
with ``InvalidAuthToken``). Leaving the block stops both nodes whatever happened: each
``ray start --block`` process is sent SIGTERM, on which Ray stops every process of its node
(a process Ray spawned outlives nothing: its reaper kills them if the parent dies). Only the
processes started here are signalled, never other Ray instances on the machine, which
``ray stop`` would end too.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_node(arguments: list[str], env: dict, log: Path, timeout: float) -> subprocess.Popen:
    process = subprocess.Popen([RAY, "start", "--block", "--node-ip-address", "127.0.0.1", "--num-cpus", "1",
                                "--disable-usage-stats", *arguments], env=env, stdout=log.open("w"),
                               stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + timeout
    while "Ray runtime started" not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            _stop_node(process)
            raise RuntimeError(f"ray start {' '.join(arguments)} did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)
    return process


def _stop_node(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def two_node_cluster(timeout: float = 300):
    """``(address, env)``: the head's ``127.0.0.1:PORT`` and the environment every process
    that joins the cluster needs (token authentication)."""
    root = Path(tempfile.mkdtemp(prefix="skyray", dir="/tmp"))   # short: Ray's socket paths have a length limit
    token = root / "auth_token"
    token.write_text(secrets.token_hex(32))
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
    port = free_port()
    address = f"127.0.0.1:{port}"
    nodes = []
    try:
        nodes.append(_start_node(["--head", "--port", str(port), "--include-dashboard", "false",
                                  "--temp-dir", str(root / "head")], env, root / "head.log", timeout))
        nodes.append(_start_node(["--address", address, "--temp-dir", str(root / "node")], env, root / "node.log",
                                 timeout))
        yield address, env
    finally:
        for process in reversed(nodes):
            _stop_node(process)
        shutil.rmtree(root, ignore_errors=True)
