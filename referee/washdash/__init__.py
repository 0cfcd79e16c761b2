"""Wash Dash: hang clothes on the dryer to complete the revealed task cards.

Modules: ``pieces`` (the physical parts), ``tasks`` (task cards as data and the
Opposite transform), ``dryer`` (the dryer-state contract shared by camera and tablet),
``checker`` (the pure task check), ``deck`` (the editable deck file), ``state`` and
``game`` (the rules engine, ``GAME``).
"""
