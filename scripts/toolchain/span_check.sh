#!/usr/bin/env bash
# What Swift's Span/RawSpan let blecap's payload views be, with the toolchain on this machine and
# in Swift 6 language mode without experimental features (docs/performance.md, "Payload views and
# Span"). Each case is compiled and its outcome compared with the expected one; exit 1 when the
# toolchain answers otherwise (then the docs' conclusion needs revisiting).
#
#   scripts/toolchain/span_check.sh
set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

check() {  # name, expected (builds|refused), extra flags, source
  local name=$1 expected=$2 flags=$3
  printf '%s\n' "$4" > "$work/$name.swift"
  # shellcheck disable=SC2086
  if swiftc -swift-version 6 $flags -emit-sil -o /dev/null "$work/$name.swift" > "$work/$name.log" 2>&1; then got=builds; else got=refused; fi
  why=$(grep -m1 -o 'error: .*' "$work/$name.log")
  if [ "$got" = "$expected" ]; then echo "ok   $name: $got${why:+ ($why)}"; else
    echo "FAIL $name: $got, expected $expected"; sed -n 1,6p "$work/$name.log"; status=1; fi
}

# A record's payload handed to a closure as a RawSpan: the compiler holds it to the closure.
check closure_parameter builds "" '
final class Reader {
    var buffer: [UInt8] = [1, 2, 3, 4]
    func withNextRecord<R>(_ body: (RawSpan) -> R) -> R { let b = buffer; return body(b.span.bytes) }
}
_ = Reader().withNextRecord { $0.byteCount }'

# Keeping that payload past its record (what "valid until the next record" forbids): refused
# (by the lifetime checker on SIL, after type checking: hence -emit-sil, not -typecheck).
check closure_escape refused "" '
final class Reader {
    var buffer: [UInt8] = [1, 2, 3, 4]
    func withNextRecord<R>(_ body: (RawSpan) -> R) -> R { let b = buffer; return body(b.span.bytes) }
}
var kept: RawSpan? = nil
Reader().withNextRecord { kept = $0 }'

# A decoded PDU as a struct of views (what every BLEPackets type is): a ~Escapable struct with a
# RawSpan field needs lifetime dependence, refused without the experimental feature ...
check view_struct refused "" '
struct ATTValueView: ~Escapable {
    let opcode: UInt8
    let value: RawSpan
}'

# ... and accepted with it (experimental: not for a package that builds on a stock toolchain).
check view_struct_experimental builds "-enable-experimental-feature Lifetimes" '
struct ATTValueView: ~Escapable {
    let opcode: UInt8
    let value: RawSpan
    @_lifetime(copy value)
    init(opcode: UInt8, value: RawSpan) { self.opcode = opcode; self.value = value }
}'

swiftc --version 2>&1 | head -1
exit $status
