"""Hit the Deck: an Uno-like matching game with a slap race (see docs/rulings/hit-the-deck.md)."""
