#!/usr/bin/env python3
"""Prints the ThreadSanitizer and AddressSanitizer reports in the given log files (the sanitizers'
log_path), each once, demangled, and exits 1 when there is any.

Swift's `Mutex` locks with a futex that ThreadSanitizer does not see, so two accesses made both
within a `withLock` body (in it or in what it calls) are reported as a race though the lock orders
them: such reports are counted and left out. An access under a lock racing one outside it is still
reported.

    scripts/sanitizer-reports.py .build/tsan/reports/*
"""
import os
import re
import subprocess
import sys

# A frame in a non-escaping closure taking `inout sending State` and giving a `sending` result (a
# `withLock` body), mangled; a tuple State mangles without `Yu` and as a one-parameter list (`_t`).
LOCKED_BODY = re.compile(r"z(?:Yu)?(?:_t)?YTXEfU\d*_(?:TA)?$")


def reports(paths):
    for path in paths:
        with open(path, errors="replace") as log:
            for block in re.split(r"^=+$", log.read(), flags=re.M):
                if re.search(r"(?:WARNING|ERROR): (?:Thread|Address)Sanitizer", block):
                    yield block.strip()


def both_locked(block):
    if "ThreadSanitizer" not in block:
        return False
    # The first two stacks are the two accesses; each runs to the next blank line.
    stacks = [stack for stack in block.split("\n\n") if re.search(r"^\s*#0 ", stack, re.M)][:2]
    return len(stacks) == 2 and all(
        any(LOCKED_BODY.search(frame) for frame in re.findall(r"^\s*#\d+ (?:0x[0-9a-f]+ in )?(\S+)", stack, re.M))
        for stack in stacks)


def main(paths):
    paths = [path for path in paths if os.path.isfile(path)]  # an unmatched glob: no reports at all
    kept, locked, total = {}, 0, 0
    for block in reports(paths):
        total += 1
        if both_locked(block):
            locked += 1
            continue
        summary = re.search(r"^SUMMARY: (.*)$", block, re.M)
        kept.setdefault(summary.group(1) if summary else block.splitlines()[0], block)
    text = "\n\n".join(kept.values())
    if text:
        try:
            text = subprocess.run(["swift", "demangle", "--simplified"], input=text, capture_output=True,
                                  text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            pass
        print(re.sub(r" \(\S+\+0x[0-9a-f]+\)| \(BuildId: [0-9a-f]+\)", "", text))
    print(f"sanitizers: {total} reports in {len(paths)} logs, {locked} of them two accesses under a Mutex "
          f"(ordered by it); {len(kept)} distinct left", file=sys.stderr)
    return 1 if kept else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
