"""DOS: the two-pile UNO variant in ``shared/rules/dos.txt`` (see docs/rulings/dos.md)."""
