#!/usr/bin/env python3
"""Regenerate BLEPackets' assigned-number tables from the Bluetooth SIG YAML in data/.

    python3 scripts/assigned-numbers/generate.py          # rewrite the Swift files that changed
    python3 scripts/assigned-numbers/generate.py --check  # exit 1 if a committed file differs

Writes Sources/BLEPackets/AssignedNumbers/GATTAssignedNumberTables.swift and
AppearanceNameTable.swift. Python 3 standard library only: the SIG files use a small subset of
YAML (comments, mappings, lists of mappings, plain and double-quoted scalars), parsed here.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "Sources", "BLEPackets", "AssignedNumbers")
sys.path.insert(0, os.path.dirname(HERE))
# The shared write-or-check step leaves no __pycache__ under scripts/ (the Swift test runs this).
sys.dont_write_bytecode = True
from generated_files import write_or_check  # noqa: E402


# --- the YAML subset -------------------------------------------------------------------------

class YAMLError(Exception):
    pass


def _lines(text):
    """(indent, content, line number) for each line that is not blank or a comment."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YAMLError(f"line {number}: tab in indentation")
        out.append((len(raw) - len(raw.lstrip(" ")), stripped, number))
    return out


def _scalar(text, number):
    text = text.strip()
    if text.startswith('"'):
        value, i = [], 1
        escapes = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t"}
        while i < len(text):
            c = text[i]
            if c == "\\":
                nxt = text[i + 1: i + 2]
                if nxt in escapes:
                    value.append(escapes[nxt])
                    i += 2
                    continue
                if nxt == "u":
                    value.append(chr(int(text[i + 2: i + 6], 16)))
                    i += 6
                    continue
                raise YAMLError(f"line {number}: unsupported escape \\{nxt}")
            if c == '"':
                rest = text[i + 1:].strip()
                if rest and not rest.startswith("#"):
                    raise YAMLError(f"line {number}: text after closing quote")
                return "".join(value)
            value.append(c)
            i += 1
        raise YAMLError(f"line {number}: unterminated string")
    if text.startswith("'"):
        end = text.rfind("'")
        if end == 0:
            raise YAMLError(f"line {number}: unterminated string")
        return text[1:end].replace("''", "'")
    if " #" in text:
        text = text[: text.index(" #")].rstrip()
    if text[:1] in ("[", "{", "&", "*", "!", "|", ">"):
        raise YAMLError(f"line {number}: unsupported YAML construct {text[:1]!r}")
    return text


def _block(lines, i, indent):
    """Parses the mapping or list that starts at lines[i], indented by `indent`."""
    if lines[i][1].startswith("- "):
        items = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            _, content, number = lines[i]
            # "- key: value" opens a mapping whose keys line up with the first one.
            rest = content[1:]
            column = indent + 1 + len(rest) - len(rest.lstrip())
            lines[i] = (column, rest.lstrip(), number)
            item, i = _block(lines, i, column)
            items.append(item)
        return items, i
    mapping = {}
    while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("- "):
        _, content, number = lines[i]
        key, sep, rest = content.partition(":")
        if not sep or (rest and not rest.startswith(" ")):
            raise YAMLError(f"line {number}: expected 'key: value'")
        if key in mapping:
            raise YAMLError(f"line {number}: duplicate key {key!r}")
        i += 1
        if rest.strip():
            mapping[key] = _scalar(rest, number)
        elif i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("- "))):
            mapping[key], i = _block(lines, i, lines[i][0])
        else:
            mapping[key] = None
    return mapping, i


def parse_yaml(text):
    lines = _lines(text)
    if not lines:
        return {}
    value, i = _block(lines, 0, lines[0][0])
    if i != len(lines):
        raise YAMLError(f"line {lines[i][2]}: unexpected indentation")
    return value


