"""The Python snippets of a Markdown page, by heading, and running the "Use with ..." framework
snippets as written: shared by the README's test (tests/project/test_readme.py) and the docs'
framework page test (tests/docs/test_frameworks_page.py)."""

from __future__ import annotations

import re

from tests.integrations.framework_support import framework

#: framework (the start of its heading) -> the module its snippet needs
FRAMEWORK_MODULES = {"Stable-Baselines3": "sb3_contrib", "Ray RLlib": "ray.rllib", "TorchRL": "torchrl",
                     "Tianshou": "tianshou"}


def sections(text: str, level: int) -> dict[str, str]:
    """``{heading title: the text up to the next heading of that level}`` of a Markdown text
    (headings inside code blocks are not headings)."""
    marker = "#" * level + " "
    found, title, lines, fenced = {}, None, [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith(marker):
            if title is not None:
                found[title] = "\n".join(lines)
            title, lines = line[len(marker):].strip(), []
        elif not fenced and title is not None and re.match(rf"#{{1,{level - 1}}} ", line):
            found[title] = "\n".join(lines)   # a higher heading ends the section
            title, lines = None, []
        elif title is not None:
            lines.append(line)
    if title is not None:
        found[title] = "\n".join(lines)
    return found


def python_blocks(text: str) -> list[str]:
    """The ```python code blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def framework_snippets(text: str, level: int, prefix: str = "") -> dict[str, str]:
    """``{framework: its Python code}`` from the sections of ``level`` whose headings are
    ``prefix`` + a framework's name (each section's Python blocks joined)."""
    snippets = {}
    for title, body in sections(text, level).items():
        for name in FRAMEWORK_MODULES:
            if title.startswith(prefix + name):
                snippets[name] = "\n".join(python_blocks(body))
    return snippets


def run_framework_snippet(name: str, code: str, where: str, tmp_path, monkeypatch) -> dict:
    """Run framework ``name``'s snippet as written in ``tmp_path`` (snippets may write
    ``runs/...``), skipping where the framework is not installed, and check what it made;
    its namespace is returned."""
    framework(FRAMEWORK_MODULES[name])
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_snippet"}
    try:
        exec(compile(code, where, "exec"), namespace)
    finally:
        if name == "Ray RLlib":
            import ray

            ray.shutdown()
    expected = {"Stable-Baselines3": "mean_reward", "Ray RLlib": "agent", "TorchRL": "winners", "Tianshou": "result"}
    assert expected[name] in namespace, f"{where} defines no {expected[name]!r}"
    if name == "Ray RLlib":
        assert (tmp_path / "runs" / "rllib_policy.pt").is_file()
    if name == "TorchRL":
        assert tuple(namespace["winners"].shape) == (200, 1, 4)
    if name == "Tianshou":
        assert namespace["result"].n_collected_episodes == 2
    return namespace
