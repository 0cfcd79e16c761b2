"""referee."""
