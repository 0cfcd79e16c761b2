"""Bundled Deck Dash event logs (package data): the ``tabletop demo`` game."""
