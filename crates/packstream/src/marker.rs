//! Marker bytes and structure tags of PackStream v1 and Bolt.

pub const NULL: u8 = 0xC0;
pub const FLOAT_64: u8 = 0xC1;
pub const FALSE: u8 = 0xC2;
pub const TRUE: u8 = 0xC3;
pub const INT_8: u8 = 0xC8;
pub const INT_16: u8 = 0xC9;
pub const INT_32: u8 = 0xCA;
pub const INT_64: u8 = 0xCB;
pub const BYTES_8: u8 = 0xCC;
pub const BYTES_16: u8 = 0xCD;
pub const BYTES_32: u8 = 0xCE;
pub const TINY_STRING: u8 = 0x80;
pub const STRING_8: u8 = 0xD0;
pub const STRING_16: u8 = 0xD1;
pub const STRING_32: u8 = 0xD2;
pub const TINY_LIST: u8 = 0x90;
pub const LIST_8: u8 = 0xD4;
pub const LIST_16: u8 = 0xD5;
pub const LIST_32: u8 = 0xD6;
pub const TINY_MAP: u8 = 0xA0;
pub const MAP_8: u8 = 0xD8;
pub const MAP_16: u8 = 0xD9;
pub const MAP_32: u8 = 0xDA;
pub const TINY_STRUCT: u8 = 0xB0;

/// Structure tags of the graph and temporal types (Bolt structure semantics).
pub mod tag {
    pub const NODE: u8 = 0x4E;
    pub const RELATIONSHIP: u8 = 0x52;
    pub const UNBOUND_RELATIONSHIP: u8 = 0x72;
    pub const PATH: u8 = 0x50;
    pub const DATE: u8 = 0x44;
    pub const TIME: u8 = 0x54;
    pub const LOCAL_TIME: u8 = 0x74;
    pub const DATE_TIME: u8 = 0x49;
    pub const DATE_TIME_ZONE_ID: u8 = 0x69;
    pub const LEGACY_DATE_TIME: u8 = 0x46;
    pub const LEGACY_DATE_TIME_ZONE_ID: u8 = 0x66;
    pub const LOCAL_DATE_TIME: u8 = 0x64;
    pub const DURATION: u8 = 0x45;
    pub const POINT_2D: u8 = 0x58;
    pub const POINT_3D: u8 = 0x59;
}
