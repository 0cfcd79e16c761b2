"""Referee sub-commands: ``dash`` (Deck Dash checks), ``replay``, ``games``, ``demo``."""

from __future__ import annotations

import argparse
import importlib

from referee.cli import optional_module


def add_commands(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("referee.replay_cli").add_commands(sub)
    deckdash_cli = optional_module("referee.deckdash.cli")
    if deckdash_cli is not None:
        deckdash_cli.add_commands(sub)
