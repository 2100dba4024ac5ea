"""Play and watch: a human against any agent (or other humans), in the terminal or the browser.

:class:`~sky_envs.play.session.PlaySession` is the one game loop both front ends drive;
``python -m sky_envs.play`` is the command line.
"""

from sky_envs.play.session import Move, PlaySession

__all__ = ["Move", "PlaySession"]
