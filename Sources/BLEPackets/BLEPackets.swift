import BLEBytes
