"""Route groups: pages (HTML), auth (PIN), api (JSON), live (streams, camera, QR)."""
