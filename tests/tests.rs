//! All integration tests, one binary: `mod` per area, shared helpers in `util`.

mod cat_diff;
mod cat_format_prop;
mod cat_shape;
// The test harness sends signals, blocks them in a child before exec and opens pseudo-terminals
// through libc: its `unsafe` stays in these two test modules, never in the product.
#[allow(unsafe_code)]
mod faults;
mod generated;
#[allow(unsafe_code)]
mod hostile;
mod install;
mod layout;
mod locale_diff;
mod loops;
mod multicall;
mod util;
mod wc_diff;
mod wc_shape;
mod yes_diff;
mod yes_shape;
