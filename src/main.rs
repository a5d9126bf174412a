//! The multi-call binary: `rapidutils yes ...`, or a link named `yes` (or `ru-yes`, `gyes`, ...).
#![no_main]
#![deny(unsafe_code)]

rapidutils::entry!(rapidutils::multicall_main);
