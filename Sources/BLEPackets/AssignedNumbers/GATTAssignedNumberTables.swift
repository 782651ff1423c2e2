// Generated from the Bluetooth SIG Assigned Numbers lists (names as published by the SIG).
// Keep each table sorted by key: lookups bisect it.

extension GATTAssignedNumbers {
    /// SIG-assigned GATT services (Assigned Numbers 3.4).
    static let services = AssignedNumberTable(
        keys: [
            0x1800, 0x1801, 0x1802, 0x1803, 0x1804, 0x1805, 0x1806, 0x1807,
            0x1808, 0x1809, 0x180A, 0x180D, 0x180E, 0x180F, 0x1810, 0x1811,
            0x1812, 0x1813, 0x1814, 0x1815, 0x1816, 0x1818, 0x1819, 0x181A,
            0x181B, 0x181C, 0x181D, 0x181E, 0x181F, 0x1820, 0x1821, 0x1822,
            0x1823, 0x1824, 0x1825, 0x1826, 0x1827, 0x1828, 0x1829, 0x183A,
            0x183B, 0x183C, 0x183D, 0x183E, 0x183F, 0x1840, 0x1843, 0x1844,
            0x1845, 0x1846, 0x1847, 0x1848, 0x1849, 0x184A, 0x184B, 0x184C,
            0x184D, 0x184E, 0x184F, 0x1850, 0x1851, 0x1852, 0x1853, 0x1854,
            0x1855, 0x1856, 0x1857, 0x1858, 0x1859, 0x185A, 0x185B, 0x185C,
            0x185D, 0x185E, 0x185F, 0x1860,
        ],
        names: [
            "Generic Access",  // 0x1800
            "Generic Attribute",  // 0x1801
            "Immediate Alert",  // 0x1802
            "Link Loss",  // 0x1803
            "Tx Power",  // 0x1804
            "Current Time",  // 0x1805
            "Reference Time Update",  // 0x1806
            "Next DST Change",  // 0x1807
            "Glucose",  // 0x1808
            "Health Thermometer",  // 0x1809
            "Device Information",  // 0x180A
            "Heart Rate",  // 0x180D
            "Phone Alert Status",  // 0x180E
            "Battery",  // 0x180F
            "Blood Pressure",  // 0x1810
            "Alert Notification",  // 0x1811
            "Human Interface Device",  // 0x1812
            "Scan Parameters",  // 0x1813
            "Running Speed and Cadence",  // 0x1814
            "Automation IO",  // 0x1815
            "Cycling Speed and Cadence",  // 0x1816
            "Cycling Power",  // 0x1818
            "Location and Navigation",  // 0x1819
            "Environmental Sensing",  // 0x181A
            "Body Composition",  // 0x181B
            "User Data",  // 0x181C
            "Weight Scale",  // 0x181D
            "Bond Management",  // 0x181E
            "Continuous Glucose Monitoring",  // 0x181F
            "Internet Protocol Support",  // 0x1820
            "Indoor Positioning",  // 0x1821
            "Pulse Oximeter",  // 0x1822
            "HTTP Proxy",  // 0x1823
            "Transport Discovery",  // 0x1824
            "Object Transfer",  // 0x1825
            "Fitness Machine",  // 0x1826
            "Mesh Provisioning",  // 0x1827
            "Mesh Proxy",  // 0x1828
            "Reconnection Configuration",  // 0x1829
            "Insulin Delivery",  // 0x183A
            "Binary Sensor",  // 0x183B
            "Emergency Configuration",  // 0x183C
            "Authorization Control",  // 0x183D
            "Physical Activity Monitor",  // 0x183E
            "Elapsed Time",  // 0x183F
            "Generic Health Sensor",  // 0x1840
            "Audio Input Control",  // 0x1843
            "Volume Control",  // 0x1844
            "Volume Offset Control",  // 0x1845
            "Coordinated Set Identification",  // 0x1846
            "Device Time",  // 0x1847
            "Media Control",  // 0x1848
            "Generic Media Control",  // 0x1849
            "Constant Tone Extension",  // 0x184A
            "Telephone Bearer",  // 0x184B
            "Generic Telephone Bearer",  // 0x184C
            "Microphone Control",  // 0x184D
            "Audio Stream Control",  // 0x184E
            "Broadcast Audio Scan",  // 0x184F
            "Published Audio Capabilities",  // 0x1850
            "Basic Audio Announcement",  // 0x1851
            "Broadcast Audio Announcement",  // 0x1852
            "Common Audio",  // 0x1853
            "Hearing Access",  // 0x1854
            "Telephony and Media Audio",  // 0x1855
            "Public Broadcast Announcement",  // 0x1856
            "Electronic Shelf Label",  // 0x1857
            "Gaming Audio",  // 0x1858
            "Mesh Proxy Solicitation",  // 0x1859
            "Industrial Measurement Device",  // 0x185A
            "Ranging",  // 0x185B
            "HID ISO",  // 0x185C
            "Cookware",  // 0x185D
            "Voice Assistant",  // 0x185E
            "Generic Voice Assistant",  // 0x185F
            "Tire Pressure Monitoring System",  // 0x1860
        ])

