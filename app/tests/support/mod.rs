//! Helpers of the end-to-end tests.

pub mod desktop;
pub mod network;
pub mod webdriver;
