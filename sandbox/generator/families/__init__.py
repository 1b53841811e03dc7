"""Task families, one module per area; every module here is imported by ``load_families``."""
