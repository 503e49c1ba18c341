"""Command-line groups; each module exposes `register(subparsers)`."""
