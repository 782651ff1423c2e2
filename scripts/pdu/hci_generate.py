"""The Swift that follows from the HCI command table in scripts/pdu/hci_commands.py (run through
scripts/pdu/generate.py): the HCIOpcode constants (BLECodes) and, per typed command, its
parameter layout, its HCICommands.table row and its struct's fields, decoder and encoder; per
return layout (RETURNS), the layout and its typed struct's fields, decoder and encoder
(BLEPackets)."""

from collections import OrderedDict

from hci_commands import Field

LINE = 120


class TableError(Exception):
    pass


# kind head -> (octets, Swift type, reader, writer); {o} the offset, {n} the field's name.
KINDS = {
    "uint8": (1, "UInt8", "p.u8({o})", "w.appendUInt8({n})"),
    "hex8": (1, "UInt8", "p.u8({o})", "w.appendUInt8({n})"),
    "status": (1, "UInt8", "p.u8({o})", "w.appendUInt8({n})"),
    "code8": (1, "UInt8", "p.u8({o})", "w.appendUInt8({n})"),
    "flags8": (1, "UInt8", "p.u8({o})", "w.appendUInt8({n})"),
    "dBm": (1, "Int8", "p.i8({o})", "w.appendInt8({n})"),
    "uint16": (2, "UInt16", "p.u16le({o})", "w.appendUInt16LE({n})"),
    "hex16": (2, "UInt16", "p.u16le({o})", "w.appendUInt16LE({n})"),
    "duration16": (2, "UInt16", "p.u16le({o})", "w.appendUInt16LE({n})"),
    "flags16": (2, "UInt16", "p.u16le({o})", "w.appendUInt16LE({n})"),
    "handle": (2, "UInt16", "p.u16le({o})", "w.appendUInt16LE({n})"),
    "uint24": (3, "UInt32", "p.u24le({o})", "w.appendUInt24LE({n})"),
    "duration24": (3, "UInt32", "p.u24le({o})", "w.appendUInt24LE({n})"),
    "uint32": (4, "UInt32", "p.u32le({o})", "w.appendUInt32LE({n})"),
    "hex32": (4, "UInt32", "p.u32le({o})", "w.appendUInt32LE({n})"),
    "hex64": (8, "UInt64", "p.u64le({o})", "w.appendUInt64LE({n})"),
    "address": (6, "BDAddr", "BDAddr(littleEndian: p, at: {o})", "w.appendAddress({n})"),
    "key": (16, "UInt128", "p.littleEndianUInt128(at: {o})", "w.appendHCIKey({n})"),
    "connection": (12, "HCIConnectionParameters", "HCIConnectionParameters(p, at: {o})", "{n}.append(to: &w)"),
}


def head(kind):
    return kind.split("(")[0]


def size(field):
    return KINDS[head(field.kind)][0]


def swift_type(field):
    return KINDS[head(field.kind)][1]


def opcode(row):
    return row.ogf << 10 | row.ocf


def hex4(value):
    return f"0x{value:04X}"


