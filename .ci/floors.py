"""Check that .ci/min-versions.txt pins every floor pyproject.toml declares, at that floor.

The minimum-versions environment is only a proof of the declared floors if it installs exactly
them: a pin above a floor would leave the floor untested, a pin below it would not install.
Run by .ci/run; exits non-zero and names each mismatch.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The extras whose floors the minimum environment proves (the others float to their newest).
PROVEN_EXTRAS = ("opencv", "caffe", "torch")


def _name(req: str) -> str:
    return re.split(r"[\[<>=!~; ]", req, maxsplit=1)[0].lower().replace("_", "-")


def declared() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in PROVEN_EXTRAS:
        reqs += project["optional-dependencies"][extra]
    out = {}
    for req in reqs:
        m = re.search(r">=\s*([0-9][0-9.]*)", req)
        if not m:
            sys.exit(f"floors: {req!r} in pyproject.toml declares no '>=' floor")
        out[_name(req)] = m.group(1)
    return out


def pinned() -> dict[str, str]:
    out = {}
    for line in (ROOT / ".ci" / "min-versions.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[_name(name)] = version.strip()
    return out


def main() -> int:
    floors, pins = declared(), pinned()
    bad = []
    for name, floor in sorted(floors.items()):
        pin = pins.get(name)
        if pin is None:
            bad.append(f"{name}: floor {floor} declared, not pinned in .ci/min-versions.txt")
            continue
        parts = floor.split(".")
        if pin.split(".")[: len(parts)] != parts:
            bad.append(f"{name}: pyproject.toml says >={floor}, .ci/min-versions.txt pins {pin}")
    for name in sorted(set(pins) - set(floors)):
        bad.append(f"{name}: pinned in .ci/min-versions.txt but no floor in pyproject.toml")
    for line in bad:
        print("floors:", line, file=sys.stderr)
    if not bad:
        print("floors: " + ", ".join(f"{n}>={floors[n]} (ran {pins[n]})" for n in sorted(floors)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
