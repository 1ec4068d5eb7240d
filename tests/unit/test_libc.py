"""The C functions the store and the crawl's memory release call, found without a
subprocess (``ldconfig -p``), and None for what the C library lacks."""

import ctypes
import os
import sys

import pytest

from fashion_assets.libc import c_function


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's functions")
def test_glibc_functions_are_found_in_this_process_and_called() -> None:
    syncfs = c_function("syncfs", ctypes.c_int)
    fd = os.open(".", os.O_RDONLY)
    try:
        assert syncfs(fd) == 0
    finally:
        os.close(fd)
    assert c_function("malloc_trim", ctypes.c_size_t)(0) in (0, 1)


def test_a_function_the_c_library_lacks_is_none() -> None:
    assert c_function("no_such_function_in_libc") is None


def test_finding_them_starts_no_process() -> None:
    started: list[str] = []
    listening = [True]  # an audit hook stays for the process's life: it stops listening
    sys.addaudithook(lambda event, args: started.append(event)
                     if listening[0] and event == "subprocess.Popen" else None)
    c_function.cache_clear()
    try:
        c_function("malloc_trim", ctypes.c_size_t)
    finally:
        listening[0] = False
    assert started == []