def validate(rows):
    seen = {}
    for r in rows:
        if not (0 <= r.ogf <= 0x3F and 0 <= r.ocf <= 0x3FF):
            raise TableError(f"{r.spec}: OGF or OCF out of range")
        for key, value in (("opcode", opcode(r)), ("case", r.case)):
            if (key, value) in seen:
                raise TableError(f"{r.spec}: {key} {value!r} already used by {seen[(key, value)]}")
            seen[(key, value)] = r.spec
        if r.type is None:
            if r.fields or r.trailer or r.name or r.layout or r.partial:
                raise TableError(f"{r.spec}: fields, a name or a layout without a type")
            continue
        if r.name is None:
            raise TableError(f"{r.spec}: a typed command names itself for HCICommands.table (name=)")
        if (r.layout is None) != (not r.fields):
            raise TableError(f"{r.spec}: a layout name exactly when there are fields")
        if r.layout is None and r.describe is None:
            raise TableError(f"{r.spec}: nothing describes its parameters (layout= or describe=)")
        optional = False
        for f in r.fields:
            if head(f.kind) not in KINDS:
                raise TableError(f"{r.spec}: {f.spec}: unknown kind {f.kind!r}")
            if optional and not f.optional and not r.partial:
                raise TableError(f"{r.spec}: {f.spec}: a required field after an optional one")
            optional = optional or f.optional or r.partial
        if r.trailer and optional:
            raise TableError(f"{r.spec}: a trailer after optional fields")
        if r.partial and r.trailer:
            raise TableError(f"{r.spec}: a partial command has no trailer")
        if r.repeat:
            if r.partial or r.trailer or optional or r.describe or not r.init:
                raise TableError(f"{r.spec}: repeated blocks follow required fields only")
            if not r.fields or size(r.fields[-1]) != 1:
                raise TableError(f"{r.spec}: the last fixed field counts the blocks: one octet")
            if not r.repeat.fields:
                raise TableError(f"{r.spec}: a repeated block without fields")
            for f in r.repeat.fields:
                if head(f.kind) not in KINDS or f.optional:
                    raise TableError(f"{r.spec}: block field {f.spec}: unknown kind or optional")
    types = OrderedDict()
    for r in rows:
        if r.type:
            types.setdefault(r.type, []).append(r)
    for name, group in types.items():
        first = group[0]
        shape = [(f.swift, swift_type(f), f.optional) for f in first.fields]
        for r in group[1:]:
            if [(f.swift, swift_type(f), f.optional) for f in r.fields] != shape or r.trailer != first.trailer \
                    or (r.partial, r.init, r.repeat) != (first.partial, first.init, first.repeat):
                raise TableError(f"{r.spec}: {name} is declared differently by {first.spec}")
            if r.doc:
                raise TableError(f"{r.spec}: only the first row of {name} carries its doc")
        if not first.doc:
            raise TableError(f"{first.spec}: {name} needs a doc")
    layouts = {}
    for r in rows:
        if r.layout:
            spec = [(f.spec, f.kind) for f in r.fields] + ([r.trailer.length_spec] if r.trailer else [])
            if layouts.setdefault(r.layout, spec) != spec:
                raise TableError(f"{r.spec}: layout {r.layout} is declared differently by another row")
        if r.repeat:
            spec = [(f.spec, f.kind) for f in r.repeat.fields]
            if layouts.setdefault(r.repeat.layout, spec) != spec:
                raise TableError(f"{r.spec}: layout {r.repeat.layout} is declared differently by another row")
    blocks = {}
    for r in rows:
        if r.repeat and blocks.setdefault(r.repeat.type, r.repeat) != r.repeat:
            raise TableError(f"{r.spec}: block {r.repeat.type} is declared differently by another row")
        if r.repeat and "." not in r.repeat.type:
            raise TableError(f"{r.spec}: a block type is `Owner.Name`")
    return sorted(rows, key=opcode), types


def validate_returns(returns, rows):
    """The return layouts' rules: names used once, fields of known kinds, never `optional=` (every
    return field is read as far as it reaches), an `opcode` only from a case of the table."""
    cases = {r.case for r in rows}
    layouts = {r.layout for r in rows if r.layout} | {r.repeat.layout for r in rows if r.repeat}
    seen = set()
    for ret in returns:
        for key, value in (("layout", ret.layout), ("type", ret.type)):
            if (key, value) in seen or (key == "layout" and value in layouts):
                raise TableError(f"{ret.layout}: {key} {value!r} already used")
            seen.add((key, value))
        if not ret.fields:
            raise TableError(f"{ret.layout}: a return layout without fields")
        for f in ret.fields:
            if head(f.kind) not in KINDS or head(f.kind) == "connection":
                raise TableError(f"{ret.layout}: {f.spec}: unknown kind {f.kind!r}")
            if f.optional or f.swift == "status":
                raise TableError(f"{ret.layout}: {f.spec}: every return field is optional; Status comes first")
        if ret.case is not None and ret.case not in cases:
            raise TableError(f"{ret.layout}: no row has case {ret.case!r}")
        if not ret.doc:
            raise TableError(f"{ret.layout}: {ret.type} needs a doc")
    return returns


