"""Hit the Deck: an Uno-like matching game with a slap race (see docs/RULINGS.md)."""
