"""Wash Dash dryers: render them, read them, and report ``referee.washdash.dryer.Dryer``."""
