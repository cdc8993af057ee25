"""Adapters shared by the services: settings, event store, streams, auth, logging."""
