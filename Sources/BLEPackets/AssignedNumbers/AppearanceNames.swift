/// Names of GAP Appearance values (Assigned Numbers 2.6; Core 5.4 Vol 3 Part C 12.2).
///
/// An appearance is a 10-bit category (bits 15–6) and a 6-bit subcategory (bits 5–0):
/// 0x0341 is category 0x00D "Heart Rate Sensor", subcategory 0x01 "Heart Rate Belt". A value
/// whose subcategory is 0 is the generic member of its category and is named after it.
public enum AppearanceNames {
    /// The most specific name of `value`: its subcategory's, or its category's when the
    /// subcategory is 0. Nil for unassigned values (an unknown subcategory of a known category
    /// included; `categoryName` still names those).
    public static func name(_ value: UInt16) -> StaticString? { table.name(value) }

    /// The name of the category of `value` ("Heart Rate Sensor" for 0x0341).
    public static func categoryName(_ value: UInt16) -> StaticString? { table.name(value & 0xFFC0) }

    /// The 10-bit category number (0x00D for 0x0341).
    @inlinable public static func category(_ value: UInt16) -> UInt16 { value >> 6 }

    /// The 6-bit subcategory number (0x01 for 0x0341).
    @inlinable public static func subcategory(_ value: UInt16) -> UInt8 { UInt8(value & 0x3F) }
}