    /// SIG-assigned GATT characteristics (Assigned Numbers 3.8).
    static let characteristics = AssignedNumberTable(
        keys: [
            0x2A00, 0x2A01, 0x2A02, 0x2A03, 0x2A04, 0x2A05, 0x2A06, 0x2A07,
            0x2A08, 0x2A09, 0x2A0A, 0x2A0B, 0x2A0C, 0x2A0D, 0x2A0E, 0x2A0F,
            0x2A10, 0x2A11, 0x2A12, 0x2A13, 0x2A14, 0x2A15, 0x2A16, 0x2A17,
            0x2A18, 0x2A19, 0x2A1A, 0x2A1B, 0x2A1C, 0x2A1D, 0x2A1E, 0x2A1F,
            0x2A20, 0x2A21, 0x2A22, 0x2A23, 0x2A24, 0x2A25, 0x2A26, 0x2A27,
            0x2A28, 0x2A29, 0x2A2A, 0x2A2B, 0x2A2C, 0x2A2F, 0x2A30, 0x2A31,
            0x2A32, 0x2A33, 0x2A34, 0x2A35, 0x2A36, 0x2A37, 0x2A38, 0x2A39,
            0x2A3A, 0x2A3B, 0x2A3C, 0x2A3D, 0x2A3E, 0x2A3F, 0x2A40, 0x2A41,
            0x2A42, 0x2A43, 0x2A44, 0x2A45, 0x2A46, 0x2A47, 0x2A48, 0x2A49,
            0x2A4A, 0x2A4B, 0x2A4C, 0x2A4D, 0x2A4E, 0x2A4F, 0x2A50, 0x2A51,
            0x2A52, 0x2A53, 0x2A54, 0x2A55, 0x2A56, 0x2A57, 0x2A58, 0x2A59,
            0x2A5A, 0x2A5B, 0x2A5C, 0x2A5D, 0x2A5E, 0x2A5F, 0x2A60, 0x2A62,
            0x2A63, 0x2A64, 0x2A65, 0x2A66, 0x2A67, 0x2A68, 0x2A69, 0x2A6A,
            0x2A6B, 0x2A6C, 0x2A6D, 0x2A6E, 0x2A6F, 0x2A70, 0x2A71, 0x2A72,
            0x2A73, 0x2A74, 0x2A75, 0x2A76, 0x2A77, 0x2A78, 0x2A79, 0x2A7A,
            0x2A7B, 0x2A7D, 0x2A7E, 0x2A7F, 0x2A80, 0x2A81, 0x2A82, 0x2A83,
            0x2A84, 0x2A85, 0x2A86, 0x2A87, 0x2A88, 0x2A89, 0x2A8A, 0x2A8B,
            0x2A8C, 0x2A8D, 0x2A8E, 0x2A8F, 0x2A90, 0x2A91, 0x2A92, 0x2A93,
            0x2A94, 0x2A95, 0x2A96, 0x2A97, 0x2A98, 0x2A99, 0x2A9A, 0x2A9B,
            0x2A9C, 0x2A9D, 0x2A9E, 0x2A9F, 0x2AA0, 0x2AA1, 0x2AA2, 0x2AA3,
            0x2AA4, 0x2AA5, 0x2AA6, 0x2AA7, 0x2AA8, 0x2AA9, 0x2AAA, 0x2AAB,
            0x2AAC, 0x2AAD, 0x2AAE, 0x2AAF, 0x2AB0, 0x2AB1, 0x2AB2, 0x2AB3,
            0x2AB4, 0x2AB5, 0x2AB6, 0x2AB7, 0x2AB8, 0x2AB9, 0x2ABA, 0x2ABB,
            0x2ABC, 0x2ABD, 0x2ABE, 0x2ABF, 0x2AC0, 0x2AC1, 0x2AC2, 0x2AC3,
            0x2AC4, 0x2AC5, 0x2AC6, 0x2AC7, 0x2AC8, 0x2AC9, 0x2ACA, 0x2ACB,
            0x2ACC, 0x2ACD, 0x2ACE, 0x2ACF, 0x2AD0, 0x2AD1, 0x2AD2, 0x2AD3,
            0x2AD4, 0x2AD5, 0x2AD6, 0x2AD7, 0x2AD8, 0x2AD9, 0x2ADA, 0x2ADB,
            0x2ADC, 0x2ADD, 0x2ADE, 0x2AE0, 0x2AE1, 0x2AE2, 0x2AE3, 0x2AE4,
            0x2AE5, 0x2AE6, 0x2AE7, 0x2AE8, 0x2AE9, 0x2AEA, 0x2AEB, 0x2AEC,
            0x2AED, 0x2AEE, 0x2AEF, 0x2AF0, 0x2AF1, 0x2AF2, 0x2AF3, 0x2AF4,
            0x2AF5, 0x2AF6, 0x2AF7, 0x2AF8, 0x2AF9, 0x2AFA, 0x2AFB, 0x2AFC,
            0x2AFD, 0x2AFE, 0x2AFF, 0x2B00, 0x2B01, 0x2B02, 0x2B03, 0x2B04,
            0x2B05, 0x2B06, 0x2B07, 0x2B08, 0x2B09, 0x2B0A, 0x2B0B, 0x2B0C,
            0x2B0D, 0x2B0E, 0x2B0F, 0x2B10, 0x2B11, 0x2B12, 0x2B13, 0x2B14,
            0x2B15, 0x2B16, 0x2B17, 0x2B18, 0x2B19, 0x2B1A, 0x2B1B, 0x2B1C,
            0x2B1D, 0x2B1E, 0x2B1F, 0x2B20, 0x2B21, 0x2B22, 0x2B23, 0x2B24,
            0x2B25, 0x2B26, 0x2B27, 0x2B28, 0x2B29, 0x2B2A, 0x2B2B, 0x2B2C,
            0x2B2D, 0x2B2E, 0x2B2F, 0x2B30, 0x2B31, 0x2B32, 0x2B33, 0x2B34,
            0x2B35, 0x2B36, 0x2B37, 0x2B38, 0x2B39, 0x2B3A, 0x2B3B, 0x2B3C,
            0x2B3D, 0x2B3E, 0x2B3F, 0x2B40, 0x2B41, 0x2B42, 0x2B43, 0x2B44,
            0x2B45, 0x2B46, 0x2B47, 0x2B48, 0x2B49, 0x2B4A, 0x2B4B, 0x2B4C,
            0x2B4D, 0x2B4E, 0x2B4F, 0x2B50, 0x2B51, 0x2B77, 0x2B78, 0x2B79,
            0x2B7A, 0x2B7B, 0x2B7C, 0x2B7D, 0x2B7E, 0x2B7F, 0x2B80, 0x2B81,
            0x2B82, 0x2B83, 0x2B84, 0x2B85, 0x2B86, 0x2B87, 0x2B88, 0x2B89,
            0x2B8A, 0x2B8B, 0x2B8C, 0x2B8D, 0x2B8E, 0x2B8F, 0x2B90, 0x2B91,
            0x2B92, 0x2B93, 0x2B94, 0x2B95, 0x2B96, 0x2B97, 0x2B98, 0x2B99,
            0x2B9A, 0x2B9B, 0x2B9C, 0x2B9D, 0x2B9E, 0x2B9F, 0x2BA0, 0x2BA1,
            0x2BA2, 0x2BA3, 0x2BA4, 0x2BA5, 0x2BA6, 0x2BA7, 0x2BA8, 0x2BA9,
            0x2BAA, 0x2BAB, 0x2BAC, 0x2BAD, 0x2BAE, 0x2BAF, 0x2BB0, 0x2BB1,
            0x2BB2, 0x2BB3, 0x2BB4, 0x2BB5, 0x2BB6, 0x2BB7, 0x2BB8, 0x2BB9,
            0x2BBA, 0x2BBB, 0x2BBC, 0x2BBD, 0x2BBE, 0x2BBF, 0x2BC0, 0x2BC1,
            0x2BC2, 0x2BC3, 0x2BC4, 0x2BC5, 0x2BC6, 0x2BC7, 0x2BC8, 0x2BC9,
            0x2BCA, 0x2BCB, 0x2BCC, 0x2BCD, 0x2BCE, 0x2BCF, 0x2BD0, 0x2BD1,
            0x2BD2, 0x2BD3, 0x2BD4, 0x2BD5, 0x2BD6, 0x2BD7, 0x2BD8, 0x2BD9,
            0x2BDA, 0x2BDB, 0x2BDC, 0x2BDD, 0x2BDE, 0x2BDF, 0x2BE0, 0x2BE1,
            0x2BE2, 0x2BE3, 0x2BE4, 0x2BE5, 0x2BE6, 0x2BE7, 0x2BE8, 0x2BE9,
            0x2BEA, 0x2BEB, 0x2BEC, 0x2BED, 0x2BEE, 0x2BEF, 0x2BF0, 0x2BF1,
            0x2BF2, 0x2BF3, 0x2BF4, 0x2BF5, 0x2BF6, 0x2BF7, 0x2BF8, 0x2BF9,
            0x2BFA, 0x2BFB, 0x2BFC, 0x2BFD, 0x2BFE, 0x2BFF, 0x2C00, 0x2C01,
            0x2C02, 0x2C03, 0x2C04, 0x2C05, 0x2C06, 0x2C07, 0x2C08, 0x2C09,
            0x2C0A, 0x2C0B, 0x2C0C, 0x2C0D, 0x2C0E, 0x2C0F, 0x2C10, 0x2C11,
            0x2C12, 0x2C13, 0x2C14, 0x2C15, 0x2C16, 0x2C17, 0x2C18, 0x2C19,
            0x2C1A, 0x2C1B, 0x2C1C, 0x2C1D, 0x2C1E, 0x2C1F, 0x2C20, 0x2C21,
            0x2C22, 0x2C23, 0x2C24, 0x2C25, 0x2C26, 0x2C27, 0x2C28, 0x2C29,
            0x2C2A, 0x2C2B, 0x2C2C, 0x2C2D, 0x2C2E, 0x2C2F, 0x2C30, 0x2C31,
            0x2C32, 0x2C33, 0x2C34, 0x2C35, 0x2C36, 0x2C37, 0x2C38, 0x2C39,
            0x2C3A, 0x2C3B, 0x2C3C, 0x2C3D, 0x2C3E, 0x2C3F, 0x2C40, 0x2C41,
        ],
        names: [
            "Device Name",  // 0x2A00
            "Appearance",  // 0x2A01
            "Peripheral Privacy Flag",  // 0x2A02
            "Reconnection Address",  // 0x2A03
            "Peripheral Preferred Connection Parameters",  // 0x2A04
            "Service Changed",  // 0x2A05
            "Alert Level",  // 0x2A06
            "Tx Power Level",  // 0x2A07
            "Date Time",  // 0x2A08
            "Day of Week",  // 0x2A09
            "Day Date Time",  // 0x2A0A
            "Exact Time 100",  // 0x2A0B
            "Exact Time 256",  // 0x2A0C
            "DST Offset",  // 0x2A0D
            "Time Zone",  // 0x2A0E
            "Local Time Information",  // 0x2A0F
            "Secondary Time Zone",  // 0x2A10
            "Time with DST",  // 0x2A11
            "Time Accuracy",  // 0x2A12
            "Time Source",  // 0x2A13
            "Reference Time Information",  // 0x2A14
            "Time Broadcast",  // 0x2A15
            "Time Update Control Point",  // 0x2A16
            "Time Update State",  // 0x2A17
            "Glucose Measurement",  // 0x2A18
            "Battery Level",  // 0x2A19
            "Battery Power State",  // 0x2A1A
            "Battery Level State",  // 0x2A1B
            "Temperature Measurement",  // 0x2A1C
            "Temperature Type",  // 0x2A1D
            "Intermediate Temperature",  // 0x2A1E
            "Temperature Celsius",  // 0x2A1F
            "Temperature Fahrenheit",  // 0x2A20
            "Measurement Interval",  // 0x2A21
            "Boot Keyboard Input Report",  // 0x2A22
            "System ID",  // 0x2A23
            "Model Number String",  // 0x2A24
            "Serial Number String",  // 0x2A25
            "Firmware Revision String",  // 0x2A26
            "Hardware Revision String",  // 0x2A27
            "Software Revision String",  // 0x2A28
            "Manufacturer Name String",  // 0x2A29
            "IEEE 11073-20601 Regulatory Certification Data List",  // 0x2A2A
            "Current Time",  // 0x2A2B
            "Magnetic Declination",  // 0x2A2C
            "Position 2D",  // 0x2A2F
            "Position 3D",  // 0x2A30
            "Scan Refresh",  // 0x2A31
            "Boot Keyboard Output Report",  // 0x2A32
            "Boot Mouse Input Report",  // 0x2A33
            "Glucose Measurement Context",  // 0x2A34
            "Blood Pressure Measurement",  // 0x2A35
            "Intermediate Cuff Pressure",  // 0x2A36
            "Heart Rate Measurement",  // 0x2A37
            "Body Sensor Location",  // 0x2A38
            "Heart Rate Control Point",  // 0x2A39
            "Removable",  // 0x2A3A
            "Service Required",  // 0x2A3B
            "Scientific Temperature Celsius",  // 0x2A3C
            "String",  // 0x2A3D
            "Network Availability",  // 0x2A3E
            "Alert Status",  // 0x2A3F
            "Ringer Control Point",  // 0x2A40
            "Ringer Setting",  // 0x2A41
            "Alert Category ID Bit Mask",  // 0x2A42
            "Alert Category ID",  // 0x2A43
            "Alert Notification Control Point",  // 0x2A44
            "Unread Alert Status",  // 0x2A45
            "New Alert",  // 0x2A46
            "Supported New Alert Category",  // 0x2A47
            "Supported Unread Alert Category",  // 0x2A48
            "Blood Pressure Feature",  // 0x2A49
            "HID Information",  // 0x2A4A
            "Report Map",  // 0x2A4B
            "HID Control Point",  // 0x2A4C
            "Report",  // 0x2A4D
            "Protocol Mode",  // 0x2A4E
            "Scan Interval Window",  // 0x2A4F
            "PnP ID",  // 0x2A50
            "Glucose Feature",  // 0x2A51
            "Record Access Control Point",  // 0x2A52
            "RSC Measurement",  // 0x2A53
            "RSC Feature",  // 0x2A54
            "SC Control Point",  // 0x2A55
            "Digital",  // 0x2A56
            "Digital Output",  // 0x2A57
            "Analog",  // 0x2A58
            "Analog Output",  // 0x2A59
            "Aggregate",  // 0x2A5A
            "CSC Measurement",  // 0x2A5B
            "CSC Feature",  // 0x2A5C
            "Sensor Location",  // 0x2A5D
            "PLX Spot-Check Measurement",  // 0x2A5E
            "PLX Continuous Measurement",  // 0x2A5F
            "PLX Features",  // 0x2A60
            "Pulse Oximetry Control Point",  // 0x2A62
            "Cycling Power Measurement",  // 0x2A63
            "Cycling Power Vector",  // 0x2A64
            "Cycling Power Feature",  // 0x2A65
            "Cycling Power Control Point",  // 0x2A66
            "Location and Speed",  // 0x2A67
            "Navigation",  // 0x2A68
            "Position Quality",  // 0x2A69
            "LN Feature",  // 0x2A6A
            "LN Control Point",  // 0x2A6B
            "Elevation",  // 0x2A6C
            "Pressure",  // 0x2A6D
            "Temperature",  // 0x2A6E
            "Humidity",  // 0x2A6F
            "True Wind Speed",  // 0x2A70
            "True Wind Direction",  // 0x2A71
            "Apparent Wind Speed",  // 0x2A72
            "Apparent Wind Direction",  // 0x2A73
            "Gust Factor",  // 0x2A74
            "Pollen Concentration",  // 0x2A75
            "UV Index",  // 0x2A76
            "Irradiance",  // 0x2A77
            "Rainfall",  // 0x2A78
            "Wind Chill",  // 0x2A79
            "Heat Index",  // 0x2A7A
            "Dew Point",  // 0x2A7B
            "Descriptor Value Changed",  // 0x2A7D
            "Aerobic Heart Rate Lower Limit",  // 0x2A7E
            "Aerobic Threshold",  // 0x2A7F
            "Age",  // 0x2A80
            "Anaerobic Heart Rate Lower Limit",  // 0x2A81
            "Anaerobic Heart Rate Upper Limit",  // 0x2A82
            "Anaerobic Threshold",  // 0x2A83
            "Aerobic Heart Rate Upper Limit",  // 0x2A84
            "Date of Birth",  // 0x2A85
            "Date of Threshold Assessment",  // 0x2A86
            "Email Address",  // 0x2A87
            "Fat Burn Heart Rate Lower Limit",  // 0x2A88
            "Fat Burn Heart Rate Upper Limit",  // 0x2A89
            "First Name",  // 0x2A8A
            "Five Zone Heart Rate Limits",  // 0x2A8B
            "Gender",  // 0x2A8C
            "Heart Rate Max",  // 0x2A8D
            "Height",  // 0x2A8E
            "Hip Circumference",  // 0x2A8F
            "Last Name",  // 0x2A90
            "Maximum Recommended Heart Rate",  // 0x2A91
            "Resting Heart Rate",  // 0x2A92
            "Sport Type for Aerobic and Anaerobic Thresholds",  // 0x2A93
            "Three Zone Heart Rate Limits",  // 0x2A94
            "Two Zone Heart Rate Limits",  // 0x2A95
            "VO2 Max",  // 0x2A96
            "Waist Circumference",  // 0x2A97
            "Weight",  // 0x2A98
            "Database Change Increment",  // 0x2A99
            "User Index",  // 0x2A9A
            "Body Composition Feature",  // 0x2A9B
            "Body Composition Measurement",  // 0x2A9C
            "Weight Measurement",  // 0x2A9D
            "Weight Scale Feature",  // 0x2A9E
            "User Control Point",  // 0x2A9F
            "Magnetic Flux Density - 2D",  // 0x2AA0
            "Magnetic Flux Density - 3D",  // 0x2AA1
            "Language",  // 0x2AA2
            "Barometric Pressure Trend",  // 0x2AA3
            "Bond Management Control Point",  // 0x2AA4
            "Bond Management Feature",  // 0x2AA5
            "Central Address Resolution",  // 0x2AA6
            "CGM Measurement",  // 0x2AA7
            "CGM Feature",  // 0x2AA8
            "CGM Status",  // 0x2AA9
            "CGM Session Start Time",  // 0x2AAA
            "CGM Session Run Time",  // 0x2AAB
            "CGM Specific Ops Control Point",  // 0x2AAC
            "Indoor Positioning Configuration",  // 0x2AAD
            "Latitude",  // 0x2AAE
            "Longitude",  // 0x2AAF
            "Local North Coordinate",  // 0x2AB0
            "Local East Coordinate",  // 0x2AB1
            "Floor Number",  // 0x2AB2
            "Altitude",  // 0x2AB3
            "Uncertainty",  // 0x2AB4
            "Location Name",  // 0x2AB5
            "URI",  // 0x2AB6
            "HTTP Headers",  // 0x2AB7
            "HTTP Status Code",  // 0x2AB8
            "HTTP Entity Body",  // 0x2AB9
            "HTTP Control Point",  // 0x2ABA
            "HTTPS Security",  // 0x2ABB
            "TDS Control Point",  // 0x2ABC
            "OTS Feature",  // 0x2ABD
            "Object Name",  // 0x2ABE
            "Object Type",  // 0x2ABF
            "Object Size",  // 0x2AC0
            "Object First-Created",  // 0x2AC1
            "Object Last-Modified",  // 0x2AC2
            "Object ID",  // 0x2AC3
            "Object Properties",  // 0x2AC4
            "Object Action Control Point",  // 0x2AC5
            "Object List Control Point",  // 0x2AC6
            "Object List Filter",  // 0x2AC7
            "Object Changed",  // 0x2AC8
            "Resolvable Private Address Only",  // 0x2AC9
            "Unspecified",  // 0x2ACA
            "Directory Listing",  // 0x2ACB
            "Fitness Machine Feature",  // 0x2ACC
            "Treadmill Data",  // 0x2ACD
            "Cross Trainer Data",  // 0x2ACE
            "Step Climber Data",  // 0x2ACF
            "Stair Climber Data",  // 0x2AD0
            "Rower Data",  // 0x2AD1
            "Indoor Bike Data",  // 0x2AD2
            "Training Status",  // 0x2AD3
            "Supported Speed Range",  // 0x2AD4
            "Supported Inclination Range",  // 0x2AD5
            "Supported Resistance Level Range",  // 0x2AD6
            "Supported Heart Rate Range",  // 0x2AD7
            "Supported Power Range",  // 0x2AD8
            "Fitness Machine Control Point",  // 0x2AD9
            "Fitness Machine Status",  // 0x2ADA
            "Mesh Provisioning Data In",  // 0x2ADB
            "Mesh Provisioning Data Out",  // 0x2ADC
            "Mesh Proxy Data In",  // 0x2ADD
            "Mesh Proxy Data Out",  // 0x2ADE
            "Average Current",  // 0x2AE0
            "Average Voltage",  // 0x2AE1
            "Boolean",  // 0x2AE2
            "Chromatic Distance from Planckian",  // 0x2AE3
            "Chromaticity Coordinates",  // 0x2AE4
            "Chromaticity in CCT and Duv Values",  // 0x2AE5
            "Chromaticity Tolerance",  // 0x2AE6
            "CIE 13.3-1995 Color Rendering Index",  // 0x2AE7
            "Coefficient",  // 0x2AE8
            "Correlated Color Temperature",  // 0x2AE9
            "Count 16",  // 0x2AEA
            "Count 24",  // 0x2AEB
            "Country Code",  // 0x2AEC
            "Date UTC",  // 0x2AED
            "Electric Current",  // 0x2AEE
            "Electric Current Range",  // 0x2AEF
            "Electric Current Specification",  // 0x2AF0
            "Electric Current Statistics",  // 0x2AF1
            "Energy",  // 0x2AF2
            "Energy in a Period of Day",  // 0x2AF3
            "Event Statistics",  // 0x2AF4
            "Fixed String 16",  // 0x2AF5
            "Fixed String 24",  // 0x2AF6
            "Fixed String 36",  // 0x2AF7
            "Fixed String 8",  // 0x2AF8
            "Generic Level",  // 0x2AF9
            "Global Trade Item Number",  // 0x2AFA
            "Illuminance",  // 0x2AFB
            "Luminous Efficacy",  // 0x2AFC
            "Luminous Energy",  // 0x2AFD
            "Luminous Exposure",  // 0x2AFE
            "Luminous Flux",  // 0x2AFF
            "Luminous Flux Range",  // 0x2B00
            "Luminous Intensity",  // 0x2B01
            "Mass Flow",  // 0x2B02
            "Perceived Lightness",  // 0x2B03
            "Percentage 8",  // 0x2B04
            "Power",  // 0x2B05
            "Power Specification",  // 0x2B06
            "Relative Runtime in a Current Range",  // 0x2B07
            "Relative Runtime in a Generic Level Range",  // 0x2B08
            "Relative Value in a Voltage Range",  // 0x2B09
            "Relative Value in an Illuminance Range",  // 0x2B0A
            "Relative Value in a Period of Day",  // 0x2B0B
            "Relative Value in a Temperature Range",  // 0x2B0C
            "Temperature 8",  // 0x2B0D
            "Temperature 8 in a Period of Day",  // 0x2B0E
            "Temperature 8 Statistics",  // 0x2B0F
            "Temperature Range",  // 0x2B10
            "Temperature Statistics",  // 0x2B11
            "Time Decihour 8",  // 0x2B12
            "Time Exponential 8",  // 0x2B13
            "Time Hour 24",  // 0x2B14
            "Time Millisecond 24",  // 0x2B15
            "Time Second 16",  // 0x2B16
            "Time Second 8",  // 0x2B17
            "Voltage",  // 0x2B18
            "Voltage Specification",  // 0x2B19
            "Voltage Statistics",  // 0x2B1A
            "Volume Flow",  // 0x2B1B
            "Chromaticity Coordinate",  // 0x2B1C
            "RC Feature",  // 0x2B1D
            "RC Settings",  // 0x2B1E
            "Reconnection Configuration Control Point",  // 0x2B1F
            "IDD Status Changed",  // 0x2B20
            "IDD Status",  // 0x2B21
            "IDD Annunciation Status",  // 0x2B22
            "IDD Features",  // 0x2B23
            "IDD Status Reader Control Point",  // 0x2B24
            "IDD Command Control Point",  // 0x2B25
            "IDD Command Data",  // 0x2B26
            "IDD Record Access Control Point",  // 0x2B27
            "IDD History Data",  // 0x2B28
            "Client Supported Features",  // 0x2B29
            "Database Hash",  // 0x2B2A
            "BSS Control Point",  // 0x2B2B
            "BSS Response",  // 0x2B2C
            "Emergency ID",  // 0x2B2D
            "Emergency Text",  // 0x2B2E
            "ACS Status",  // 0x2B2F
            "ACS Data In",  // 0x2B30
            "ACS Data Out Notify",  // 0x2B31
            "ACS Data Out Indicate",  // 0x2B32
            "ACS Control Point",  // 0x2B33
            "Enhanced Blood Pressure Measurement",  // 0x2B34
            "Enhanced Intermediate Cuff Pressure",  // 0x2B35
            "Blood Pressure Record",  // 0x2B36
            "Registered User",  // 0x2B37
            "BR-EDR Handover Data",  // 0x2B38
            "Bluetooth SIG Data",  // 0x2B39
            "Server Supported Features",  // 0x2B3A
            "Physical Activity Monitor Features",  // 0x2B3B
            "General Activity Instantaneous Data",  // 0x2B3C
            "General Activity Summary Data",  // 0x2B3D
            "CardioRespiratory Activity Instantaneous Data",  // 0x2B3E
            "CardioRespiratory Activity Summary Data",  // 0x2B3F
            "Step Counter Activity Summary Data",  // 0x2B40
            "Sleep Activity Instantaneous Data",  // 0x2B41
            "Sleep Activity Summary Data",  // 0x2B42
            "Physical Activity Monitor Control Point",  // 0x2B43
            "Physical Activity Current Session",  // 0x2B44
            "Physical Activity Session Descriptor",  // 0x2B45
            "Preferred Units",  // 0x2B46
            "High Resolution Height",  // 0x2B47
            "Middle Name",  // 0x2B48
            "Stride Length",  // 0x2B49
            "Handedness",  // 0x2B4A
            "Device Wearing Position",  // 0x2B4B
            "Four Zone Heart Rate Limits",  // 0x2B4C
            "High Intensity Exercise Threshold",  // 0x2B4D
            "Activity Goal",  // 0x2B4E
            "Sedentary Interval Notification",  // 0x2B4F
            "Caloric Intake",  // 0x2B50
            "TMAP Role",  // 0x2B51
            "Audio Input State",  // 0x2B77
            "Gain Settings Attribute",  // 0x2B78
            "Audio Input Type",  // 0x2B79
            "Audio Input Status",  // 0x2B7A
            "Audio Input Control Point",  // 0x2B7B
            "Audio Input Description",  // 0x2B7C
            "Volume State",  // 0x2B7D
            "Volume Control Point",  // 0x2B7E
            "Volume Flags",  // 0x2B7F
            "Volume Offset State",  // 0x2B80
            "Audio Location",  // 0x2B81
            "Volume Offset Control Point",  // 0x2B82
            "Audio Output Description",  // 0x2B83
            "Set Identity Resolving Key",  // 0x2B84
            "Coordinated Set Size",  // 0x2B85
            "Set Member Lock",  // 0x2B86
            "Set Member Rank",  // 0x2B87
            "Encrypted Data Key Material",  // 0x2B88
            "Apparent Energy 32",  // 0x2B89
            "Apparent Power",  // 0x2B8A
            "Live Health Observations",  // 0x2B8B
            "CO₂ Concentration",  // 0x2B8C
            "Cosine of the Angle",  // 0x2B8D
            "Device Time Feature",  // 0x2B8E
            "Device Time Parameters",  // 0x2B8F
            "Device Time",  // 0x2B90
            "Device Time Control Point",  // 0x2B91
            "Time Change Log Data",  // 0x2B92
            "Media Player Name",  // 0x2B93
            "Media Player Icon Object ID",  // 0x2B94
            "Media Player Icon URL",  // 0x2B95
            "Track Changed",  // 0x2B96
            "Track Title",  // 0x2B97
            "Track Duration",  // 0x2B98
            "Track Position",  // 0x2B99
            "Playback Speed",  // 0x2B9A
            "Seeking Speed",  // 0x2B9B
            "Current Track Segments Object ID",  // 0x2B9C
            "Current Track Object ID",  // 0x2B9D
            "Next Track Object ID",  // 0x2B9E
            "Parent Group Object ID",  // 0x2B9F
            "Current Group Object ID",  // 0x2BA0
            "Playing Order",  // 0x2BA1
            "Playing Orders Supported",  // 0x2BA2
            "Media State",  // 0x2BA3
            "Media Control Point",  // 0x2BA4
            "Media Control Point Opcodes Supported",  // 0x2BA5
            "Search Results Object ID",  // 0x2BA6
            "Search Control Point",  // 0x2BA7
            "Energy 32",  // 0x2BA8
            "Media Player Icon Object Type",  // 0x2BA9
            "Track Segments Object Type",  // 0x2BAA
            "Track Object Type",  // 0x2BAB
            "Group Object Type",  // 0x2BAC
            "Constant Tone Extension Enable",  // 0x2BAD
            "Advertising Constant Tone Extension Minimum Length",  // 0x2BAE
            "Advertising Constant Tone Extension Minimum Transmit Count",  // 0x2BAF
            "Advertising Constant Tone Extension Transmit Duration",  // 0x2BB0
            "Advertising Constant Tone Extension Interval",  // 0x2BB1
            "Advertising Constant Tone Extension PHY",  // 0x2BB2
            "Bearer Provider Name",  // 0x2BB3
            "Bearer UCI",  // 0x2BB4
            "Bearer Technology",  // 0x2BB5
            "Bearer URI Schemes Supported List",  // 0x2BB6
            "Bearer Signal Strength",  // 0x2BB7
            "Bearer Signal Strength Reporting Interval",  // 0x2BB8
            "Bearer List Current Calls",  // 0x2BB9
            "Content Control ID",  // 0x2BBA
            "Status Flags",  // 0x2BBB
            "Incoming Call Target Bearer URI",  // 0x2BBC
            "Call State",  // 0x2BBD
            "Call Control Point",  // 0x2BBE
            "Call Control Point Optional Opcodes",  // 0x2BBF
            "Termination Reason",  // 0x2BC0
            "Incoming Call",  // 0x2BC1
            "Call Friendly Name",  // 0x2BC2
            "Mute",  // 0x2BC3
            "Sink ASE",  // 0x2BC4
            "Source ASE",  // 0x2BC5
            "ASE Control Point",  // 0x2BC6
            "Broadcast Audio Scan Control Point",  // 0x2BC7
            "Broadcast Receive State",  // 0x2BC8
            "Sink PAC",  // 0x2BC9
            "Sink Audio Locations",  // 0x2BCA
            "Source PAC",  // 0x2BCB
            "Source Audio Locations",  // 0x2BCC
            "Available Audio Contexts",  // 0x2BCD
            "Supported Audio Contexts",  // 0x2BCE
            "Ammonia Concentration",  // 0x2BCF
            "Carbon Monoxide Concentration",  // 0x2BD0
            "Methane Concentration",  // 0x2BD1
            "Nitrogen Dioxide Concentration",  // 0x2BD2
            "Non-Methane Volatile Organic Compounds Concentration",  // 0x2BD3
            "Ozone Concentration",  // 0x2BD4
            "Particulate Matter - PM1 Concentration",  // 0x2BD5
            "Particulate Matter - PM2.5 Concentration",  // 0x2BD6
            "Particulate Matter - PM10 Concentration",  // 0x2BD7
            "Sulfur Dioxide Concentration",  // 0x2BD8
            "Sulfur Hexafluoride Concentration",  // 0x2BD9
            "Hearing Aid Features",  // 0x2BDA
            "Hearing Aid Preset Control Point",  // 0x2BDB
            "Active Preset Index",  // 0x2BDC
            "Stored Health Observations",  // 0x2BDD
            "Fixed String 64",  // 0x2BDE
            "High Temperature",  // 0x2BDF
            "High Voltage",  // 0x2BE0
            "Light Distribution",  // 0x2BE1
            "Light Output",  // 0x2BE2
            "Light Source Type",  // 0x2BE3
            "Noise",  // 0x2BE4
            "Relative Runtime in a Correlated Color Temperature Range",  // 0x2BE5
            "Time Second 32",  // 0x2BE6
            "VOC Concentration",  // 0x2BE7
            "Voltage Frequency",  // 0x2BE8
            "Battery Critical Status",  // 0x2BE9
            "Battery Health Status",  // 0x2BEA
            "Battery Health Information",  // 0x2BEB
            "Battery Information",  // 0x2BEC
            "Battery Level Status",  // 0x2BED
            "Battery Time Status",  // 0x2BEE
            "Estimated Service Date",  // 0x2BEF
            "Battery Energy Status",  // 0x2BF0
            "Observation Schedule Changed",  // 0x2BF1
            "Current Elapsed Time",  // 0x2BF2
            "Health Sensor Features",  // 0x2BF3
            "GHS Control Point",  // 0x2BF4
            "LE GATT Security Levels",  // 0x2BF5
            "ESL Address",  // 0x2BF6
            "AP Sync Key Material",  // 0x2BF7
            "ESL Response Key Material",  // 0x2BF8
            "ESL Current Absolute Time",  // 0x2BF9
            "ESL Display Information",  // 0x2BFA
            "ESL Image Information",  // 0x2BFB
            "ESL Sensor Information",  // 0x2BFC
            "ESL LED Information",  // 0x2BFD
            "ESL Control Point",  // 0x2BFE
            "UDI for Medical Devices",  // 0x2BFF
            "GMAP Role",  // 0x2C00
            "UGG Features",  // 0x2C01
            "UGT Features",  // 0x2C02
            "BGS Features",  // 0x2C03
            "BGR Features",  // 0x2C04
            "Percentage 8 Steps",  // 0x2C05
            "Acceleration",  // 0x2C06
            "Force",  // 0x2C07
            "Linear Position",  // 0x2C08
            "Rotational Speed",  // 0x2C09
            "Length",  // 0x2C0A
            "Torque",  // 0x2C0B
            "IMD Status",  // 0x2C0C
            "IMDS Descriptor Value Changed",  // 0x2C0D
            "First Use Date",  // 0x2C0E
            "Life Cycle Data",  // 0x2C0F
            "Work Cycle Data",  // 0x2C10
            "Service Cycle Data",  // 0x2C11
            "IMD Control",  // 0x2C12
            "IMD Historical Data",  // 0x2C13
            "RAS Features",  // 0x2C14
            "Real-time Ranging Data",  // 0x2C15
            "On-demand Ranging Data",  // 0x2C16
            "RAS Control Point",  // 0x2C17
            "Ranging Data Ready",  // 0x2C18
            "Ranging Data Overwritten",  // 0x2C19
            "Coordinated Set Name",  // 0x2C1A
            "Humidity 8",  // 0x2C1B
            "Illuminance 16",  // 0x2C1C
            "Acceleration - 3D",  // 0x2C1D
            "Precise Acceleration - 3D",  // 0x2C1E
            "Acceleration Detection Status",  // 0x2C1F
            "Door/Window Status",  // 0x2C20
            "Pushbutton Status 8",  // 0x2C21
            "Contact Status 8",  // 0x2C22
            "HID ISO Properties",  // 0x2C23
            "LE HID Operation Mode",  // 0x2C24
            "Cookware Description",  // 0x2C25
            "Recipe Control",  // 0x2C26
            "Recipe Parameters",  // 0x2C27
            "Cooking Step Status",  // 0x2C28
            "Cooking Zone Capabilities",  // 0x2C29
            "Cooking Zone Desired Cooking Conditions",  // 0x2C2A
            "Cooking Zone Actual Cooking Conditions",  // 0x2C2B
            "Cookware Sensor Data",  // 0x2C2C
            "Cookware Sensor Aggregate",  // 0x2C2D
            "Cooking Temperature",  // 0x2C2E
            "Cooking Zone Perceived Power",  // 0x2C2F
            "Kitchen Appliance Airflow",  // 0x2C30
            "Voice Assistant Name",  // 0x2C31
            "Voice Assistant UUID",  // 0x2C32
            "Voice Assistant Service Control Point",  // 0x2C33
            "Installed Location",  // 0x2C34
            "Voice Assistant Session State",  // 0x2C35
            "Voice Assistant Session Flag",  // 0x2C36
            "Voice Assistant Supported Languages",  // 0x2C37
            "Voice Assistant Supported Features",  // 0x2C38
            "HID SCI Mode",  // 0x2C39
            "HID SCI Information",  // 0x2C3A
            "Tire Pressure",  // 0x2C3B
            "Tire Temperature",  // 0x2C3C
            "Tire Acceleration",  // 0x2C3D
            "TPMS Properties",  // 0x2C3E
            "TPMS Duty Cycle",  // 0x2C3F
            "TPMS Position",  // 0x2C40
            "TPMS Signing Key",  // 0x2C41
        ])

