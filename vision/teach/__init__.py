"""Teach your deck: a guided capture of a family's own cards, a fine-tune, and a check."""
