// Generated from the Bluetooth SIG Assigned Numbers appearance list (section 2.6).
// Keep sorted by value: lookups bisect it.

extension AppearanceNames {
    static let table = AssignedNumberTable(
        keys: [
            0x0000, 0x0040, 0x0080, 0x0081, 0x0082, 0x0083, 0x0084, 0x0085,
            0x0086, 0x0087, 0x0088, 0x0089, 0x008A, 0x008B, 0x008C, 0x008D,
            0x008E, 0x008F, 0x00C0, 0x00C1, 0x00C2, 0x0100, 0x0140, 0x0180,
            0x01C0, 0x0200, 0x0240, 0x0280, 0x02C0, 0x0300, 0x0301, 0x0340,
            0x0341, 0x0380, 0x0381, 0x0382, 0x03C0, 0x03C1, 0x03C2, 0x03C3,
            0x03C4, 0x03C5, 0x03C6, 0x03C7, 0x03C8, 0x03C9, 0x03CA, 0x0400,
            0x0440, 0x0441, 0x0442, 0x0443, 0x0480, 0x0481, 0x0482, 0x0483,
            0x0484, 0x0485, 0x04C0, 0x04C1, 0x04C2, 0x04C3, 0x04C4, 0x04C5,
            0x04C6, 0x04C7, 0x04C8, 0x04C9, 0x04CA, 0x04CB, 0x04CC, 0x0500,
            0x0501, 0x0502, 0x0503, 0x0540, 0x0541, 0x0542, 0x0543, 0x0544,
            0x0545, 0x0546, 0x0547, 0x0548, 0x0549, 0x054A, 0x054B, 0x054C,
            0x054D, 0x054E, 0x054F, 0x0550, 0x0551, 0x0552, 0x0553, 0x0554,
            0x0555, 0x0556, 0x0557, 0x0558, 0x0559, 0x0580, 0x0581, 0x0582,
            0x0583, 0x0584, 0x0585, 0x0586, 0x0587, 0x0588, 0x0589, 0x058A,
            0x058B, 0x058C, 0x058D, 0x058E, 0x058F, 0x0590, 0x0591, 0x0592,
            0x0593, 0x0594, 0x0595, 0x0596, 0x0597, 0x0598, 0x0599, 0x05C0,
            0x05C1, 0x05C2, 0x05C3, 0x05C4, 0x05C5, 0x05C6, 0x0600, 0x0601,
            0x0602, 0x0603, 0x0604, 0x0605, 0x0606, 0x0607, 0x0608, 0x0609,
            0x060A, 0x060B, 0x0640, 0x0680, 0x06C0, 0x06C1, 0x06C2, 0x06C3,
            0x06C4, 0x06C5, 0x06C6, 0x06C7, 0x0700, 0x0701, 0x0702, 0x0703,
            0x0704, 0x0705, 0x0706, 0x0707, 0x0708, 0x0709, 0x0740, 0x0741,
            0x0742, 0x0743, 0x0744, 0x0745, 0x0780, 0x0781, 0x0782, 0x0783,
            0x0784, 0x0785, 0x0786, 0x0787, 0x0788, 0x0789, 0x07C0, 0x07C1,
            0x07C2, 0x07C3, 0x07C4, 0x07C5, 0x07C6, 0x07C7, 0x07C8, 0x0800,
            0x0801, 0x0802, 0x0803, 0x0804, 0x0805, 0x0806, 0x0840, 0x0841,
            0x0842, 0x0843, 0x0844, 0x0845, 0x0880, 0x0881, 0x0882, 0x0883,
            0x0884, 0x0885, 0x0886, 0x0887, 0x0888, 0x0889, 0x08C0, 0x08C1,
            0x08C2, 0x08C3, 0x08C4, 0x08C5, 0x08C6, 0x08C7, 0x08C8, 0x08C9,
            0x08CA, 0x08CB, 0x08CC, 0x08CD, 0x08CE, 0x08CF, 0x0900, 0x0901,
            0x0902, 0x0903, 0x0904, 0x0905, 0x0906, 0x0907, 0x0908, 0x0909,
            0x090A, 0x090B, 0x090C, 0x090D, 0x090E, 0x090F, 0x0940, 0x0941,
            0x0942, 0x0943, 0x0944, 0x0980, 0x0981, 0x0982, 0x0983, 0x0984,
            0x09C0, 0x09C1, 0x09C2, 0x09C3, 0x09C4, 0x09C5, 0x09C6, 0x09C7,
            0x09C8, 0x09C9, 0x09CA, 0x0A00, 0x0A01, 0x0A02, 0x0A03, 0x0A40,
            0x0A41, 0x0A42, 0x0A43, 0x0A80, 0x0A81, 0x0A82, 0x0AC0, 0x0AC1,
            0x0AC2, 0x0C40, 0x0C41, 0x0C42, 0x0C80, 0x0CC0, 0x0CC1, 0x0CC2,
            0x0D00, 0x0D40, 0x0D41, 0x0D44, 0x0D48, 0x0D80, 0x0DC0, 0x0DC1,
            0x1440, 0x1441, 0x1442, 0x1443, 0x1444, 0x1480, 0x14C0,
        ],
        names: [
            "Unknown",  // 0x0000
            "Phone",  // 0x0040
            "Computer",  // 0x0080
            "Desktop Workstation",  // 0x0081
            "Server-class Computer",  // 0x0082
            "Laptop",  // 0x0083
            "Handheld PC/PDA (clamshell)",  // 0x0084
            "Palm-size PC/PDA",  // 0x0085
            "Wearable computer (watch size)",  // 0x0086
            "Tablet",  // 0x0087
            "Docking Station",  // 0x0088
            "All in One",  // 0x0089
            "Blade Server",  // 0x008A
            "Convertible",  // 0x008B
            "Detachable",  // 0x008C
            "IoT Gateway",  // 0x008D
            "Mini PC",  // 0x008E
            "Stick PC",  // 0x008F
            "Watch",  // 0x00C0
            "Sports Watch",  // 0x00C1
            "Smartwatch",  // 0x00C2
            "Clock",  // 0x0100
            "Display",  // 0x0140
            "Remote Control",  // 0x0180
            "Eye-glasses",  // 0x01C0
            "Tag",  // 0x0200
            "Keyring",  // 0x0240
            "Media Player",  // 0x0280
            "Barcode Scanner",  // 0x02C0
            "Thermometer",  // 0x0300
            "Ear Thermometer",  // 0x0301
            "Heart Rate Sensor",  // 0x0340
            "Heart Rate Belt",  // 0x0341
            "Blood Pressure",  // 0x0380
            "Arm Blood Pressure",  // 0x0381
            "Wrist Blood Pressure",  // 0x0382
            "Human Interface Device",  // 0x03C0
            "Keyboard",  // 0x03C1
            "Mouse",  // 0x03C2
            "Joystick",  // 0x03C3
            "Gamepad",  // 0x03C4
            "Digitizer Tablet",  // 0x03C5
            "Card Reader",  // 0x03C6
            "Digital Pen",  // 0x03C7
            "Barcode Scanner",  // 0x03C8
            "Touchpad",  // 0x03C9
            "Presentation Remote",  // 0x03CA
            "Glucose Meter",  // 0x0400
            "Running Walking Sensor",  // 0x0440
            "In-Shoe Running Walking Sensor",  // 0x0441
            "On-Shoe Running Walking Sensor",  // 0x0442
            "On-Hip Running Walking Sensor",  // 0x0443
            "Cycling",  // 0x0480
            "Cycling Computer",  // 0x0481
            "Speed Sensor",  // 0x0482
            "Cadence Sensor",  // 0x0483
            "Power Sensor",  // 0x0484
            "Speed and Cadence Sensor",  // 0x0485
            "Control Device",  // 0x04C0
            "Switch",  // 0x04C1
            "Multi-switch",  // 0x04C2
            "Button",  // 0x04C3
            "Slider",  // 0x04C4
            "Rotary Switch",  // 0x04C5
            "Touch Panel",  // 0x04C6
            "Single Switch",  // 0x04C7
            "Double Switch",  // 0x04C8
            "Triple Switch",  // 0x04C9
            "Battery Switch",  // 0x04CA
            "Energy Harvesting Switch",  // 0x04CB
            "Push Button",  // 0x04CC
            "Network Device",  // 0x0500
            "Access Point",  // 0x0501
            "Mesh Device",  // 0x0502
            "Mesh Network Proxy",  // 0x0503
            "Sensor",  // 0x0540
            "Motion Sensor",  // 0x0541
            "Air quality Sensor",  // 0x0542
            "Temperature Sensor",  // 0x0543
            "Humidity Sensor",  // 0x0544
            "Leak Sensor",  // 0x0545
            "Smoke Sensor",  // 0x0546
            "Occupancy Sensor",  // 0x0547
            "Contact Sensor",  // 0x0548
            "Carbon Monoxide Sensor",  // 0x0549
            "Carbon Dioxide Sensor",  // 0x054A
            "Ambient Light Sensor",  // 0x054B
            "Energy Sensor",  // 0x054C
            "Color Light Sensor",  // 0x054D
            "Rain Sensor",  // 0x054E
            "Fire Sensor",  // 0x054F
            "Wind Sensor",  // 0x0550
            "Proximity Sensor",  // 0x0551
            "Multi-Sensor",  // 0x0552
            "Flush Mounted Sensor",  // 0x0553
            "Ceiling Mounted Sensor",  // 0x0554
            "Wall Mounted Sensor",  // 0x0555
            "Multisensor",  // 0x0556
            "Energy Meter",  // 0x0557
            "Flame Detector",  // 0x0558
            "Vehicle Tire Pressure Sensor",  // 0x0559
            "Light Fixtures",  // 0x0580
            "Wall Light",  // 0x0581
            "Ceiling Light",  // 0x0582
            "Floor Light",  // 0x0583
            "Cabinet Light",  // 0x0584
            "Desk Light",  // 0x0585
            "Troffer Light",  // 0x0586
            "Pendant Light",  // 0x0587
            "In-ground Light",  // 0x0588
            "Flood Light",  // 0x0589
            "Underwater Light",  // 0x058A
            "Bollard with Light",  // 0x058B
            "Pathway Light",  // 0x058C
            "Garden Light",  // 0x058D
            "Pole-top Light",  // 0x058E
            "Spotlight",  // 0x058F
            "Linear Light",  // 0x0590
            "Street Light",  // 0x0591
            "Shelves Light",  // 0x0592
            "Bay Light",  // 0x0593
            "Emergency Exit Light",  // 0x0594
            "Light Controller",  // 0x0595
            "Light Driver",  // 0x0596
            "Bulb",  // 0x0597
            "Low-bay Light",  // 0x0598
            "High-bay Light",  // 0x0599
            "Fan",  // 0x05C0
            "Ceiling Fan",  // 0x05C1
            "Axial Fan",  // 0x05C2
            "Exhaust Fan",  // 0x05C3
            "Pedestal Fan",  // 0x05C4
            "Desk Fan",  // 0x05C5
            "Wall Fan",  // 0x05C6
            "HVAC",  // 0x0600
            "Thermostat",  // 0x0601
            "Humidifier",  // 0x0602
            "De-humidifier",  // 0x0603
            "Heater",  // 0x0604
            "Radiator",  // 0x0605
            "Boiler",  // 0x0606
            "Heat Pump",  // 0x0607
            "Infrared Heater",  // 0x0608
            "Radiant Panel Heater",  // 0x0609
            "Fan Heater",  // 0x060A
            "Air Curtain",  // 0x060B
            "Air Conditioning",  // 0x0640
            "Humidifier",  // 0x0680
            "Heating",  // 0x06C0
            "Radiator",  // 0x06C1
            "Boiler",  // 0x06C2
            "Heat Pump",  // 0x06C3
            "Infrared Heater",  // 0x06C4
            "Radiant Panel Heater",  // 0x06C5
            "Fan Heater",  // 0x06C6
            "Air Curtain",  // 0x06C7
            "Access Control",  // 0x0700
            "Access Door",  // 0x0701
            "Garage Door",  // 0x0702
            "Emergency Exit Door",  // 0x0703
            "Access Lock",  // 0x0704
            "Elevator",  // 0x0705
            "Window",  // 0x0706
            "Entrance Gate",  // 0x0707
            "Door Lock",  // 0x0708
            "Locker",  // 0x0709
            "Motorized Device",  // 0x0740
            "Motorized Gate",  // 0x0741
            "Awning",  // 0x0742
            "Blinds or Shades",  // 0x0743
            "Curtains",  // 0x0744
            "Screen",  // 0x0745
            "Power Device",  // 0x0780
            "Power Outlet",  // 0x0781
            "Power Strip",  // 0x0782
            "Plug",  // 0x0783
            "Power Supply",  // 0x0784
            "LED Driver",  // 0x0785
            "Fluorescent Lamp Gear",  // 0x0786
            "HID Lamp Gear",  // 0x0787
            "Charge Case",  // 0x0788
            "Power Bank",  // 0x0789
            "Light Source",  // 0x07C0
            "Incandescent Light Bulb",  // 0x07C1
            "LED Lamp",  // 0x07C2
            "HID Lamp",  // 0x07C3
            "Fluorescent Lamp",  // 0x07C4
            "LED Array",  // 0x07C5
            "Multi-Color LED Array",  // 0x07C6
            "Low voltage halogen",  // 0x07C7
            "Organic light emitting diode (OLED)",  // 0x07C8
            "Window Covering",  // 0x0800
            "Window Shades",  // 0x0801
            "Window Blinds",  // 0x0802
            "Window Awning",  // 0x0803
            "Window Curtain",  // 0x0804
            "Exterior Shutter",  // 0x0805
            "Exterior Screen",  // 0x0806
            "Audio Sink",  // 0x0840
            "Standalone Speaker",  // 0x0841
            "Soundbar",  // 0x0842
            "Bookshelf Speaker",  // 0x0843
            "Standmounted Speaker",  // 0x0844
            "Speakerphone",  // 0x0845
            "Audio Source",  // 0x0880
            "Microphone",  // 0x0881
            "Alarm",  // 0x0882
            "Bell",  // 0x0883
            "Horn",  // 0x0884
            "Broadcasting Device",  // 0x0885
            "Service Desk",  // 0x0886
            "Kiosk",  // 0x0887
            "Broadcasting Room",  // 0x0888
            "Auditorium",  // 0x0889
            "Motorized Vehicle",  // 0x08C0
            "Car",  // 0x08C1
            "Large Goods Vehicle",  // 0x08C2
            "2-Wheeled Vehicle",  // 0x08C3
            "Motorbike",  // 0x08C4
            "Scooter",  // 0x08C5
            "Moped",  // 0x08C6
            "3-Wheeled Vehicle",  // 0x08C7
            "Light Vehicle",  // 0x08C8
            "Quad Bike",  // 0x08C9
            "Minibus",  // 0x08CA
            "Bus",  // 0x08CB
            "Trolley",  // 0x08CC
            "Agricultural Vehicle",  // 0x08CD
            "Camper / Caravan",  // 0x08CE
            "Recreational Vehicle / Motor Home",  // 0x08CF
            "Domestic Appliance",  // 0x0900
            "Refrigerator",  // 0x0901
            "Freezer",  // 0x0902
            "Oven",  // 0x0903
            "Microwave",  // 0x0904
            "Toaster",  // 0x0905
            "Washing Machine",  // 0x0906
            "Dryer",  // 0x0907
            "Coffee maker",  // 0x0908
            "Clothes iron",  // 0x0909
            "Curling iron",  // 0x090A
            "Hair dryer",  // 0x090B
            "Vacuum cleaner",  // 0x090C
            "Robotic vacuum cleaner",  // 0x090D
            "Rice cooker",  // 0x090E
            "Clothes steamer",  // 0x090F
            "Wearable Audio Device",  // 0x0940
            "Earbud",  // 0x0941
            "Headset",  // 0x0942
            "Headphones",  // 0x0943
            "Neck Band",  // 0x0944
            "Aircraft",  // 0x0980
            "Light Aircraft",  // 0x0981
            "Microlight",  // 0x0982
            "Paraglider",  // 0x0983
            "Large Passenger Aircraft",  // 0x0984
            "AV Equipment",  // 0x09C0
            "Amplifier",  // 0x09C1
            "Receiver",  // 0x09C2
            "Radio",  // 0x09C3
            "Tuner",  // 0x09C4
            "Turntable",  // 0x09C5
            "CD Player",  // 0x09C6
            "DVD Player",  // 0x09C7
            "Bluray Player",  // 0x09C8
            "Optical Disc Player",  // 0x09C9
            "Set-Top Box",  // 0x09CA
            "Display Equipment",  // 0x0A00
            "Television",  // 0x0A01
            "Monitor",  // 0x0A02
            "Projector",  // 0x0A03
            "Hearing aid",  // 0x0A40
            "In-ear hearing aid",  // 0x0A41
            "Behind-ear hearing aid",  // 0x0A42
            "Cochlear Implant",  // 0x0A43
            "Gaming",  // 0x0A80
            "Home Video Game Console",  // 0x0A81
            "Portable handheld console",  // 0x0A82
            "Signage",  // 0x0AC0
            "Digital Signage",  // 0x0AC1
            "Electronic Label",  // 0x0AC2
            "Pulse Oximeter",  // 0x0C40
            "Fingertip Pulse Oximeter",  // 0x0C41
            "Wrist Worn Pulse Oximeter",  // 0x0C42
            "Weight Scale",  // 0x0C80
            "Personal Mobility Device",  // 0x0CC0
            "Powered Wheelchair",  // 0x0CC1
            "Mobility Scooter",  // 0x0CC2
            "Continuous Glucose Monitor",  // 0x0D00
            "Insulin Pump",  // 0x0D40
            "Insulin Pump, durable pump",  // 0x0D41
            "Insulin Pump, patch pump",  // 0x0D44
            "Insulin Pen",  // 0x0D48
            "Medication Delivery",  // 0x0D80
            "Spirometer",  // 0x0DC0
            "Handheld Spirometer",  // 0x0DC1
            "Outdoor Sports Activity",  // 0x1440
            "Location Display",  // 0x1441
            "Location and Navigation Display",  // 0x1442
            "Location Pod",  // 0x1443
            "Location and Navigation Pod",  // 0x1444
            "Industrial Measurement Device",  // 0x1480
            "Industrial Tools",  // 0x14C0
        ])
}
