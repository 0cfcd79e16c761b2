"""Synthetic training data: card faces in many art styles and randomised table scenes.

Train-time only (needs Pillow for TrueType glyphs); the runtime never imports it.
"""
