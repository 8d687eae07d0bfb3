//! The SmartHole hub protocol: the frames the plugin sends. (The socket and the connection
//! policy arrive with the hub-connection work.)

pub mod frames;

pub use frames::Priority;
