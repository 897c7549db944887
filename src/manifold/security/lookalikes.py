"""Characters that hide a token from a pattern but not from a reader (shared by redaction and
honeytokens): format characters inside it (zero-width space and joiners, soft hyphen, word
joiner, byte-order mark), fullwidth forms of ASCII, and the Cyrillic and Greek capitals and
small letters drawn like Latin ones. `FOLD` (for `str.translate`) deletes the first and maps
the others to ASCII, one character for one."""

from __future__ import annotations

from typing import Final

__all__ = ["FOLD", "INVISIBLE", "LOOKALIKE"]

INVISIBLE: Final = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
LOOKALIKE: Final = dict(
    zip(
        "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0405\u0406\u0408"
        "\u0430\u0435\u043e\u0440\u0441\u0445\u0443\u0455\u0456\u0458"
        "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
        "\u03bf\u03ba\u03bd\u03c1\u03c4\u03c5\u03c7",
        "ABEKMHOPCTXSIJaeopcxysijABEZHIKMNOPTYXoknptux",
        strict=True,
    )
)
FOLD: Final = str.maketrans(
    {
        **{chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)},
        **LOOKALIKE,
        **dict.fromkeys(INVISIBLE),
    }
)
