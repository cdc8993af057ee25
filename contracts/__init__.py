"""msgspec wire types shared by every service: REST bodies, stream messages, problems."""
