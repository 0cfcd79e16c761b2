"""The table: frames from a camera, zones on the table, and stable observations.

Vision I recognises cards in a picture; this package turns a stream of such
pictures into the few facts the referee needs ("R7 is now on the discard pile").
"""
