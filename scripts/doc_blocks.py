"""Helpers of the scripts that generate the Markdown blocks of docs/ from benchmark JSON lines
(scripts/balance_table.py, scripts/balance_curves.py). Standard library only."""
import json
import sys


def read_json_lines(path, who):
    """Every JSON object of `path`, one per non-empty line; exits naming `who` and the line otherwise."""
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"{who}: {path}:{number}: not a JSON line ({e})")
    return rows


def replace_block(page, begin, end, block, who):
    """Rewrites `page` with `block` between its marker lines `begin` and `end` (the markers stay)."""
    with open(page) as f:
        text = f.read()
    if begin not in text or end not in text:
        sys.exit(f"{who}: {page} has no '{begin}' / '{end}' markers")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(page, "w") as f:
        f.write(head + begin + "\n" + block + end + tail)
