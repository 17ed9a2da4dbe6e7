"""File formats: one interface (:class:`Format`), one registry (:func:`formats`: ``{suffix: Format}``).

The format modules register themselves when the registry is first asked, so a new format is one new module here.
"""
from kpqa.formats.base import Chunk, Format, Writer, formats, listing, named, register

__all__ = ["Chunk", "Format", "Writer", "formats", "listing", "named", "register"]