    /// SIG-assigned GATT descriptors (Assigned Numbers 3.7).
    static let descriptors = AssignedNumberTable(
        keys: [
            0x2900, 0x2901, 0x2902, 0x2903, 0x2904, 0x2905, 0x2906, 0x2907,
            0x2908, 0x2909, 0x290A, 0x290B, 0x290C, 0x290D, 0x290E, 0x290F,
            0x2910, 0x2911, 0x2912, 0x2913, 0x2914, 0x2915, 0x2916, 0x2917,
        ],
        names: [
            "Characteristic Extended Properties",  // 0x2900
            "Characteristic User Description",  // 0x2901
            "Client Characteristic Configuration",  // 0x2902
            "Server Characteristic Configuration",  // 0x2903
            "Characteristic Presentation Format",  // 0x2904
            "Characteristic Aggregate Format",  // 0x2905
            "Valid Range",  // 0x2906
            "External Report Reference",  // 0x2907
            "Report Reference",  // 0x2908
            "Number of Digitals",  // 0x2909
            "Value Trigger Setting",  // 0x290A
            "Environmental Sensing Configuration",  // 0x290B
            "Environmental Sensing Measurement",  // 0x290C
            "Environmental Sensing Trigger Setting",  // 0x290D
            "Time Trigger Setting",  // 0x290E
            "Complete BR-EDR Transport Block Data",  // 0x290F
            "Observation Schedule",  // 0x2910
            "Valid Range and Accuracy",  // 0x2911
            "Measurement Description",  // 0x2912
            "Manufacturer Limits",  // 0x2913
            "Process Tolerances",  // 0x2914
            "IMD Trigger Setting",  // 0x2915
            "Cooking Sensor Info",  // 0x2916
            "Cooking Trigger Setting",  // 0x2917
        ])

