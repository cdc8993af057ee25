"""The three services. They never import each other: only contracts/, games/ and infra/."""
