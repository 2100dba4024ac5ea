"""The folder layout is the architecture: layers only look down (``core`` -> ``games`` ->
``agents`` -> ``play``/``gym_env``/``integrations`` -> ``training`` -> ``benchmarks``), no
import circles between the parts, and every ``__all__`` names what its module defines.

Read from the source (every ``import``, at the top of a module or inside a function), so a
lazy import that climbs a layer is caught too."""

import ast
import functools
from pathlib import Path

import pytest

from tests import REPO_ROOT

#: each part of the code and its layer; a part may import parts of its own layer or below
LAYERS = {
    "sky_envs.core": 0,
    "sky_envs.games": 1, "sky_envs.vector": 1, "sky_envs": 1,   # the package's own __init__: the env registry
    "sky_envs.agents": 2,
    "sky_envs.gym_env": 3, "sky_envs.integrations": 3, "sky_envs.play": 3, "sky_envs.demo": 3,
    "sky_envs.replay": 3, "sky_envs.wrappers": 3, "sky_envs.cli": 3,
    "training": 4,
    "benchmarks": 5,
}
ENV_MODULES = ("golden_rush_v0", "highrise_heist_v0", "scala_v0", "sky_scrapers_v0", "sky_towers_v0", "skybridge_v0")
ROOTS = ("sky_envs", "training", "benchmarks")


def part_of(module: str) -> str:
    """The part a dotted module name belongs to (an env module ``sky_envs.scala_v0`` is a game's)."""
    parts = module.split(".")
    if parts[0] != "sky_envs":
        return parts[0]
    if len(parts) == 1:
        return "sky_envs"
    return "sky_envs.games" if parts[1] in ENV_MODULES else f"sky_envs.{parts[1]}"


def modules():
    """``(dotted name, path, parsed tree)`` of every module of the package, training and benchmarks."""
    for root in ROOTS:
        for path in sorted((REPO_ROOT / root).rglob("*.py")):
            relative = path.relative_to(REPO_ROOT).with_suffix("")
            name = ".".join(relative.parts).removesuffix(".__init__")
            yield name, path, ast.parse(path.read_text(), filename=str(path))


def imported(name: str, path: Path, tree: ast.AST) -> set[str]:
    """The project modules ``name`` imports, relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                found.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                found.add(node.module)
    return {module for module in found if module.split(".")[0] in ROOTS}


@functools.cache
def part_graph() -> dict[str, set[str]]:
    """``{part: the other parts it imports}``, read once for all the tests (do not change it)."""
    graph: dict[str, set[str]] = {}
    for name, path, tree in modules():
        source = part_of(name)
        graph.setdefault(source, set()).update(part_of(m) for m in imported(name, path, tree) if part_of(m) != source)
    return graph


def test_every_part_of_the_code_has_a_layer():
    assert set(part_graph()) <= set(LAYERS), sorted(set(part_graph()) - set(LAYERS))


def test_layers_only_look_down():
    upward = [(source, target) for source, targets in part_graph().items() for target in targets
              if LAYERS.get(target, 99) > LAYERS.get(source, -1)]
    assert not upward, f"imports that climb a layer: {upward}"


def test_no_import_circles_between_parts():
    graph = part_graph()
    state: dict[str, str] = {}

    def visit(part, trail):
        state[part] = "open"
        for target in sorted(graph.get(part, ())):
            if state.get(target) == "open":
                pytest.fail(f"import circle: {' -> '.join(trail[trail.index(target):] + [target])}")
            if target not in state:
                visit(target, trail + [target])
        state[part] = "done"

    for part in sorted(graph):
        if part not in state:
            visit(part, [part])


def defined_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.If, ast.Try)):   # e.g. optional imports: every branch's statements
            branches = [node.body, node.orelse, getattr(node, "finalbody", []),
                        *(handler.body for handler in getattr(node, "handlers", []))]
            names |= defined_names(ast.Module(body=[stmt for branch in branches for stmt in branch], type_ignores=[]))
    return names


def test_every_all_names_what_its_module_defines():
    missing = []
    for name, _, tree in modules():
        listed = next((node.value for node in tree.body if isinstance(node, ast.Assign)
                       and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)), None)
        if listed is None or not isinstance(listed, (ast.List, ast.Tuple)):
            continue
        names = defined_names(tree)
        missing += [(name, item.value) for item in listed.elts
                    if isinstance(item, ast.Constant) and item.value not in names]
    assert not missing, missing
