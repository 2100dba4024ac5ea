"""The package layout pyproject.toml cannot say on its own: the repo's top-level ``training/``
and ``benchmarks/`` folders, and its ``checkpoints/`` and ``configs/`` data, go into the wheel
inside ``sky_envs`` (``sky_envs.training``, ``sky_envs.benchmarks``, ``sky_envs/checkpoints``,
``sky_envs/configs``), so that an install adds no generic top-level name such as ``training``
while ``python -m training.train`` keeps working inside the clone."""

from setuptools import find_packages, setup

MAPPED = {"sky_envs.training": "training", "sky_envs.benchmarks": "benchmarks",
          "sky_envs.checkpoints": "checkpoints", "sky_envs.configs": "configs"}

setup(
    packages=find_packages(include=["sky_envs", "sky_envs.*"]) + list(MAPPED),
    package_dir=MAPPED,
    package_data={
        "sky_envs": ["**/*.json", "**/*.yaml", "**/*.txt", "**/*.md",
                     "play/static/*.html", "play/static/*.js", "play/static/*.css", "play/static/*.svg"],
        "sky_envs.checkpoints": ["*/policy.pt", "*/universal.pt", "*/pretrained.json", "*/report.json"],
        "sky_envs.configs": ["*.yaml", "**/*.yaml"],
    },
)