    /// Units used by the Characteristic Presentation Format descriptor (Assigned Numbers 3.5).
    static let units = AssignedNumberTable(
        keys: [
            0x2700, 0x2701, 0x2702, 0x2703, 0x2704, 0x2705, 0x2706, 0x2707,
            0x2710, 0x2711, 0x2712, 0x2713, 0x2714, 0x2715, 0x2716, 0x2717,
            0x2718, 0x2719, 0x271A, 0x271B, 0x271C, 0x271D, 0x271E, 0x2720,
            0x2721, 0x2722, 0x2723, 0x2724, 0x2725, 0x2726, 0x2727, 0x2728,
            0x2729, 0x272A, 0x272B, 0x272C, 0x272D, 0x272E, 0x272F, 0x2730,
            0x2731, 0x2732, 0x2733, 0x2734, 0x2735, 0x2740, 0x2741, 0x2742,
            0x2743, 0x2744, 0x2745, 0x2746, 0x2747, 0x2748, 0x2749, 0x274A,
            0x274B, 0x274C, 0x274D, 0x274E, 0x274F, 0x2750, 0x2751, 0x2752,
            0x2753, 0x2754, 0x2755, 0x2756, 0x2757, 0x2760, 0x2761, 0x2762,
            0x2763, 0x2764, 0x2765, 0x2766, 0x2767, 0x2768, 0x2780, 0x2781,
            0x2782, 0x2783, 0x2784, 0x2785, 0x2786, 0x2787, 0x27A0, 0x27A1,
            0x27A2, 0x27A3, 0x27A4, 0x27A5, 0x27A6, 0x27A7, 0x27A8, 0x27A9,
            0x27AA, 0x27AB, 0x27AC, 0x27AD, 0x27AE, 0x27AF, 0x27B0, 0x27B1,
            0x27B2, 0x27B3, 0x27B4, 0x27B5, 0x27B6, 0x27B7, 0x27B8, 0x27B9,
            0x27BA, 0x27BC, 0x27BD, 0x27BE, 0x27BF, 0x27C0, 0x27C1, 0x27C2,
            0x27C3, 0x27C4, 0x27C5, 0x27C6, 0x27C7, 0x27C8,
        ],
        names: [
            "unitless",  // 0x2700
            "length (metre)",  // 0x2701
            "mass (kilogram)",  // 0x2702
            "time (second)",  // 0x2703
            "electric current (ampere)",  // 0x2704
            "thermodynamic temperature (kelvin)",  // 0x2705
            "amount of substance (mole)",  // 0x2706
            "luminous intensity (candela)",  // 0x2707
            "area (square metres)",  // 0x2710
            "volume (cubic metres)",  // 0x2711
            "velocity (metres per second)",  // 0x2712
            "acceleration (metres per second squared)",  // 0x2713
            "wavenumber (reciprocal metre)",  // 0x2714
            "density (kilogram per cubic metre)",  // 0x2715
            "surface density (kilogram per square metre)",  // 0x2716
            "specific volume (cubic metre per kilogram)",  // 0x2717
            "current density (ampere per square metre)",  // 0x2718
            "magnetic field strength (ampere per metre)",  // 0x2719
            "amount concentration (mole per cubic metre)",  // 0x271A
            "mass concentration (kilogram per cubic metre)",  // 0x271B
            "luminance (candela per square metre)",  // 0x271C
            "refractive index",  // 0x271D
            "relative permeability",  // 0x271E
            "plane angle (radian)",  // 0x2720
            "solid angle (steradian)",  // 0x2721
            "frequency (hertz)",  // 0x2722
            "force (newton)",  // 0x2723
            "pressure (pascal)",  // 0x2724
            "energy (joule)",  // 0x2725
            "power (watt)",  // 0x2726
            "electric charge (coulomb)",  // 0x2727
            "electric potential difference (volt)",  // 0x2728
            "capacitance (farad)",  // 0x2729
            "electric resistance (ohm)",  // 0x272A
            "electric conductance (siemens)",  // 0x272B
            "magnetic flux (weber)",  // 0x272C
            "magnetic flux density (tesla)",  // 0x272D
            "inductance (henry)",  // 0x272E
            "Celsius temperature (degree Celsius)",  // 0x272F
            "luminous flux (lumen)",  // 0x2730
            "illuminance (lux)",  // 0x2731
            "activity referred to a radionuclide (becquerel)",  // 0x2732
            "absorbed dose (gray)",  // 0x2733
            "dose equivalent (sievert)",  // 0x2734
            "catalytic activity (katal)",  // 0x2735
            "dynamic viscosity (pascal second)",  // 0x2740
            "moment of force (newton metre)",  // 0x2741
            "surface tension (newton per metre)",  // 0x2742
            "angular velocity (radian per second)",  // 0x2743
            "angular acceleration (radian per second squared)",  // 0x2744
            "heat flux density (watt per square metre)",  // 0x2745
            "heat capacity (joule per kelvin)",  // 0x2746
            "specific heat capacity (joule per kilogram kelvin)",  // 0x2747
            "specific energy (joule per kilogram)",  // 0x2748
            "thermal conductivity (watt per metre kelvin)",  // 0x2749
            "energy density (joule per cubic metre)",  // 0x274A
            "electric field strength (volt per metre)",  // 0x274B
            "electric charge density (coulomb per cubic metre)",  // 0x274C
            "surface charge density (coulomb per square metre)",  // 0x274D
            "electric flux density (coulomb per square metre)",  // 0x274E
            "permittivity (farad per metre)",  // 0x274F
            "permeability (henry per metre)",  // 0x2750
            "molar energy (joule per mole)",  // 0x2751
            "molar entropy (joule per mole kelvin)",  // 0x2752
            "exposure (coulomb per kilogram)",  // 0x2753
            "absorbed dose rate (gray per second)",  // 0x2754
            "radiant intensity (watt per steradian)",  // 0x2755
            "radiance (watt per square metre steradian)",  // 0x2756
            "catalytic activity concentration (katal per cubic metre)",  // 0x2757
            "time (minute)",  // 0x2760
            "time (hour)",  // 0x2761
            "time (day)",  // 0x2762
            "plane angle (degree)",  // 0x2763
            "plane angle (minute)",  // 0x2764
            "plane angle (second)",  // 0x2765
            "area (hectare)",  // 0x2766
            "volume (litre)",  // 0x2767
            "mass (tonne)",  // 0x2768
            "pressure (bar)",  // 0x2780
            "pressure (millimetre of mercury)",  // 0x2781
            "length (ångström)",  // 0x2782
            "length (nautical mile)",  // 0x2783
            "area (barn)",  // 0x2784
            "velocity (knot)",  // 0x2785
            "logarithmic radio quantity (neper)",  // 0x2786
            "logarithmic radio quantity (bel)",  // 0x2787
            "length (yard)",  // 0x27A0
            "length (parsec)",  // 0x27A1
            "length (inch)",  // 0x27A2
            "length (foot)",  // 0x27A3
            "length (mile)",  // 0x27A4
            "pressure (pound-force per square inch)",  // 0x27A5
            "velocity (kilometre per hour)",  // 0x27A6
            "velocity (mile per hour)",  // 0x27A7
            "angular velocity (revolution per minute)",  // 0x27A8
            "energy (gram calorie)",  // 0x27A9
            "energy (kilogram calorie)",  // 0x27AA
            "energy (kilowatt hour)",  // 0x27AB
            "thermodynamic temperature (degree Fahrenheit)",  // 0x27AC
            "percentage",  // 0x27AD
            "per mille",  // 0x27AE
            "period (beats per minute)",  // 0x27AF
            "electric charge (ampere hours)",  // 0x27B0
            "mass density (milligram per decilitre)",  // 0x27B1
            "mass density (millimole per litre)",  // 0x27B2
            "time (year)",  // 0x27B3
            "time (month)",  // 0x27B4
            "concentration (count per cubic metre)",  // 0x27B5
            "irradiance (watt per square metre)",  // 0x27B6
            "milliliter (per kilogram per minute)",  // 0x27B7
            "mass (pound)",  // 0x27B8
            "metabolic equivalent",  // 0x27B9
            "step (per minute)",  // 0x27BA
            "stroke (per minute)",  // 0x27BC
            "pace (kilometre per minute)",  // 0x27BD
            "luminous efficacy (lumen per watt)",  // 0x27BE
            "luminous energy (lumen hour)",  // 0x27BF
            "luminous exposure (lux hour)",  // 0x27C0
            "mass flow (gram per second)",  // 0x27C1
            "volume flow (litre per second)",  // 0x27C2
            "sound pressure (decibel)",  // 0x27C3
            "parts per million",  // 0x27C4
            "parts per billion",  // 0x27C5
            "mass density rate ((milligram per decilitre) per minute)",  // 0x27C6
            "Electrical Apparent Energy (kilovolt ampere hour)",  // 0x27C7
            "Electrical Apparent Power (volt ampere)",  // 0x27C8
        ])

