"""Golden playthroughs: every recorded game is played again by today's code, fact by fact.

Every rule of every game is pinned by a recorded seeded game per configuration: position
texts, movers, the mover's observations, legal actions, actions, returns and winners, one
fact per line (``tests/core/golden/<env_id>_seed<seed>.txt``, written by ``python -m
tests.core.golden.make_golden``). The test writes each file's lines again from the code and
compares them line by line; a difference is a change in behaviour, reported at its first
differing lines. Deliberate changes re-record the files.
"""

import difflib
from pathlib import Path

import pytest

import sky_envs
from tests.core.golden.make_golden import configurations, file_name, playthrough

GOLDEN = Path(__file__).parent / "golden"


def first_difference(recorded: list[str], played: list[str], name: str) -> str:
    """The first hunk of a diff of the two line lists, with its line numbers."""
    matcher = difflib.SequenceMatcher(None, recorded, played, autojunk=False)
    for tag, r0, r1, p0, p1 in matcher.get_opcodes():
        if tag == "equal":
            continue
        lines = [f"{name}: the first difference, at line {r0 + 1} (recorded) / {p0 + 1} (played now):"]
        lines += [f"  {n + 1:>6} recorded: {recorded[n]}" for n in range(max(0, r0 - 2), min(r1, r0 + 8))]
        lines += [f"  {n + 1:>6} now:      {played[n]}" for n in range(max(0, p0 - 2), min(p1, p0 + 8))]
        return "\n".join(lines)
    return ""


@pytest.mark.parametrize("env_id, options, seed", configurations(),
                         ids=[file_name(env_id, seed).removesuffix(".txt") for env_id, _, seed in configurations()])
def test_recorded_games_play_again_identically(env_id, options, seed):
    path = GOLDEN / file_name(env_id, seed)
    recorded = path.read_text().split("\n")[:-1]
    played = playthrough(env_id, options, seed)
    if recorded != played:
        pytest.fail(first_difference(recorded, played, path.name), pytrace=False)


def test_a_changed_line_is_reported_with_its_line_number():
    recorded = ["# header", "state 0:", "  a1", "action 0: a1>E (id 2)", "returns: 1 -1"]
    played = ["# header", "state 0:", "  a1", "action 0: a1>S (id 4)", "returns: 1 -1"]
    report = first_difference(recorded, played, "x.txt")
    assert "at line 4" in report and "recorded: action 0: a1>E (id 2)" in report
    assert "now:      action 0: a1>S (id 4)" in report
    assert first_difference(recorded, recorded, "x.txt") == ""


def test_every_env_has_golden_games_and_every_file_a_configuration():
    assert {env_id for env_id, _, _ in configurations()} == {e for e in sky_envs.env_ids() if not e.startswith("tiny_")}
    assert {p.name for p in GOLDEN.glob("*.txt")} == {file_name(e, seed) for e, _, seed in configurations()}
    assert not list(GOLDEN.glob("*.json"))