# --- Swift text --------------------------------------------------------------------------------

HEADER = [
    "// Generated by scripts/pdu/generate.py from the HCI command table in scripts/pdu/hci_commands.py",
    "// (Core 5.4 Vol 4 Part E 7). Do not edit: change the table and run the generator.",
    "",
]


def doc(text, indent):
    return [" " * indent + ("/// " + line if line else "///") for line in text.split("\n")]


def fill(prefix, items, indent, last_suffix):
    """`prefix item, item, …last_suffix` greedily filled to LINE, continuation lines indented."""
    texts = [item + ("," if index < len(items) - 1 else last_suffix) for index, item in enumerate(items)]
    lines, line = [], prefix
    for text in texts:
        gap = "" if not line.strip() or line.endswith("(") else " "
        if line != prefix and len(line) + len(gap) + len(text) > LINE:
            lines.append(line)
            line = " " * indent + text
        else:
            line += gap + text
    lines.append(line)
    return lines


def codes_file(rows):
    lines = HEADER + ["extension HCIOpcode {"]
    for r in rows:
        lines.append(f"    /// {r.spec} ({r.section}).")
        lines.append(f"    public static let {r.case}: UInt16 = {hex4(opcode(r))}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def layout_lines(name, fields, trailer):
    items, splice = [], []
    for f in fields:
        if head(f.kind) == "connection":
            splice.append("connectionParameters")
            continue
        if splice:
            raise TableError(f"{name}: a field after the connection parameters")
        kind = ".bytes(16)" if head(f.kind) == "key" else "." + f.kind
        items.append(f'P("{f.spec}", {kind})')
    if trailer:
        items.append(f'P("{trailer.length_spec}", .uint8)')
    if not splice:
        one = f"    static let {name} = [" + ", ".join(items) + "]"
        if len(one) <= LINE:
            return [one]
        return [f"    static let {name} = ["] + [f"        {i}," for i in items] + ["    ]"]
    one = f"    static let {name} = [" + ", ".join(items) + "] + " + splice[0]
    if len(one) <= LINE:
        return [one]
    return ([f"    static let {name} =", "        ["] + [f"            {i}," for i in items]
            + [f"        ] + {splice[0]}"])


def table_row(r):
    args = [hex4(opcode(r)), f'"{r.name}"']
    if r.describe:
        args.append(f"custom: {r.describe}")
    else:
        args.append(f"L.{r.layout}")
    if r.repeat:
        phys = f", phys: 0b{r.repeat.phys:03b}" if r.repeat.phys is not None else ""
        args.append(f'repeating: .init(L.{r.repeat.layout}, group: "{r.repeat.group}"{phys})')
    if r.returns is not None:
        args.append(f"returns: {r.returns}")
    return descriptor_row(args)


def descriptor_row(args):
    """A descriptor table's `.init(…)` row, on one line when it fits (the event tables' too)."""
    one = "        .init(" + ", ".join(args) + "),"
    if len(one) <= LINE:
        return [one]
    return ["        .init("] + fill("            ", args, 12, "),")


def guard(conditions, indent):
    pad = " " * indent
    one = pad + "guard " + ", ".join(conditions) + " else { return nil }"
    if len(one) <= LINE:
        return [one]
    lines = fill(pad + "guard", conditions, indent + 4, "")
    return lines + [pad + "else { return nil }"]


def struct_lines(name, group):
    first = group[0]
    shared = len(group) > 1
    fields = first.fields
    partial = first.partial
    optional = [partial or f.optional for f in fields]
    trailer = first.trailer
    lines = [""] + doc(first.doc, 0)
    lines.append(f"public struct {name}: HCICommandEncodable, Sendable {{")
    if shared:
        lines.append("    public let commandOpcode: UInt16")
    else:
        lines.append(f"    public static let opcode: UInt16 = HCIOpcode.{first.case}")
    if trailer and trailer.padded:
        lines.append("    /// The data's octets on the wire, whatever its length.")
        lines.append(f"    public static let maximumLength = {trailer.maximum}")
    for f, opt in zip(fields, optional):
        if f.doc:
            lines += doc(f.doc, 4)
        lines.append(f"    public let {f.swift}: {swift_type(f)}{'?' if opt else ''}")
    if trailer:
        lines.append(f"    public let {trailer.swift}: [UInt8]")
    opcode_label = ["opcode: UInt16"] if shared else []
    if first.init:
        params = opcode_label + [f"{f.swift}: {swift_type(f)}{'?' if opt else ''}" for f, opt in zip(fields, optional)]
        if trailer:
            params.append(f"{trailer.swift}: [UInt8]")
        lines.append("")
        one = "    public init(" + ", ".join(params) + ") {"
        if len(one) <= LINE:
            lines.append(one)
        else:
            lines += ["    public init("] + fill("        ", params, 8, "") + ["    ) {"]
        if shared:
            lines.append("        commandOpcode = opcode")
        for f in fields:
            lines.append(f"        self.{f.swift} = {f.swift}")
        if trailer:
            lines.append(f"        self.{trailer.swift} = {trailer.swift}")
        lines.append("    }")
    # The decoder.
    conditions, assignments, offset = [], [], 0
    for f, opt in zip(fields, optional):
        read = KINDS[head(f.kind)][2].format(o=offset)
        if opt:
            if head(f.kind) == "handle":
                read += ".map { $0 & HCIConnectionHandle.mask }"
            assignments.append(f"        {f.swift} = {read}")
        else:
            conditions.append(f"let {f.swift} = {read}")
            value = f"{f.swift} & HCIConnectionHandle.mask" if head(f.kind) == "handle" else f.swift
            assignments.append(f"        self.{f.swift} = {value}")
        offset += size(f)
    if trailer:
        length = trailer.swift + "Length"
        conditions.append(f"let {length} = p.u8({offset})")
        if trailer.padded:
            conditions.append(f"Int({length}) <= Self.maximumLength")
        elif trailer.maximum is not None:
            conditions.append(f"Int({length}) <= {trailer.maximum}")
        conditions.append(f"let {trailer.swift} = p.slice({offset + 1}, Int({length}))")
        assignments.append(f"        self.{trailer.swift} = {trailer.swift}.toArray()")
    failable = "?" if conditions else ""
    lines.append("")
    lines.append(f"    public init{failable}({'opcode: UInt16, ' if shared else ''}parameters p: ByteView) {{")
    if conditions:
        lines += guard(conditions, 8)
    if shared:
        lines.append("        commandOpcode = opcode")
    lines += assignments
    lines.append("    }")
    if not shared:
        lines.append("")
        lines.append("    public var commandOpcode: UInt16 { Self.opcode }")
    # The encoder.
    lines.append("")
    body = []
    for f, opt in zip(fields, optional):
        write = KINDS[head(f.kind)][3].format(n=f.swift)
        if opt:
            body.append(f"        guard let {f.swift} else {{ return }}")
        body.append("        " + write)
    if trailer:
        body.append(f"        w.appendUInt8(UInt8({trailer.swift}.count))")
        body.append(f"        w.appendBytes({trailer.swift})")
        if trailer.padded:
            body.append(f"        w.appendZeros(Self.maximumLength - {trailer.swift}.count)")
    if len(body) == 1 and len("    public func appendParameters(to w: inout ByteWriter) { " + body[0].strip() + " }") <= LINE:
        lines.append("    public func appendParameters(to w: inout ByteWriter) { " + body[0].strip() + " }")
    else:
        lines += ["    public func appendParameters(to w: inout ByteWriter) {"] + body + ["    }"]
    lines.append("}")
    return lines


def at(base, offset):
    """The Swift offset expression `base + offset` (base a name, offset an int)."""
    return base if offset == 0 else f"{base} + {offset}"


def block_size(rep):
    return sum(size(f) for f in rep.fields)


def count_expression(rep, count):
    """How many blocks the count field's value `count` announces (Swift)."""
    if rep.phys is None:
        return f"Int({count})"
    return f"({count} & Self.knownPHYBits).nonzeroBitCount"


def repeated_struct_lines(name, group):
    """A command whose last fixed field counts the blocks after it: the count (not a PHY mask) is
    not stored, it is the list's length. The decoder checks that the parameters hold every block
    the count announces before it makes the list, so a hostile count fails, never allocates."""
    first = group[0]
    rep = first.repeat
    fields = first.fields
    counter = fields[-1]
    stored = fields if rep.phys is not None else fields[:-1]
    # The block's own name inside its owner, its full name in a row that shares it.
    block = rep.type.split(".")[-1] if rep.type.rsplit(".", 1)[0] == name else rep.type
    lines = [""] + doc(first.doc, 0)
    lines.append(f"public struct {name}: HCICommandEncodable, Sendable {{")
    lines.append(f"    public static let opcode: UInt16 = HCIOpcode.{first.case}")
    if rep.phys is not None:
        lines.append("    /// The PHY bits that carry a block (the others are reserved).")
        lines.append(f"    public static let knownPHYBits: UInt8 = 0b{rep.phys:03b}")
    for f in stored:
        if f.doc:
            lines += doc(f.doc, 4)
        lines.append(f"    public let {f.swift}: {swift_type(f)}")
    lines.append(f"    public let {rep.swift}: [{block}]")
    if rep.phys is not None:
        lines.append("")
        lines.append(f"    /// The PHY each of `{rep.swift}` is for (1 LE 1M, 2 LE 2M, 3 LE Coded), in order.")
        lines.append(f"    public var {rep.swift[:-3] + 'y' if rep.swift.endswith('ies') else rep.swift}PHYs: [UInt8] "
                     f"{{ HCIRepeatedBlocks.phys({counter.swift} & Self.knownPHYBits) }}")
    params = [f"{f.swift}: {swift_type(f)}" for f in stored] + [f"{rep.swift}: [{block}]"]
    lines.append("")
    if rep.phys is not None:
        lines.append(f"    /// `{rep.swift}`: one per known bit of `{counter.swift}`, in bit order.")
    one = "    public init(" + ", ".join(params) + ") {"
    if len(one) <= LINE:
        lines.append(one)
    else:
        lines += ["    public init("] + fill("        ", params, 8, "") + ["    ) {"]
    for f in stored:
        lines.append(f"        self.{f.swift} = {f.swift}")
    lines.append(f"        self.{rep.swift} = {rep.swift}")
    lines.append("    }")
    # The decoder.
    conditions, offset = [], 0
    for f in fields:
        conditions.append(f"let {f.swift} = {KINDS[head(f.kind)][2].format(o=offset)}")
        offset += size(f)
    count = rep.swift + "Count"
    conditions.append(f"let {rep.swift}Bytes = p.slice({offset}, {count_expression(rep, counter.swift)} * {block_size(rep)})")
    lines.append("")
    lines.append("    public init?(parameters p: ByteView) {")
    lines += guard(conditions, 8)
    for f in stored:
        value = f"{f.swift} & HCIConnectionHandle.mask" if head(f.kind) == "handle" else f.swift
        lines.append(f"        self.{f.swift} = {value}")
    lines.append(f"        let {count} = {count_expression(rep, counter.swift)}")
    lines.append(f"        var {rep.swift}: [{block}] = []")
    lines.append(f"        {rep.swift}.reserveCapacity({count})")
    lines.append(f"        for index in 0..<{count} {{")
    lines.append(f"            guard let entry = {block}({rep.swift}Bytes, at: index * {block_size(rep)}) else {{ return nil }}")
    lines.append(f"            {rep.swift}.append(entry)")
    lines.append("        }")
    lines.append(f"        self.{rep.swift} = {rep.swift}")
    lines.append("    }")
    lines.append("")
    lines.append("    public var commandOpcode: UInt16 { Self.opcode }")
    # The encoder.
    lines.append("")
    lines.append("    public func appendParameters(to w: inout ByteWriter) {")
    for f in stored:
        lines.append("        " + KINDS[head(f.kind)][3].format(n=f.swift))
    if rep.phys is None:
        lines.append(f"        w.appendUInt8(UInt8(truncatingIfNeeded: {rep.swift}.count))")
    lines.append(f"        for entry in {rep.swift} {{ entry.append(to: &w) }}")
    lines.append("    }")
    lines.append("}")
    return lines


def block_lines(rep):
    owner, name = rep.type.rsplit(".", 1)
    lines = ["", f"extension {owner} {{"] + doc(rep.doc, 4)
    lines.append(f"    public struct {name}: Equatable, Sendable {{")
    for f in rep.fields:
        if f.doc:
            lines += doc(f.doc, 8)
        lines.append(f"        public let {f.swift}: {swift_type(f)}")
    params = [f"{f.swift}: {swift_type(f)}" for f in rep.fields]
    lines.append("")
    one = "        public init(" + ", ".join(params) + ") {"
    if len(one) <= LINE:
        lines.append(one)
    else:
        lines += ["        public init("] + fill("            ", params, 12, "") + ["        ) {"]
    for f in rep.fields:
        lines.append(f"            self.{f.swift} = {f.swift}")
    lines.append("        }")
    lines.append("")
    lines.append("        /// The block at `o` in `p`; nil when it does not fit.")
    lines.append("        init?(_ p: ByteView, at o: Int) {")
    conditions, offset = [], 0
    for f in rep.fields:
        conditions.append(f"let {f.swift} = {KINDS[head(f.kind)][2].format(o=at('o', offset))}")
        offset += size(f)
    lines += guard(conditions, 12)
    for f in rep.fields:
        lines.append(f"            self.{f.swift} = {f.swift}")
    lines.append("        }")
    lines.append("")
    lines.append("        func append(to w: inout ByteWriter) {")
    for f in rep.fields:
        lines.append("            " + KINDS[head(f.kind)][3].format(n=f.swift))
    lines.append("        }")
    lines.append("    }")
    lines.append("}")
    return lines


def return_struct_lines(ret):
    """`status` and the fields after it, each nil when the return parameters end before it."""
    owner, name = ret.type.rsplit(".", 1) if "." in ret.type else (None, ret.type)
    i = " " * (4 if owner else 0)
    fields = [Field("status", "status", "status", False, None)] + list(ret.fields)
    lines = [""] + ([f"extension {owner} {{"] if owner else []) + doc(ret.doc, len(i))
    lines.append(f"{i}public struct {name}: Sendable, Equatable {{")
    if ret.case:
        lines.append(f"{i}    public static let opcode: UInt16 = HCIOpcode.{ret.case}")
    for f in fields:
        if f.doc:
            lines += doc(f.doc, len(i) + 4)
        lines.append(f"{i}    public let {f.swift}: {swift_type(f)}?")
    params = [f"{f.swift}: {swift_type(f)}?" for f in fields]
    lines.append("")
    one = f"{i}    public init(" + ", ".join(params) + ") {"
    if len(one) <= LINE:
        lines.append(one)
    else:
        lines += [f"{i}    public init("] + fill(i + "        ", params, len(i) + 8, "") + [f"{i}    ) {{"]
    for f in fields:
        lines.append(f"{i}        self.{f.swift} = {f.swift}")
    lines.append(f"{i}    }}")
    lines.append("")
    lines.append(f"{i}    /// Status and the fields after it, each nil when the return parameters end before it.")
    lines.append(f"{i}    public init(returnParameters p: ByteView) {{")
    offset = 0
    for f in fields:
        read = KINDS[head(f.kind)][2].format(o=offset)
        if head(f.kind) == "handle":
            read += ".map { $0 & HCIConnectionHandle.mask }"
        lines.append(f"{i}        {f.swift} = {read}")
        offset += size(f)
    lines.append(f"{i}    }}")
    lines.append("")
    lines.append(f"{i}    /// The return parameters as Command Complete carries them, up to the first missing field.")
    lines.append(f"{i}    public func appendReturnParameters(to w: inout ByteWriter) {{")
    for f in fields:
        lines.append(f"{i}        guard let {f.swift} else {{ return }}")
        lines.append(f"{i}        " + KINDS[head(f.kind)][3].format(n=f.swift))
    lines.append(f"{i}    }}")
    lines.append(f"{i}}}")
    if owner:
        lines.append("}")
    return lines


def fixed_length(row):
    n = sum(size(f) for f in row.fields)
    if row.trailer:
        n += 1 + (row.trailer.maximum if row.trailer.padded else 0)
    return n


def packets_file(rows, types, returns):
    typed = [r for r in rows if r.type]
    lines = HEADER + [
        "import BLEBytes",
        "import BLECrypto",
        "",
        "private typealias P = HCIParameter",
        "",
        "extension HCICommandLayouts {",
    ]
    done = set()
    for r in typed:
        if r.layout and r.layout not in done:
            done.add(r.layout)
            lines += layout_lines(r.layout, r.fields, r.trailer)
        if r.repeat and r.repeat.layout not in done:
            done.add(r.repeat.layout)
            lines += layout_lines(r.repeat.layout, r.repeat.fields, None)
    lines.append("    // Return layouts (after Status).")
    for ret in returns:
        lines += layout_lines(ret.layout, ret.fields, None)
    lines += [
        "}",
        "",
        "extension HCICommands {",
        "    /// The rows of `table` for the typed commands, in opcode order.",
        "    static let typedRows: [HCICommandDescriptor] = [",
    ]
    for r in typed:
        lines += table_row(r)
    lines += [
        "    ]",
        "}",
        "",
        "/// The typed commands of the table, by opcode.",
        "public enum HCITypedCommands {",
        "    /// The typed command `opcode` names, decoded from its parameters: nil for an opcode without",
        "    /// a type here, or parameters too short for it.",
        "    public static func decode(opcode: UInt16, parameters p: ByteView) -> (any HCICommandEncodable)? {",
        "        switch opcode {",
    ]
    for r in typed:
        shared = len(types[r.type]) > 1
        call = f"{r.type}(opcode: opcode, parameters: p)" if shared else f"{r.type}(parameters: p)"
        one = f"        case HCIOpcode.{r.case}: return {call}"
        lines += [one] if len(one) <= LINE else [f"        case HCIOpcode.{r.case}:", f"            return {call}"]
    lines += [
        "        default: return nil",
        "        }",
        "    }",
        "",
        "    /// Each typed opcode of a fixed length and the length of its parameters in full (every",
        "    /// field, a trailer's length octet, a padded trailer's octets); not the rows with repeated",
        "    /// blocks (`repeatedOpcodes`).",
        "    public static let fullLengths: [(opcode: UInt16, length: Int)] = [",
    ]
    for r in typed:
        if r.repeat:
            continue
        lines.append(f"        (HCIOpcode.{r.case}, {fixed_length(r)}),")
    lines += [
        "    ]",
        "",
        "    /// The typed opcodes whose parameters end in repeated blocks.",
        "    public static let repeatedOpcodes: [UInt16] = [",
    ]
    for r in typed:
        if r.repeat:
            lines.append(f"        HCIOpcode.{r.case},")
    lines += [
        "    ]",
        "}",
    ]
    blocks = set()
    for name, group in types.items():
        lines += repeated_struct_lines(name, group) if group[0].repeat else struct_lines(name, group)
        rep = group[0].repeat
        if rep and rep.type not in blocks:
            blocks.add(rep.type)
            lines += block_lines(rep)
    for ret in returns:
        lines += return_struct_lines(ret)
    return "\n".join(lines) + "\n"
