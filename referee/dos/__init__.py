"""DOS: the two-pile UNO variant in ``shared/rules/dos.txt`` (see docs/RULINGS.md)."""
