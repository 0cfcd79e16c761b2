"""Deck Dash: the Dash lists, lay-down/handoff checks, and (game.py) the game engine."""
