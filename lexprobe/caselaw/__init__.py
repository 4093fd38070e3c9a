"""What is true: loaders for public case-law sources, one normalized case database, citations, courts, judges."""
