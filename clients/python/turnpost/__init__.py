"""Turnpost for third parties: `turnpost.client` is the typed Python client of its REST API."""