def load(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        try:
            return parse_yaml(f.read())
        except YAMLError as error:
            raise SystemExit(f"{name}: {error}")


# --- names -----------------------------------------------------------------------------------

SUBSCRIPTS = str.maketrans("0123456789+-=()aehijklmnoprstuvx",
                           "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")


def display_name(name):
    """The SIG writes a few subscripts in LaTeX ("CO\\textsubscript{2}"): print them as Unicode."""
    marker = "\\textsubscript{"
    while marker in name:
        start = name.index(marker)
        end = name.index("}", start)
        inner = name[start + len(marker): end]
        if not inner or any(c not in "0123456789+-=()aehijklmnoprstuvx" for c in inner):
            raise SystemExit(f"no Unicode subscript for {inner!r} in {name!r}")
        name = name[:start] + inner.translate(SUBSCRIPTS) + name[end + 1:]
    if "\\" in name:
        raise SystemExit(f"unhandled markup in {name!r}")
    return name


def uuid_entries(*files):
    """{uuid16: name} from SIG files listing `uuids: [{uuid, name, ...}]`; a UUID twice is an error."""
    table = {}
    for name in files:
        for entry in load(name)["uuids"]:
            key = int(entry["uuid"], 16)
            if not 0 <= key <= 0xFFFF:
                raise SystemExit(f"{name}: {entry['uuid']} is not a 16-bit UUID")
            if key in table:
                raise SystemExit(f"{name}: 0x{key:04X} assigned twice")
            table[key] = display_name(entry["name"])
    return table


def appearance_entries():
    """Appearance values: category << 6 | subcategory; subcategory 0 is the category itself."""
    table = {}
    for category in load("appearance_values.yaml")["appearance_values"]:
        number = int(category["category"], 16)
        if not 0 <= number < 1 << 10:
            raise SystemExit(f"appearance category {category['category']} is wider than 10 bits")
        table[number << 6] = display_name(category["name"])
        for sub in category.get("subcategory") or []:
            value = int(sub["value"], 16)
            if not 0 < value < 1 << 6:
                raise SystemExit(f"appearance subcategory {sub['value']} of {category['name']} out of range")
            table[number << 6 | value] = display_name(sub["name"])
    return table


# --- Swift -----------------------------------------------------------------------------------

def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def swift_table(table, indent="    "):
    keys = sorted(table)
    lines = [f"{indent}AssignedNumberTable(", f"{indent}    keys: ["]
    for row in range(0, len(keys), 8):
        lines.append(f"{indent}        " + " ".join(f"0x{k:04X}," for k in keys[row: row + 8]))
    lines.append(f"{indent}    ],")
    lines.append(f"{indent}    names: [")
    for k in keys:
        lines.append(f"{indent}        {swift_string(table[k])},  // 0x{k:04X}")
    lines.append(f"{indent}    ])")
    return lines


HEADER = [
    "// Generated by scripts/assigned-numbers/generate.py from the Bluetooth SIG Assigned Numbers",
    "// YAML in scripts/assigned-numbers/data/ (names as published by the SIG). Do not edit: change",
    "// the data and run the generator. Each table is sorted by key: lookups bisect it.",
    "",
]


def gatt_file():
    tables = [
        ("SIG-assigned GATT services (Assigned Numbers 3.4).", "services",
         uuid_entries("service_uuids.yaml")),
        ("SIG-assigned GATT characteristics (Assigned Numbers 3.8).", "characteristics",
         uuid_entries("characteristic_uuids.yaml")),
        ("SIG-assigned GATT descriptors (Assigned Numbers 3.7).", "descriptors",
         uuid_entries("descriptors.yaml")),
        ("Units used by the Characteristic Presentation Format descriptor (Assigned Numbers 3.5).", "units",
         uuid_entries("units.yaml")),
        ("16-bit UUIDs assigned to SIG member companies and SDOs (Assigned Numbers 3.11, 3.12).", "members",
         uuid_entries("member_uuids.yaml", "sdo_uuids.yaml")),
    ]
    lines = HEADER + ["extension GATTAssignedNumbers {"]
    for index, (doc, name, table) in enumerate(tables):
        if index:
            lines.append("")
        lines.append(f"    /// {doc}")
        body = swift_table(table)
        lines.append(f"    static let {name} = " + body[0].lstrip())
        lines.extend(body[1:])
    lines.append("}")
    return "\n".join(lines) + "\n"


def appearance_file():
    body = swift_table(appearance_entries())
    lines = HEADER + [
        "extension AppearanceNames {",
        "    /// Appearance values (Assigned Numbers 2.6): a category's own name at subcategory 0.",
        "    static let table = " + body[0].lstrip(),
    ] + body[1:] + ["}"]
    return "\n".join(lines) + "\n"


OUTPUTS = {
    "GATTAssignedNumberTables.swift": gatt_file,
    "AppearanceNameTable.swift": appearance_file,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming each Swift file that differs from the data")
    args = parser.parse_args()
    files = {os.path.relpath(os.path.join(OUT, name), ROOT): render() for name, render in OUTPUTS.items()}
    return write_or_check(ROOT, files, args.check, "scripts/assigned-numbers/generate.py makes of its data")

if __name__ == "__main__":
    sys.exit(main())
