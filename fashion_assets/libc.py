"""The C library's functions Python does not wrap (``syncfs``, ``renameat2``), where the platform
has them.

The library is opened as the symbols this process already has (``dlopen(NULL)``), libc's
among them: ``ctypes.util.find_library`` would run ``ldconfig -p`` in a subprocess, in every
process that asks.
"""

from __future__ import annotations

import ctypes
from functools import cache
from typing import Any


@cache
def c_function(name: str, *argtypes: Any) -> Any:
    """The C function ``name`` of this process, its arguments typed; None where the C
    library has no such function (``syncfs`` is Linux's)."""
    try:
        function = getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, AttributeError):
        return None
    function.argtypes = list(argtypes)
    return function
