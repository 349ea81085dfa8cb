"""dicetable: the rules engine, the referee and the table service."""

__version__ = "0.1.0"
