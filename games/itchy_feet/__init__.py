"""Itchy Feet: The Travel Game, with its four extensions and the characters."""
