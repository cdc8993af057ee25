"""Who is calling: bearer tokens (bearer.py), their keys and rotation (keys.py), the players'
tokens ended or not (tokens.py), and signed commands between processes (signing.py)."""
