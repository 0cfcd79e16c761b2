"""Referee sub-commands: ``dash`` (Deck Dash checks), ``replay``, ``games``, ``demo``."""

from __future__ import annotations

import argparse

from referee.cli import optional_module

# Light modules that add referee sub-commands when they exist.
_MODULES = ("referee.replay_cli", "referee.deckdash.cli", "referee.demo")


def add_commands(sub: argparse._SubParsersAction) -> None:
    for name in _MODULES:
        module = optional_module(name)
        if module is not None:
            module.add_commands(sub)
