"""rigorbench: trustworthy microbenchmark results.

The library API behind the ``rigorbench`` command; the CLI is a thin layer over it.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