    /// 16-bit UUIDs assigned to SIG member companies and SDOs (Assigned Numbers 3.11, 3.12).
    static let members = AssignedNumberTable(
        keys: [
            0xFC97, 0xFC98, 0xFC99, 0xFC9A, 0xFC9B, 0xFC9C, 0xFC9D, 0xFC9E,
            0xFC9F, 0xFCA0, 0xFCA1, 0xFCA2, 0xFCA3, 0xFCA4, 0xFCA5, 0xFCA6,
            0xFCA7, 0xFCA8, 0xFCA9, 0xFCAA, 0xFCAB, 0xFCAC, 0xFCAD, 0xFCAE,
            0xFCAF, 0xFCB0, 0xFCB1, 0xFCB2, 0xFCB3, 0xFCB4, 0xFCB5, 0xFCB6,
            0xFCB7, 0xFCB8, 0xFCB9, 0xFCBA, 0xFCBB, 0xFCBC, 0xFCBD, 0xFCBE,
            0xFCBF, 0xFCC0, 0xFCC1, 0xFCC2, 0xFCC3, 0xFCC4, 0xFCC5, 0xFCC6,
            0xFCC7, 0xFCC8, 0xFCC9, 0xFCCA, 0xFCCB, 0xFCCC, 0xFCCD, 0xFCCE,
            0xFCCF, 0xFCD0, 0xFCD1, 0xFCD2, 0xFCD3, 0xFCD4, 0xFCD5, 0xFCD6,
            0xFCD7, 0xFCD8, 0xFCD9, 0xFCDA, 0xFCDB, 0xFCDC, 0xFCDD, 0xFCDE,
            0xFCDF, 0xFCE0, 0xFCE1, 0xFCE2, 0xFCE3, 0xFCE4, 0xFCE5, 0xFCE6,
            0xFCE7, 0xFCE8, 0xFCE9, 0xFCEA, 0xFCEB, 0xFCEC, 0xFCED, 0xFCEE,
            0xFCEF, 0xFCF0, 0xFCF1, 0xFCF2, 0xFCF3, 0xFCF4, 0xFCF5, 0xFCF6,
            0xFCF7, 0xFCF8, 0xFCF9, 0xFCFA, 0xFCFB, 0xFCFC, 0xFCFD, 0xFCFE,
            0xFCFF, 0xFD00, 0xFD01, 0xFD02, 0xFD03, 0xFD04, 0xFD05, 0xFD06,
            0xFD07, 0xFD08, 0xFD09, 0xFD0A, 0xFD0B, 0xFD0C, 0xFD0D, 0xFD0E,
            0xFD0F, 0xFD10, 0xFD11, 0xFD12, 0xFD13, 0xFD14, 0xFD15, 0xFD16,
            0xFD17, 0xFD18, 0xFD19, 0xFD1A, 0xFD1B, 0xFD1C, 0xFD1D, 0xFD1E,
            0xFD1F, 0xFD20, 0xFD21, 0xFD22, 0xFD23, 0xFD24, 0xFD25, 0xFD26,
            0xFD27, 0xFD28, 0xFD29, 0xFD2A, 0xFD2B, 0xFD2C, 0xFD2D, 0xFD2E,
            0xFD2F, 0xFD30, 0xFD31, 0xFD32, 0xFD33, 0xFD34, 0xFD35, 0xFD36,
            0xFD37, 0xFD38, 0xFD39, 0xFD3A, 0xFD3B, 0xFD3C, 0xFD3D, 0xFD3E,
            0xFD3F, 0xFD40, 0xFD41, 0xFD42, 0xFD43, 0xFD44, 0xFD45, 0xFD46,
            0xFD47, 0xFD48, 0xFD49, 0xFD4A, 0xFD4B, 0xFD4C, 0xFD4D, 0xFD4E,
            0xFD4F, 0xFD50, 0xFD51, 0xFD52, 0xFD53, 0xFD54, 0xFD55, 0xFD56,
            0xFD57, 0xFD58, 0xFD59, 0xFD5A, 0xFD5B, 0xFD5C, 0xFD5D, 0xFD5E,
            0xFD5F, 0xFD60, 0xFD61, 0xFD62, 0xFD63, 0xFD64, 0xFD65, 0xFD66,
            0xFD67, 0xFD68, 0xFD69, 0xFD6A, 0xFD6B, 0xFD6C, 0xFD6D, 0xFD6E,
            0xFD6F, 0xFD70, 0xFD71, 0xFD72, 0xFD73, 0xFD74, 0xFD75, 0xFD76,
            0xFD77, 0xFD78, 0xFD79, 0xFD7A, 0xFD7B, 0xFD7C, 0xFD7D, 0xFD7E,
            0xFD7F, 0xFD80, 0xFD81, 0xFD82, 0xFD83, 0xFD84, 0xFD85, 0xFD86,
            0xFD87, 0xFD88, 0xFD89, 0xFD8A, 0xFD8B, 0xFD8C, 0xFD8D, 0xFD8E,
            0xFD8F, 0xFD90, 0xFD91, 0xFD92, 0xFD93, 0xFD94, 0xFD95, 0xFD96,
            0xFD97, 0xFD98, 0xFD99, 0xFD9A, 0xFD9B, 0xFD9C, 0xFD9D, 0xFD9E,
            0xFD9F, 0xFDA0, 0xFDA1, 0xFDA2, 0xFDA3, 0xFDA4, 0xFDA5, 0xFDA6,
            0xFDA7, 0xFDA8, 0xFDA9, 0xFDAA, 0xFDAB, 0xFDAC, 0xFDAD, 0xFDAE,
            0xFDAF, 0xFDB0, 0xFDB1, 0xFDB2, 0xFDB3, 0xFDB4, 0xFDB5, 0xFDB6,
            0xFDB7, 0xFDB8, 0xFDB9, 0xFDBA, 0xFDBB, 0xFDBC, 0xFDBD, 0xFDBE,
            0xFDBF, 0xFDC0, 0xFDC1, 0xFDC2, 0xFDC3, 0xFDC4, 0xFDC5, 0xFDC6,
            0xFDC7, 0xFDC8, 0xFDC9, 0xFDCA, 0xFDCB, 0xFDCC, 0xFDCD, 0xFDCE,
            0xFDCF, 0xFDD0, 0xFDD1, 0xFDD2, 0xFDD3, 0xFDD4, 0xFDD5, 0xFDD6,
            0xFDD7, 0xFDD8, 0xFDD9, 0xFDDA, 0xFDDB, 0xFDDC, 0xFDDD, 0xFDDE,
            0xFDDF, 0xFDE0, 0xFDE1, 0xFDE2, 0xFDE3, 0xFDE4, 0xFDE5, 0xFDE6,
            0xFDE7, 0xFDE8, 0xFDE9, 0xFDEA, 0xFDEB, 0xFDEC, 0xFDED, 0xFDEE,
            0xFDEF, 0xFDF0, 0xFDF1, 0xFDF2, 0xFDF3, 0xFDF4, 0xFDF5, 0xFDF6,
            0xFDF7, 0xFDF8, 0xFDF9, 0xFDFA, 0xFDFB, 0xFDFC, 0xFDFD, 0xFDFE,
            0xFDFF, 0xFE00, 0xFE01, 0xFE02, 0xFE03, 0xFE04, 0xFE05, 0xFE06,
            0xFE07, 0xFE08, 0xFE09, 0xFE0A, 0xFE0B, 0xFE0C, 0xFE0D, 0xFE0E,
            0xFE0F, 0xFE10, 0xFE11, 0xFE12, 0xFE13, 0xFE14, 0xFE15, 0xFE16,
            0xFE17, 0xFE18, 0xFE19, 0xFE1A, 0xFE1B, 0xFE1C, 0xFE1D, 0xFE1E,
            0xFE1F, 0xFE20, 0xFE21, 0xFE22, 0xFE23, 0xFE24, 0xFE25, 0xFE26,
            0xFE27, 0xFE28, 0xFE29, 0xFE2A, 0xFE2B, 0xFE2C, 0xFE2D, 0xFE2E,
            0xFE2F, 0xFE30, 0xFE31, 0xFE32, 0xFE33, 0xFE34, 0xFE35, 0xFE36,
            0xFE37, 0xFE38, 0xFE39, 0xFE3A, 0xFE3B, 0xFE3C, 0xFE3D, 0xFE3E,
            0xFE3F, 0xFE40, 0xFE41, 0xFE42, 0xFE43, 0xFE44, 0xFE45, 0xFE46,
            0xFE47, 0xFE48, 0xFE49, 0xFE4A, 0xFE4B, 0xFE4C, 0xFE4D, 0xFE4E,
            0xFE4F, 0xFE50, 0xFE51, 0xFE52, 0xFE53, 0xFE54, 0xFE55, 0xFE56,
            0xFE57, 0xFE58, 0xFE59, 0xFE5A, 0xFE5B, 0xFE5C, 0xFE5D, 0xFE5E,
            0xFE5F, 0xFE60, 0xFE61, 0xFE62, 0xFE63, 0xFE64, 0xFE65, 0xFE66,
            0xFE67, 0xFE68, 0xFE69, 0xFE6A, 0xFE6B, 0xFE6C, 0xFE6D, 0xFE6E,
            0xFE6F, 0xFE70, 0xFE71, 0xFE72, 0xFE73, 0xFE74, 0xFE75, 0xFE76,
            0xFE77, 0xFE78, 0xFE79, 0xFE7A, 0xFE7B, 0xFE7C, 0xFE7D, 0xFE7E,
            0xFE7F, 0xFE80, 0xFE81, 0xFE82, 0xFE83, 0xFE84, 0xFE85, 0xFE86,
            0xFE87, 0xFE88, 0xFE89, 0xFE8A, 0xFE8B, 0xFE8C, 0xFE8D, 0xFE8E,
            0xFE8F, 0xFE90, 0xFE91, 0xFE92, 0xFE93, 0xFE94, 0xFE95, 0xFE96,
            0xFE97, 0xFE98, 0xFE99, 0xFE9A, 0xFE9B, 0xFE9C, 0xFE9D, 0xFE9E,
            0xFE9F, 0xFEA0, 0xFEA1, 0xFEA2, 0xFEA3, 0xFEA4, 0xFEA5, 0xFEA6,
            0xFEA7, 0xFEA8, 0xFEA9, 0xFEAA, 0xFEAB, 0xFEAC, 0xFEAD, 0xFEAE,
            0xFEAF, 0xFEB0, 0xFEB1, 0xFEB2, 0xFEB3, 0xFEB4, 0xFEB5, 0xFEB6,
            0xFEB7, 0xFEB8, 0xFEB9, 0xFEBA, 0xFEBB, 0xFEBC, 0xFEBD, 0xFEBE,
            0xFEBF, 0xFEC0, 0xFEC1, 0xFEC2, 0xFEC3, 0xFEC4, 0xFEC5, 0xFEC6,
            0xFEC7, 0xFEC8, 0xFEC9, 0xFECA, 0xFECB, 0xFECC, 0xFECD, 0xFECE,
            0xFECF, 0xFED0, 0xFED1, 0xFED2, 0xFED3, 0xFED4, 0xFED5, 0xFED6,
            0xFED7, 0xFED8, 0xFED9, 0xFEDA, 0xFEDB, 0xFEDC, 0xFEDD, 0xFEDE,
            0xFEDF, 0xFEE0, 0xFEE1, 0xFEE2, 0xFEE3, 0xFEE4, 0xFEE5, 0xFEE6,
            0xFEE7, 0xFEE8, 0xFEE9, 0xFEEA, 0xFEEB, 0xFEEC, 0xFEED, 0xFEEE,
            0xFEEF, 0xFEF0, 0xFEF1, 0xFEF2, 0xFEF3, 0xFEF4, 0xFEF5, 0xFEF6,
            0xFEF7, 0xFEF8, 0xFEF9, 0xFEFA, 0xFEFB, 0xFEFC, 0xFEFD, 0xFEFE,
            0xFEFF, 0xFFF2, 0xFFF3, 0xFFF4, 0xFFF5, 0xFFF6, 0xFFF7, 0xFFF8,
            0xFFF9, 0xFFFA, 0xFFFB, 0xFFFC, 0xFFFD, 0xFFFE,
        ],
        names: [
            "Japan Display Inc.",  // 0xFC97
            "Ruuvi Innovations Ltd.",  // 0xFC98
            "Badger Meter",  // 0xFC99
            "Plockat Solutions AB",  // 0xFC9A
            "Merry Electronics (S) Pte Ltd",  // 0xFC9B
            "Binary Power, Inc.",  // 0xFC9C
            "Lenovo (Singapore) Pte Ltd.",  // 0xFC9D
            "Dell Computer Corporation",  // 0xFC9E
            "Delta Development Team, Inc",  // 0xFC9F
            "Apple Inc.",  // 0xFCA0
            "PF SCHWEISSTECHNOLOGIE GMBH",  // 0xFCA1
            "Meizu Technology Co., Ltd.",  // 0xFCA2
            "Gunnebo Aktiebolag",  // 0xFCA3
            "HP Inc.",  // 0xFCA4
            "HAYWARD INDUSTRIES, INC.",  // 0xFCA5
            "Hubble Network Inc.",  // 0xFCA6
            "Hubble Network Inc.",  // 0xFCA7
            "Medtronic Inc.",  // 0xFCA8
            "Medtronic Inc.",  // 0xFCA9
            "Spintly, Inc.",  // 0xFCAA
            "IRISS INC.",  // 0xFCAB
            "IRISS INC.",  // 0xFCAC
            "Beijing 99help Safety Technology Co., Ltd",  // 0xFCAD
            "Imagine Marketing Limited",  // 0xFCAE
            "AltoBeam Inc.",  // 0xFCAF
            "Ford Motor Company",  // 0xFCB0
            "Google LLC",  // 0xFCB1
            "Apple Inc.",  // 0xFCB2
            "SWEEN",  // 0xFCB3
            "OMRON HEALTHCARE Co., Ltd.",  // 0xFCB4
            "OMRON HEALTHCARE Co., Ltd.",  // 0xFCB5
            "OMRON HEALTHCARE Co., Ltd.",  // 0xFCB6
            "T-Mobile USA",  // 0xFCB7
            "Ribbiot, INC.",  // 0xFCB8
            "Lumi United Technology Co., Ltd",  // 0xFCB9
            "BlueID GmbH",  // 0xFCBA
            "SharkNinja Operating LLC",  // 0xFCBB
            "Drowsy Digital, Inc.",  // 0xFCBC
            "Toshiba Corporation",  // 0xFCBD
            "Musen Connect, Inc.",  // 0xFCBE
            "ASSA ABLOY Opening Solutions Sweden AB",  // 0xFCBF
            "Xiaomi Inc.",  // 0xFCC0
            "TIMECODE SYSTEMS LIMITED",  // 0xFCC1
            "Qualcomm Technologies, Inc.",  // 0xFCC2
            "HP Inc.",  // 0xFCC3
            "OMRON(DALIAN) CO,.LTD.",  // 0xFCC4
            "OMRON(DALIAN) CO,.LTD.",  // 0xFCC5
            "Wiliot LTD.",  // 0xFCC6
            "PB INC.",  // 0xFCC7
            "Allthenticate, Inc.",  // 0xFCC8
            "SkyHawke Technologies",  // 0xFCC9
            "Cosmed s.r.l.",  // 0xFCCA
            "TOTO LTD.",  // 0xFCCB
            "WiFi Alliance",  // 0xFCCC
            "Zound Industries International AB",  // 0xFCCD
            "Luna Health, Inc.",  // 0xFCCE
            "Google LLC",  // 0xFCCF
            "Laerdal Medical AS",  // 0xFCD0
            "Shenzhen Benwei Media Co.,Ltd.",  // 0xFCD1
            "Allterco Robotics ltd",  // 0xFCD2
            "Fisher & Paykel Healthcare",  // 0xFCD3
            "OMRON HEALTHCARE",  // 0xFCD4
            "Nortek Security & Control",  // 0xFCD5
            "SWISSINNO SOLUTIONS AG",  // 0xFCD6
            "PowerPal Pty Ltd",  // 0xFCD7
            "Appex Factory S.L.",  // 0xFCD8
            "Huso, INC",  // 0xFCD9
            "Draeger",  // 0xFCDA
            "aconno GmbH",  // 0xFCDB
            "Amazon.com Services, LLC",  // 0xFCDC
            "Mobilaris AB",  // 0xFCDD
            "ARCTOP, INC.",  // 0xFCDE
            "NIO USA, Inc.",  // 0xFCDF
            "Akciju sabiedriba \"SAF TEHNIKA\"",  // 0xFCE0
            "Sony Group Corporation",  // 0xFCE1
            "Baracoda Daily Healthtech",  // 0xFCE2
            "Smith & Nephew Medical Limited",  // 0xFCE3
            "Samsara Networks, Inc",  // 0xFCE4
            "Samsara Networks, Inc",  // 0xFCE5
            "Guard RFID Solutions Inc.",  // 0xFCE6
            "TKH Security B.V.",  // 0xFCE7
            "ITT Industries",  // 0xFCE8
            "MindRhythm, Inc.",  // 0xFCE9
            "Chess Wise B.V.",  // 0xFCEA
            "Avi-On",  // 0xFCEB
            "Griffwerk GmbH",  // 0xFCEC
            "Workaround Gmbh",  // 0xFCED
            "Velentium, LLC",  // 0xFCEE
            "Divesoft s.r.o.",  // 0xFCEF
            "Security Enhancement Systems, LLC",  // 0xFCF0
            "Google LLC",  // 0xFCF1
            "Bitwards Oy",  // 0xFCF2
            "Armatura LLC",  // 0xFCF3
            "Allegion",  // 0xFCF4
            "Trident Communication Technology, LLC",  // 0xFCF5
            "The Linux Foundation",  // 0xFCF6
            "Honor Device Co., Ltd.",  // 0xFCF7
            "Honor Device Co., Ltd.",  // 0xFCF8
            "Leupold & Stevens, Inc.",  // 0xFCF9
            "Leupold & Stevens, Inc.",  // 0xFCFA
            "Shenzhen Benwei Media Co., Ltd.",  // 0xFCFB
            "Barrot Technology Co.,Ltd.",  // 0xFCFC
            "Barrot Technology Co.,Ltd.",  // 0xFCFD
            "Sennheiser Consumer Audio GmbH",  // 0xFCFE
            "701x",  // 0xFCFF
            "FUTEK Advanced Sensor Technology, Inc.",  // 0xFD00
            "Sanvita Medical Corporation",  // 0xFD01
            "LEGO System A/S",  // 0xFD02
            "Quuppa Oy",  // 0xFD03
            "Shure Inc.",  // 0xFD04
            "Qualcomm Technologies, Inc.",  // 0xFD05
            "RACE-AI LLC",  // 0xFD06
            "Swedlock AB",  // 0xFD07
            "Bull Group Incorporated Company",  // 0xFD08
            "Cousins and Sears LLC",  // 0xFD09
            "Luminostics, Inc.",  // 0xFD0A
            "Luminostics, Inc.",  // 0xFD0B
            "OSM HK Limited",  // 0xFD0C
            "Blecon Ltd",  // 0xFD0D
            "HerdDogg, Inc",  // 0xFD0E
            "AEON MOTOR CO.,LTD.",  // 0xFD0F
            "AEON MOTOR CO.,LTD.",  // 0xFD10
            "AEON MOTOR CO.,LTD.",  // 0xFD11
            "AEON MOTOR CO.,LTD.",  // 0xFD12
            "BRG Sports, Inc.",  // 0xFD13
            "BRG Sports, Inc.",  // 0xFD14
            "Panasonic Corporation",  // 0xFD15
            "Sensitech, Inc.",  // 0xFD16
            "LEGIC Identsystems AG",  // 0xFD17
            "LEGIC Identsystems AG",  // 0xFD18
            "Smith & Nephew Medical Limited",  // 0xFD19
            "CSIRO",  // 0xFD1A
            "Helios Sports, Inc.",  // 0xFD1B
            "Brady Worldwide Inc.",  // 0xFD1C
            "Samsung Electronics Co., Ltd",  // 0xFD1D
            "Plume Design Inc.",  // 0xFD1E
            "3M",  // 0xFD1F
            "GN Hearing A/S",  // 0xFD20
            "Huawei Technologies Co., Ltd.",  // 0xFD21
            "Huawei Technologies Co., Ltd.",  // 0xFD22
            "DOM Sicherheitstechnik GmbH & Co. KG",  // 0xFD23
            "GD Midea Air-Conditioning Equipment Co., Ltd.",  // 0xFD24
            "GD Midea Air-Conditioning Equipment Co., Ltd.",  // 0xFD25
            "Novo Nordisk A/S",  // 0xFD26
            "Integrated Illumination Systems, Inc.",  // 0xFD27
            "Julius Blum GmbH",  // 0xFD28
            "Asahi Kasei Corporation",  // 0xFD29
            "Sony Corporation",  // 0xFD2A
            "The Access Technologies",  // 0xFD2B
            "The Access Technologies",  // 0xFD2C
            "Xiaomi Inc.",  // 0xFD2D
            "Bitstrata Systems Inc.",  // 0xFD2E
            "Bitstrata Systems Inc.",  // 0xFD2F
            "Sesam Solutions BV",  // 0xFD30
            "LG Electronics Inc.",  // 0xFD31
            "Gemalto Holding BV",  // 0xFD32
            "DashLogic, Inc.",  // 0xFD33
            "Aerosens LLC.",  // 0xFD34
            "Transsion Holdings Limited",  // 0xFD35
            "Google LLC",  // 0xFD36
            "TireCheck GmbH",  // 0xFD37
            "Danfoss A/S",  // 0xFD38
            "PREDIKTAS",  // 0xFD39
            "Verkada Inc.",  // 0xFD3A
            "Verkada Inc.",  // 0xFD3B
            "Redline Communications Inc.",  // 0xFD3C
            "Woan Technology (Shenzhen) Co., Ltd.",  // 0xFD3D
            "Pure Watercraft, inc.",  // 0xFD3E
            "Cognosos, Inc",  // 0xFD3F
            "Beflex Inc.",  // 0xFD40
            "Amazon Lab126",  // 0xFD41
            "Globe (Jiangsu) Co.,Ltd",  // 0xFD42
            "Apple Inc.",  // 0xFD43
            "Apple Inc.",  // 0xFD44
            "GB Solution co.,Ltd",  // 0xFD45
            "Lemco IKE",  // 0xFD46
            "Liberty Global Inc.",  // 0xFD47
            "Geberit International AG",  // 0xFD48
            "Panasonic Corporation",  // 0xFD49
            "Sigma Elektro GmbH",  // 0xFD4A
            "Samsung Electronics Co., Ltd.",  // 0xFD4B
            "Adolf Wuerth GmbH & Co KG",  // 0xFD4C
            "70mai Co.,Ltd.",  // 0xFD4D
            "70mai Co.,Ltd.",  // 0xFD4E
            "SONITOR TECHNOLOGIES AS",  // 0xFD4F
            "Hangzhou Tuya Information  Technology Co., Ltd",  // 0xFD50
            "UTC Fire and Security",  // 0xFD51
            "UTC Fire and Security",  // 0xFD52
            "PCI Private Limited",  // 0xFD53
            "Qingdao Haier Technology Co., Ltd.",  // 0xFD54
            "Braveheart Wireless, Inc.",  // 0xFD55
            "Resmed Ltd",  // 0xFD56
            "Volvo Car Corporation",  // 0xFD57
            "Volvo Car Corporation",  // 0xFD58
            "Samsung Electronics Co., Ltd.",  // 0xFD59
            "Samsung Electronics Co., Ltd.",  // 0xFD5A
            "V2SOFT INC.",  // 0xFD5B
            "React Mobile",  // 0xFD5C
            "maxon motor ltd.",  // 0xFD5D
            "Tapkey GmbH",  // 0xFD5E
            "Meta Platforms Technologies, LLC",  // 0xFD5F
            "Sercomm Corporation",  // 0xFD60
            "Arendi AG",  // 0xFD61
            "Fitbit, Inc.",  // 0xFD62
            "Fitbit, Inc.",  // 0xFD63
            "INRIA",  // 0xFD64
            "Razer Inc.",  // 0xFD65
            "Zebra Technologies Corporation",  // 0xFD66
            "Montblanc Simplo GmbH",  // 0xFD67
            "Ubique Innovation AG",  // 0xFD68
            "Samsung Electronics Co., Ltd",  // 0xFD69
            "Emerson",  // 0xFD6A
            "rapitag GmbH",  // 0xFD6B
            "Samsung Electronics Co., Ltd.",  // 0xFD6C
            "Sigma Elektro GmbH",  // 0xFD6D
            "Polidea sp. z o.o.",  // 0xFD6E
            "Apple, Inc.",  // 0xFD6F
            "GuangDong Oppo Mobile Telecommunications Corp., Ltd",  // 0xFD70
            "GN Hearing A/S",  // 0xFD71
            "Logitech International SA",  // 0xFD72
            "BRControls Products BV",  // 0xFD73
            "BRControls Products BV",  // 0xFD74
            "Insulet Corporation",  // 0xFD75
            "Insulet Corporation",  // 0xFD76
            "Withings",  // 0xFD77
            "Withings",  // 0xFD78
            "Withings",  // 0xFD79
            "Withings",  // 0xFD7A
            "WYZE LABS, INC.",  // 0xFD7B
            "Toshiba Information Systems(Japan) Corporation",  // 0xFD7C
            "Center for Advanced Research Wernher Von Braun",  // 0xFD7D
            "Samsung Electronics Co., Ltd.",  // 0xFD7E
            "Husqvarna AB",  // 0xFD7F
            "Phindex Technologies, Inc",  // 0xFD80
            "CANDY HOUSE, Inc.",  // 0xFD81
            "Sony Corporation",  // 0xFD82
            "iNFORM Technology GmbH",  // 0xFD83
            "Tile, Inc.",  // 0xFD84
            "Husqvarna AB",  // 0xFD85
            "Abbott",  // 0xFD86
            "Google LLC",  // 0xFD87
            "Urbanminded LTD",  // 0xFD88
            "Urbanminded LTD",  // 0xFD89
            "Signify Netherlands B.V.",  // 0xFD8A
            "Jigowatts Inc.",  // 0xFD8B
            "Google LLC",  // 0xFD8C
            "quip NYC Inc.",  // 0xFD8D
            "Motorola Solutions",  // 0xFD8E
            "Matrix ComSec Pvt. Ltd.",  // 0xFD8F
            "Guangzhou SuperSound Information Technology Co.,Ltd",  // 0xFD90
            "Groove X, Inc.",  // 0xFD91
            "Qualcomm Technologies International, Ltd. (QTIL)",  // 0xFD92
            "Bayerische Motoren Werke AG",  // 0xFD93
            "Hewlett Packard Enterprise",  // 0xFD94
            "Rigado",  // 0xFD95
            "Google LLC",  // 0xFD96
            "June Life, Inc.",  // 0xFD97
            "Disney Worldwide Services, Inc.",  // 0xFD98
            "ABB Oy",  // 0xFD99
            "Huawei Technologies Co., Ltd.",  // 0xFD9A
            "Huawei Technologies Co., Ltd.",  // 0xFD9B
            "Huawei Technologies Co., Ltd.",  // 0xFD9C
            "Gastec Corporation",  // 0xFD9D
            "The Coca-Cola Company",  // 0xFD9E
            "VitalTech Affiliates LLC",  // 0xFD9F
            "Secugen Corporation",  // 0xFDA0
            "Groove X, Inc",  // 0xFDA1
            "Groove X, Inc",  // 0xFDA2
            "Inseego Corp.",  // 0xFDA3
            "Inseego Corp.",  // 0xFDA4
            "Neurostim OAB, Inc.",  // 0xFDA5
            "WWZN Information Technology Company Limited",  // 0xFDA6
            "WWZN Information Technology Company Limited",  // 0xFDA7
            "PSA Peugeot Citroën",  // 0xFDA8
            "Rhombus Systems, Inc.",  // 0xFDA9
            "Xiaomi Inc.",  // 0xFDAA
            "Xiaomi Inc.",  // 0xFDAB
            "Tentacle Sync GmbH",  // 0xFDAC
            "Houwa System Design, k.k.",  // 0xFDAD
            "Houwa System Design, k.k.",  // 0xFDAE
            "Wiliot LTD",  // 0xFDAF
            "Proxy Technologies, Inc.",  // 0xFDB0
            "Proxy Technologies, Inc.",  // 0xFDB1
            "Portable Multimedia Ltd",  // 0xFDB2
            "Audiodo AB",  // 0xFDB3
            "HP Inc",  // 0xFDB4
            "ECSG",  // 0xFDB5
            "GWA Hygiene GmbH",  // 0xFDB6
            "LivaNova USA Inc.",  // 0xFDB7
            "LivaNova USA Inc.",  // 0xFDB8
            "Comcast Cable Corporation",  // 0xFDB9
            "Comcast Cable Corporation",  // 0xFDBA
            "Profoto",  // 0xFDBB
            "Emerson",  // 0xFDBC
            "Clover Network, Inc.",  // 0xFDBD
            "California Things Inc.",  // 0xFDBE
            "California Things Inc.",  // 0xFDBF
            "Hunter Douglas",  // 0xFDC0
            "Hunter Douglas",  // 0xFDC1
            "Baidu Online Network Technology (Beijing) Co., Ltd",  // 0xFDC2
            "Baidu Online Network Technology (Beijing) Co., Ltd",  // 0xFDC3
            "Simavita (Aust) Pty Ltd",  // 0xFDC4
            "Automatic Labs",  // 0xFDC5
            "Eli Lilly and Company",  // 0xFDC6
            "Eli Lilly and Company",  // 0xFDC7
            "Hach – Danaher",  // 0xFDC8
            "Busch-Jaeger Elektro GmbH",  // 0xFDC9
            "Fortin Electronic Systems",  // 0xFDCA
            "Meggitt SA",  // 0xFDCB
            "Shoof Technologies",  // 0xFDCC
            "Qingping Technology (Beijing) Co., Ltd.",  // 0xFDCD
            "SENNHEISER electronic GmbH & Co. KG",  // 0xFDCE
            "Nalu Medical, Inc",  // 0xFDCF
            "Huawei Technologies Co., Ltd",  // 0xFDD0
            "Huawei Technologies Co., Ltd",  // 0xFDD1
            "Bose Corporation",  // 0xFDD2
            "FUBA Automotive Electronics GmbH",  // 0xFDD3
            "LX Solutions Pty Limited",  // 0xFDD4
            "Brompton Bicycle Ltd",  // 0xFDD5
            "Ministry of Supply",  // 0xFDD6
            "Emerson",  // 0xFDD7
            "Jiangsu Teranovo Tech Co., Ltd.",  // 0xFDD8
            "Jiangsu Teranovo Tech Co., Ltd.",  // 0xFDD9
            "MHCS",  // 0xFDDA
            "Samsung Electronics Co., Ltd.",  // 0xFDDB
            "4iiii Innovations Inc.",  // 0xFDDC
            "Arch Systems Inc",  // 0xFDDD
            "Noodle Technology Inc.",  // 0xFDDE
            "Harman International",  // 0xFDDF
            "John Deere",  // 0xFDE0
            "Fortin Electronic Systems",  // 0xFDE1
            "Google LLC",  // 0xFDE2
            "Abbott Diabetes Care",  // 0xFDE3
            "JUUL Labs, Inc.",  // 0xFDE4
            "SMK Corporation",  // 0xFDE5
            "Intelletto Technologies Inc",  // 0xFDE6
            "SECOM Co., LTD",  // 0xFDE7
            "Robert Bosch GmbH",  // 0xFDE8
            "Spacesaver Corporation",  // 0xFDE9
            "SeeScan, Inc",  // 0xFDEA
            "Syntronix Corporation",  // 0xFDEB
            "Mannkind Corporation",  // 0xFDEC
            "Pole Star",  // 0xFDED
            "Huawei Technologies Co., Ltd.",  // 0xFDEE
            "ART AND PROGRAM, INC.",  // 0xFDEF
            "Google LLC",  // 0xFDF0
            "LAMPLIGHT Co.,Ltd",  // 0xFDF1
            "AMICCOM Electronics Corporation",  // 0xFDF2
            "Amersports",  // 0xFDF3
            "O. E. M. Controls, Inc.",  // 0xFDF4
            "Milwaukee Electric Tools",  // 0xFDF5
            "AIAIAI ApS",  // 0xFDF6
            "HP Inc.",  // 0xFDF7
            "Onvocal",  // 0xFDF8
            "INIA",  // 0xFDF9
            "Tandem Diabetes Care",  // 0xFDFA
            "Tandem Diabetes Care",  // 0xFDFB
            "Optrel AG",  // 0xFDFC
            "RecursiveSoft Inc.",  // 0xFDFD
            "ADHERIUM(NZ) LIMITED",  // 0xFDFE
            "OSRAM GmbH",  // 0xFDFF
            "Amazon.com Services, Inc.",  // 0xFE00
            "Duracell U.S. Operations Inc.",  // 0xFE01
            "Robert Bosch GmbH",  // 0xFE02
            "Amazon.com Services, Inc.",  // 0xFE03
            "OpenPath Security Inc",  // 0xFE04
            "CORE Transport Technologies NZ Limited",  // 0xFE05
            "Qualcomm Technologies, Inc.",  // 0xFE06
            "Sonos, Inc.",  // 0xFE07
            "Microsoft",  // 0xFE08
            "Pillsy, Inc.",  // 0xFE09
            "ruwido austria gmbh",  // 0xFE0A
            "ruwido austria gmbh",  // 0xFE0B
            "Procter & Gamble",  // 0xFE0C
            "Procter & Gamble",  // 0xFE0D
            "Setec Pty Ltd",  // 0xFE0E
            "Signify Netherlands B.V. (formerly Philips Lighting B.V.)",  // 0xFE0F
            "LAPIS Technology Co., Ltd.",  // 0xFE10
            "GMC-I Messtechnik GmbH",  // 0xFE11
            "M-Way Solutions GmbH",  // 0xFE12
            "Apple Inc.",  // 0xFE13
            "Flextronics International USA Inc.",  // 0xFE14
            "Amazon.com Services, Inc..",  // 0xFE15
            "Footmarks, Inc.",  // 0xFE16
            "Telit Wireless Solutions GmbH",  // 0xFE17
            "Runtime, Inc.",  // 0xFE18
            "Google LLC",  // 0xFE19
            "Tyto Life LLC",  // 0xFE1A
            "Tyto Life LLC",  // 0xFE1B
            "NetMedia, Inc.",  // 0xFE1C
            "Illuminati Instrument Corporation",  // 0xFE1D
            "LAMPLIGHT Co., Ltd.",  // 0xFE1E
            "Garmin International, Inc.",  // 0xFE1F
            "Emerson",  // 0xFE20
            "Bose Corporation",  // 0xFE21
            "Zoll Medical Corporation",  // 0xFE22
            "Zoll Medical Corporation",  // 0xFE23
            "August Home Inc",  // 0xFE24
            "Apple, Inc.",  // 0xFE25
            "Google LLC",  // 0xFE26
            "Google LLC",  // 0xFE27
            "Ayla Networks",  // 0xFE28
            "Gibson Innovations",  // 0xFE29
            "DaisyWorks, Inc.",  // 0xFE2A
            "ITT Industries",  // 0xFE2B
            "Google LLC",  // 0xFE2C
            "LAMPLIGHT Co., Ltd.",  // 0xFE2D
            "ERi,Inc.",  // 0xFE2E
            "CRESCO Wireless, Inc",  // 0xFE2F
            "Volkswagen AG",  // 0xFE30
            "Volkswagen AG",  // 0xFE31
            "Pro-Mark, Inc.",  // 0xFE32
            "CHIPOLO d.o.o.",  // 0xFE33
            "SmallLoop LLC",  // 0xFE34
            "HUAWEI Technologies Co., Ltd",  // 0xFE35
            "HUAWEI Technologies Co., Ltd",  // 0xFE36
            "Spaceek LTD",  // 0xFE37
            "Spaceek LTD",  // 0xFE38
            "TTS Tooltechnic Systems AG & Co. KG",  // 0xFE39
            "TTS Tooltechnic Systems AG & Co. KG",  // 0xFE3A
            "Dolby Laboratories",  // 0xFE3B
            "alibaba",  // 0xFE3C
            "BD Medical",  // 0xFE3D
            "BD Medical",  // 0xFE3E
            "Friday Labs Limited",  // 0xFE3F
            "Inugo Systems Limited",  // 0xFE40
            "Inugo Systems Limited",  // 0xFE41
            "Nets A/S",  // 0xFE42
            "Andreas Stihl AG & Co. KG",  // 0xFE43
            "SK Telecom",  // 0xFE44
            "Snapchat Inc",  // 0xFE45
            "B&O Play A/S",  // 0xFE46
            "General Motors",  // 0xFE47
            "General Motors",  // 0xFE48
            "SenionLab AB",  // 0xFE49
            "OMRON HEALTHCARE Co., Ltd.",  // 0xFE4A
            "Signify Netherlands B.V. (formerly Philips Lighting B.V.)",  // 0xFE4B
            "Volkswagen AG",  // 0xFE4C
            "Casambi Technologies Oy",  // 0xFE4D
            "NTT docomo",  // 0xFE4E
            "Molekule, Inc.",  // 0xFE4F
            "Google LLC",  // 0xFE50
            "SRAM",  // 0xFE51
            "SetPoint Medical",  // 0xFE52
            "3M",  // 0xFE53
            "Motiv, Inc.",  // 0xFE54
            "Google LLC",  // 0xFE55
            "Google LLC",  // 0xFE56
            "Dotted Labs",  // 0xFE57
            "Nordic Semiconductor ASA",  // 0xFE58
            "Nordic Semiconductor ASA",  // 0xFE59
            "Cronologics Corporation",  // 0xFE5A
            "GT-tronics HK Ltd",  // 0xFE5B
            "million hunters GmbH",  // 0xFE5C
            "Grundfos A/S",  // 0xFE5D
            "Plastc Corporation",  // 0xFE5E
            "Eyefi, Inc.",  // 0xFE5F
            "Lierda Science & Technology Group Co., Ltd.",  // 0xFE60
            "Logitech International SA",  // 0xFE61
            "Indagem Tech LLC",  // 0xFE62
            "Connected Yard, Inc.",  // 0xFE63
            "Siemens AG",  // 0xFE64
            "CHIPOLO d.o.o.",  // 0xFE65
            "Intel Corporation",  // 0xFE66
            "Lab Sensor Solutions",  // 0xFE67
            "Capsle Technologies Inc.",  // 0xFE68
            "Capsle Technologies Inc.",  // 0xFE69
            "Kontakt Micro-Location Sp. z o.o.",  // 0xFE6A
            "TASER International, Inc.",  // 0xFE6B
            "TASER International, Inc.",  // 0xFE6C
            "The University of Tokyo",  // 0xFE6D
            "The University of Tokyo",  // 0xFE6E
            "LINE Corporation",  // 0xFE6F
            "Beijing Jingdong Century Trading Co., Ltd.",  // 0xFE70
            "Plume Design Inc",  // 0xFE71
            "Abbott (formerly St. Jude Medical, Inc.)",  // 0xFE72
            "Abbott (formerly St. Jude Medical, Inc.)",  // 0xFE73
            "unwire",  // 0xFE74
            "TangoMe",  // 0xFE75
            "TangoMe",  // 0xFE76
            "Hewlett-Packard Company",  // 0xFE77
            "Hewlett-Packard Company",  // 0xFE78
            "Zebra Technologies",  // 0xFE79
            "Bragi GmbH",  // 0xFE7A
            "Orion Labs, Inc.",  // 0xFE7B
            "Telit Wireless Solutions (Formerly Stollmann E+V GmbH)",  // 0xFE7C
            "Aterica Health Inc.",  // 0xFE7D
            "Awear Solutions Ltd",  // 0xFE7E
            "Doppler Lab",  // 0xFE7F
            "Doppler Lab",  // 0xFE80
            "Medtronic Inc.",  // 0xFE81
            "Medtronic Inc.",  // 0xFE82
            "Blue Bite",  // 0xFE83
            "RF Digital Corp",  // 0xFE84
            "RF Digital Corp",  // 0xFE85
            "HUAWEI Technologies Co., Ltd",  // 0xFE86
            "Qingdao Yeelink Information Technology Co., Ltd. ( 青岛亿联客信息技术有限公司 )",  // 0xFE87
            "SALTO SYSTEMS S.L.",  // 0xFE88
            "B&O Play A/S",  // 0xFE89
            "Apple, Inc.",  // 0xFE8A
            "Apple, Inc.",  // 0xFE8B
            "TRON Forum",  // 0xFE8C
            "Interaxon Inc.",  // 0xFE8D
            "ARM Ltd",  // 0xFE8E
            "CSR",  // 0xFE8F
            "JUMA",  // 0xFE90
            "Shanghai Imilab Technology Co.,Ltd",  // 0xFE91
            "Jarden Safety & Security",  // 0xFE92
            "OttoQ In",  // 0xFE93
            "OttoQ In",  // 0xFE94
            "Xiaomi Inc.",  // 0xFE95
            "Tesla Motors Inc.",  // 0xFE96
            "Tesla Motors Inc.",  // 0xFE97
            "Currant Inc",  // 0xFE98
            "Currant Inc",  // 0xFE99
            "Estimote",  // 0xFE9A
            "Samsara Networks, Inc",  // 0xFE9B
            "GSI Laboratories, Inc.",  // 0xFE9C
            "Mobiquity Networks Inc",  // 0xFE9D
            "Dialog Semiconductor B.V.",  // 0xFE9E
            "Google LLC",  // 0xFE9F
            "Google LLC",  // 0xFEA0
            "Intrepid Control Systems, Inc.",  // 0xFEA1
            "Intrepid Control Systems, Inc.",  // 0xFEA2
            "ITT Industries",  // 0xFEA3
            "Paxton Access Ltd",  // 0xFEA4
            "GoPro, Inc.",  // 0xFEA5
            "GoPro, Inc.",  // 0xFEA6
            "UTC Fire and Security",  // 0xFEA7
            "Savant Systems LLC",  // 0xFEA8
            "Savant Systems LLC",  // 0xFEA9
            "Google LLC",  // 0xFEAA
            "Nokia",  // 0xFEAB
            "Nokia",  // 0xFEAC
            "Nokia",  // 0xFEAD
            "Nokia",  // 0xFEAE
            "Nest Labs Inc",  // 0xFEAF
            "Nest Labs Inc",  // 0xFEB0
            "Electronics Tomorrow Limited",  // 0xFEB1
            "Microsoft Corporation",  // 0xFEB2
            "Taobao",  // 0xFEB3
            "WiSilica Inc.",  // 0xFEB4
            "WiSilica Inc.",  // 0xFEB5
            "Vencer Co., Ltd",  // 0xFEB6
            "Meta Platforms, Inc.",  // 0xFEB7
            "Meta Platforms, Inc.",  // 0xFEB8
            "LG Electronics",  // 0xFEB9
            "Tencent Holdings Limited",  // 0xFEBA
            "adafruit industries",  // 0xFEBB
            "Dexcom Inc",  // 0xFEBC
            "Clover Network, Inc",  // 0xFEBD
            "Bose Corporation",  // 0xFEBE
            "Nod, Inc.",  // 0xFEBF
            "KDDI Corporation",  // 0xFEC0
            "KDDI Corporation",  // 0xFEC1
            "Blue Spark Technologies, Inc.",  // 0xFEC2
            "360fly, Inc.",  // 0xFEC3
            "PLUS Location Systems",  // 0xFEC4
            "Realtek Semiconductor Corp.",  // 0xFEC5
            "Kocomojo, LLC",  // 0xFEC6
            "Apple, Inc.",  // 0xFEC7
            "Apple, Inc.",  // 0xFEC8
            "Apple, Inc.",  // 0xFEC9
            "Apple, Inc.",  // 0xFECA
            "Apple, Inc.",  // 0xFECB
            "Apple, Inc.",  // 0xFECC
            "Apple, Inc.",  // 0xFECD
            "Apple, Inc.",  // 0xFECE
            "Apple, Inc.",  // 0xFECF
            "Apple, Inc.",  // 0xFED0
            "Apple, Inc.",  // 0xFED1
            "Apple, Inc.",  // 0xFED2
            "Apple, Inc.",  // 0xFED3
            "Apple, Inc.",  // 0xFED4
            "Plantronics Inc.",  // 0xFED5
            "Broadcom",  // 0xFED6
            "Broadcom",  // 0xFED7
            "Google LLC",  // 0xFED8
            "Pebble Technology Corporation",  // 0xFED9
            "ISSC Technologies Corp.",  // 0xFEDA
            "Perka, Inc.",  // 0xFEDB
            "Jawbone",  // 0xFEDC
            "Jawbone",  // 0xFEDD
            "Coin, Inc.",  // 0xFEDE
            "Design SHIFT",  // 0xFEDF
            "Anhui Huami Information Technology Co., Ltd.",  // 0xFEE0
            "Anhui Huami Information Technology Co., Ltd.",  // 0xFEE1
            "Anki, Inc.",  // 0xFEE2
            "Anki, Inc.",  // 0xFEE3
            "Nordic Semiconductor ASA",  // 0xFEE4
            "Nordic Semiconductor ASA",  // 0xFEE5
            "Silvair, Inc.",  // 0xFEE6
            "Tencent Holdings Limited.",  // 0xFEE7
            "Quintic Corp.",  // 0xFEE8
            "Quintic Corp.",  // 0xFEE9
            "Swirl Networks, Inc.",  // 0xFEEA
            "Swirl Networks, Inc.",  // 0xFEEB
            "Tile, Inc.",  // 0xFEEC
            "Tile, Inc.",  // 0xFEED
            "Polar Electro Oy",  // 0xFEEE
            "Polar Electro Oy",  // 0xFEEF
            "Intel",  // 0xFEF0
            "CSR",  // 0xFEF1
            "CSR",  // 0xFEF2
            "Google LLC",  // 0xFEF3
            "Google LLC",  // 0xFEF4
            "Dialog Semiconductor GmbH",  // 0xFEF5
            "Wicentric, Inc.",  // 0xFEF6
            "Aplix Corporation",  // 0xFEF7
            "Aplix Corporation",  // 0xFEF8
            "PayPal, Inc.",  // 0xFEF9
            "PayPal, Inc.",  // 0xFEFA
            "Telit Wireless Solutions (Formerly Stollmann E+V GmbH)",  // 0xFEFB
            "Gimbal, Inc.",  // 0xFEFC
            "Gimbal, Inc.",  // 0xFEFD
            "GN Hearing A/S",  // 0xFEFE
            "GN Netcom",  // 0xFEFF
            "Aliro",  // 0xFFF2
            "FiRa Consortium",  // 0xFFF3
            "FiRa Consortium",  // 0xFFF4
            "Car Connectivity Consortium, LLC",  // 0xFFF5
            "Matter Profile ID",  // 0xFFF6
            "Zigbee Direct",  // 0xFFF7
            "Mopria Alliance BLE",  // 0xFFF8
            "FIDO2 secure client-to-authenticator transport",  // 0xFFF9
            "ASTM Remote ID",  // 0xFFFA
            "Direct Thread Commissioning",  // 0xFFFB
            "Wireless Power Transfer (WPT)",  // 0xFFFC
            "Universal Second Factor Authenticator",  // 0xFFFD
            "Wireless Power Transfer",  // 0xFFFE
        ])
}
