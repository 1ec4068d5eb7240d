"""A crawl worker gives the heap pages a run freed back to the system."""

import subprocess
import sys
import textwrap

# In a process of its own, so the test's heap is the child's alone: 157 MB in 64 KB blocks
# (glibc's heap, under its mmap threshold), one small block kept above them so the heap
# cannot simply shrink from the top; then all of them freed.
CHILD = textwrap.dedent("""
    import sys

    def rss_mb():
        return int(open("/proc/self/statm").read().split()[1]) * 4096 / 1e6

    blocks = [b"x" * (64 * 1024) for _ in range(2400)]
    keep = [b"x" * (64 * 1024)]
    del blocks
    freed = rss_mb()
    if sys.argv[1] == "release":
        from fashion_assets.memory import release_freed_memory
        release_freed_memory()
    print(freed, rss_mb())
""")


def rss_after(action: str) -> tuple[float, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, action], capture_output=True,
                          text=True, check=True)
    freed, after = map(float, done.stdout.split())
    return freed, after


def test_the_freed_heap_goes_back_to_the_system() -> None:
    freed, released = rss_after("release")
    assert freed > 150
    assert released < freed - 100


def test_without_it_glibc_keeps_the_freed_heap() -> None:
    freed, kept = rss_after("keep")
    assert kept > freed - 10
