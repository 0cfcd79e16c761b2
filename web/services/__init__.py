"""Services the dashboard's routes use; each is injectable through ``WebConfig``."""
