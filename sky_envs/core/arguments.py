"""What every command line of the project shares: the help formatter."""

from __future__ import annotations

import argparse


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The docstring's layout kept, and each option's default shown where it has one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("%(default)" in text or not action.option_strings or default is None or default is False
                or default is argparse.SUPPRESS or default == []):
            return text
        return f"{text} (default: %(default)s)"


def module_prog(spec) -> str:
    """``python -m <module>``, the module named as it was imported (``training.train`` in the
    clone, ``sky_envs.training.train`` installed)."""
    return f"python -m {spec.name.removesuffix('.__main__')}"
